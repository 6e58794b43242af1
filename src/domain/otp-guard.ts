/**
 * The OTP pumping guard's rules: which countries a key may send codes to, and how
 * many codes a number and a destination prefix may get in a while. Pure: the settings, the
 * counts and the time come in as parameters; refusals come out as values.
 *
 * The defaults keep the spec's behaviour and never refuse ordinary traffic
 * (docs/decisions.md, "The OTP guard's defaults"): codes may go to every country (the
 * provider's routes reach every one: an SMPP carrier has a default route, the simulator
 * takes any number), and the provider narrows them per account or key; a number gets at
 * most 5 codes an hour and 10 a day; a destination prefix is judged against its own history
 * (the rise rule, domain/otp-prefix-rate.ts), not an absolute count a minute.
 */
import { callingCodeOf, destinationPrefixOf } from './calling-codes.js';
import { defaultOtpMaxTries, defaultOtpValiditySeconds } from './otp-check.js';
import { riseCeiling, secondsLeftInMinute } from './otp-prefix-rate.js';
import type { PrefixRate } from './otp-prefix-rate.js';

/** A key's OTP settings as stored: null takes the default; for the velocity limits 0 is off. */
export interface OtpSettings {
  validitySeconds: number | null;
  maxTries: number | null;
  /** Calling codes codes may go to; null: every country. */
  countries: string[] | null;
  perNumberHour: number | null;
  perNumberDay: number | null;
  /** An absolute ceiling of codes a minute to one destination prefix; 0 (the default) is none. */
  perPrefixMinute: number | null;
  /** The rise rule: how many times its usual rate a minute a prefix may get; 0 is off. */
  prefixRise: number | null;
  /** The rise rule: codes a prefix may always get in a minute, whatever its history. */
  prefixRiseMin: number | null;
  /** Seconds between two codes to one number. */
  cooldownSeconds: number | null;
  /** The conversion watch (domain/otp-watch.ts): codes a prefix needs in the window to be judged; 0 is off. */
  watchMinSent: number | null;
  /** Percent of a prefix's codes verified below which the watch suspects pumping. */
  watchMinShare: number | null;
  /** How many times the previous window's codes the window must have (volume rising). */
  watchRise: number | null;
}

/** Every country: what a null list of countries means. */
export const allCountries = 'all';

export type EffectiveOtpSettings = {
  [K in Exclude<keyof OtpSettings, 'countries'>]: NonNullable<OtpSettings[K]>;
} & { countries: string[] | typeof allCountries };

export const defaultOtpSettings: EffectiveOtpSettings = {
  validitySeconds: defaultOtpValiditySeconds,
  maxTries: defaultOtpMaxTries,
  countries: allCountries,
  perNumberHour: 5,
  perNumberDay: 10,
  perPrefixMinute: 0,
  prefixRise: 10,
  prefixRiseMin: 1000,
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
  prefixRise: null,
  prefixRiseMin: null,
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

/** What the guard counted, in the send's transaction, of a key's codes to one number and its prefix. */
export interface OtpRecent {
  numberLastHour: number;
  numberLastDay: number;
  /** Codes to the prefix in the last 60 s (counted only while the key's `perPrefixMinute` is on). */
  prefixLastMinute: number;
  /** When the last code to the number was sent; null: none in the last day. */
  numberLastAt: number | null;
  /** The prefix's rate for the key as of this minute (domain/otp-prefix-rate.ts, rateAt). */
  prefixRate: PrefixRate;
}

export type OtpRefusal =
  | { reason: 'country'; callingCode: string; by: 'account' | 'key' }
  | { reason: 'held'; prefix: string }
  | {
      reason: 'cooldown' | 'number-hour' | 'number-day' | 'prefix-minute' | 'prefix-rise';
      retryAfterSeconds: number;
    };

/**
 * Whether codes may go to `destination` at all: the account's countries (the provider's
 * narrowing, which the customer cannot widen), the key's, and the conversion watch's hold of
 * the prefix. Countries first: a country refusal is the more useful answer.
 */
export function otpPlaceVerdict(
  settings: EffectiveOtpSettings,
  accountCountries: readonly string[] | null,
  destination: string,
  held: boolean,
): OtpRefusal | null {
  const callingCode = callingCodeOf(destination);
  if (accountCountries !== null && !accountCountries.includes(callingCode))
    return { reason: 'country', callingCode, by: 'account' };
  if (settings.countries !== allCountries && !settings.countries.includes(callingCode))
    return { reason: 'country', callingCode, by: 'key' };
  if (held) return { reason: 'held', prefix: destinationPrefixOf(destination) };
  return null;
}

/**
 * Whether one more code may go now, on counts that hold every code committed before it
 * (read in the send's transaction, under the account's lock). The cooldown, then the day
 * before the hour (when both are reached, the longer wait is the true one), then the prefix.
 */
export function otpVelocityVerdict(settings: EffectiveOtpSettings, recent: OtpRecent, now: number): OtpRefusal | null {
  const cooldownMs = settings.cooldownSeconds * 1000;
  if (cooldownMs > 0 && recent.numberLastAt !== null && now - recent.numberLastAt < cooldownMs)
    return { reason: 'cooldown', retryAfterSeconds: Math.ceil((recent.numberLastAt + cooldownMs - now) / 1000) };
  if (settings.perNumberDay > 0 && recent.numberLastDay >= settings.perNumberDay)
    return { reason: 'number-day', retryAfterSeconds: 86_400 };
  if (settings.perNumberHour > 0 && recent.numberLastHour >= settings.perNumberHour)
    return { reason: 'number-hour', retryAfterSeconds: 3600 };
  if (settings.perPrefixMinute > 0 && recent.prefixLastMinute >= settings.perPrefixMinute)
    return { reason: 'prefix-minute', retryAfterSeconds: 60 };
  if (
    settings.prefixRise > 0 &&
    recent.prefixRate.codes >= riseCeiling(settings.prefixRise, settings.prefixRiseMin, recent.prefixRate.baseline)
  )
    return { reason: 'prefix-rise', retryAfterSeconds: secondsLeftInMinute(now) };
  return null;
}
