/**
 * The OTP conversion watch's rule: SMS pumping (artificially inflated traffic) sends
 * many codes to numbers of one destination prefix that nobody verifies, and sends more and
 * more of them. So a key's prefix is held when, in the window, it had at least `minSent`
 * codes that were verified or had their chance (older than the grace), fewer than
 * `minShare` percent of them were verified, and it had at least `rise` times the codes of
 * the window before. Pure: the counts and the settings come in as parameters.
 */
import type { EffectiveOtpSettings } from './otp-guard.js';

/** The window the watch judges: the last hour, against the hour before it. */
export const otpWatchWindowMs = 3_600_000;

/**
 * A code younger than this and not verified is not counted yet: its person may still be
 * typing it. Verified codes count at once.
 */
export const otpWatchGraceMs = 120_000;

/** What the watch counted of one key's codes to one prefix. */
export interface PrefixConversion {
  keyId: number;
  accountId: number;
  prefix: string;
  /** Codes of the window that were verified or are older than the grace. */
  sent: number;
  /** Of those, verified. */
  verified: number;
  /** Codes of the window before. */
  previousSent: number;
}

/** The share verified, in percent (100 when nothing was sent: nothing to suspect). */
export function conversionPercent(sent: number, verified: number): number {
  return sent === 0 ? 100 : (verified * 100) / sent;
}

/** Whether the watch holds this prefix of the key: the pumping signature under its settings. */
export function pumpingSuspected(settings: EffectiveOtpSettings, c: PrefixConversion): boolean {
  if (settings.watchMinSent <= 0 || c.sent < settings.watchMinSent) return false;
  if (conversionPercent(c.sent, c.verified) >= settings.watchMinShare) return false;
  return c.sent >= settings.watchRise * c.previousSent;
}
