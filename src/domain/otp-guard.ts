/**
 * The OTP pumping guard's rules: which countries a key may send codes to, and how
 * many codes a number and a destination prefix may get in a while. Pure: the settings, the
 * counts and the time come in as parameters; refusals come out as values.
 */
import { callingCodeOf, destinationPrefixOf } from './calling-codes.js';
import { defaultOtpMaxTries, defaultOtpValiditySeconds } from './otp-check.js';

/** A key's OTP settings as stored: null takes the default; for the velocity limits 0 is off. */
export interface OtpSettings {
  validitySeconds: number | null;
  maxTries: number | null;
  /** Calling codes codes may go to; null: Türkiye only. */
  countries: string[] | null;
  perNumberHour: number | null;
  perNumberDay: number | null;
  perPrefixMinute: number | null;
  /** Seconds between two codes to one number. */
  cooldownSeconds: number | null;
  /** The conversion watch (domain/otp-watch.ts): codes a prefix needs in the window to be judged; 0 is off. */
  watchMinSent: number | null;
  /** Percent of a prefix's codes verified below which the watch suspects pumping. */
  watchMinShare: number | null;
  /** How many times the previous window's codes the window must have (volume rising). */
  watchRise: number | null;
}

export type EffectiveOtpSettings = { [K in keyof OtpSettings]: NonNullable<OtpSettings[K]> };

export const defaultOtpSettings: EffectiveOtpSettings = {
  validitySeconds: defaultOtpValiditySeconds,
  maxTries: defaultOtpMaxTries,
  countries: ['90'],
  perNumberHour: 5,
  perNumberDay: 10,
  perPrefixMinute: 30,
  cooldownSeconds: 0,
  watchMinSent: 20,
  watchMinShare: 20,
  watchRise: 2,
};

export const noOtpSettings: OtpSettings = {
  validitySeconds: null,
  maxTries: null,
  countries: null,
  perNumberHour: null,
  perNumberDay: null,
  perPrefixMinute: null,
  cooldownSeconds: null,
  watchMinSent: null,
  watchMinShare: null,
  watchRise: null,
};

export function effectiveOtpSettings(settings: OtpSettings): EffectiveOtpSettings {
  const out = { ...defaultOtpSettings };
  for (const k of Object.keys(out) as (keyof OtpSettings)[]) {
    const v = settings[k];
    if (v !== null) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** A list of calling codes (`90,49`), each 1 to 3 digits; null when one is not. */
export function parseCountries(raw: string): string[] | null {
  const codes = raw
    .split(',')
    .map((c) => c.trim().replace(/^\+/, ''))
    .filter((c) => c !== '');
  if (codes.length === 0 || codes.some((c) => !/^[1-9]\d{0,2}$/.test(c))) return null;
  return [...new Set(codes)];
}

/** What the guard counted of a key's recent codes to one number and its prefix. */
export interface OtpRecent {
  numberLastHour: number;
  numberLastDay: number;
  prefixLastMinute: number;
  /** When the last code to the number was sent; null: none in the last day. */
  numberLastAt: number | null;
  /** The conversion watch holds the number's prefix for the key (until the provider releases it). */
  prefixHeld: boolean;
}

export type OtpRefusal =
  | { reason: 'country'; callingCode: string }
  | { reason: 'held'; prefix: string }
  | { reason: 'cooldown' | 'number-hour' | 'number-day' | 'prefix-minute'; retryAfterSeconds: number };

/** Whether a code may go to `destination` now; the refusal otherwise. Countries first. */
export function otpGuardVerdict(
  settings: EffectiveOtpSettings,
  destination: string,
  recent: OtpRecent,
  now: number,
): OtpRefusal | null {
  const callingCode = callingCodeOf(destination);
  if (!settings.countries.includes(callingCode)) return { reason: 'country', callingCode };
  if (recent.prefixHeld) return { reason: 'held', prefix: destinationPrefixOf(destination) };
  const cooldownMs = settings.cooldownSeconds * 1000;
  if (cooldownMs > 0 && recent.numberLastAt !== null && now - recent.numberLastAt < cooldownMs)
    return { reason: 'cooldown', retryAfterSeconds: Math.ceil((recent.numberLastAt + cooldownMs - now) / 1000) };
  // The day before the hour: when both are reached, the longer wait is the true one.
  if (settings.perNumberDay > 0 && recent.numberLastDay >= settings.perNumberDay)
    return { reason: 'number-day', retryAfterSeconds: 86_400 };
  if (settings.perNumberHour > 0 && recent.numberLastHour >= settings.perNumberHour)
    return { reason: 'number-hour', retryAfterSeconds: 3600 };
  if (settings.perPrefixMinute > 0 && recent.prefixLastMinute >= settings.perPrefixMinute)
    return { reason: 'prefix-minute', retryAfterSeconds: 60 };
  return null;
}
