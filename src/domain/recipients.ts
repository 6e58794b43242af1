import { fail, ok, type Result } from './result.js';

/** Separators a spec number field may contain; they carry no digits. */
const separators = /[\s+\-()]/g;

/**
 * The spec's recipient normalisation (all send endpoints): whitespace of any kind, `+`,
 * `-` and parentheses go; one leading `00` goes; `05...` and ten-digit `5...` numbers get
 * the Türkiye prefix. The rules apply in that order, each once, so `0090 5XX...` becomes
 * `905XX...`. Anything else is kept as it is: numbers are not validated here.
 */
export function normaliseNumber(raw: string): string {
  let n = raw.replace(separators, '');
  if (n.startsWith('00')) n = n.slice(2);
  if (n.startsWith('05')) return `9${n}`;
  if (n.length === 10 && n.startsWith('5')) return `90${n}`;
  return n;
}

export interface RecipientList {
  /** Distinct normalised numbers, in the order they were first seen. */
  numbers: string[];
  /** Non-empty entries before de-duplication. */
  rawCount: number;
}

/** What separates the entries of a `sentto` (and of a /contacts/add `mobile` string). */
const entrySeparators = /[,;\r\n]/;

/** E.164's limit: a phone number has at most 15 digits, its country code included. */
export const maxNumberDigits = 15;

/**
 * Whether a normalised recipient can be a phone number at all: digits only, 1 to 15 of them.
 * This is the line between a wrong number, which the spec accepts and charges, and an entry
 * that is no number: /sms/send refuses it (TS-1025), bulk sends count it invalid without
 * charging it, and both simulators refuse it (docs/decisions.md, "Recipients that are not
 * numbers").
 */
export function couldBeNumber(normalised: string): boolean {
  return normalised.length <= maxNumberDigits && /^\d+$/.test(normalised);
}

/**
 * The first entry of a `sentto` that cannot be a phone number once normalised, trimmed as it
 * was sent, or null when there is none. Entries that normalise to nothing are not entries.
 */
export function firstNonNumber(sentto: string): string | null {
  for (const entry of sentto.split(entrySeparators)) {
    const n = normaliseNumber(entry);
    if (n !== '' && !couldBeNumber(n)) return entry.trim();
  }
  return null;
}

/** Most characters of an entry quoted back in a message: a long value is never echoed whole. */
export const maxQuotedEntry = 32;

/** An entry as a message quotes it: at most `maxQuotedEntry` characters, then an ellipsis. */
export function quotedEntry(entry: string): string {
  const chars = Array.from(entry);
  return JSON.stringify(chars.length <= maxQuotedEntry ? entry : `${chars.slice(0, maxQuotedEntry).join('')}…`);
}

/**
 * Splits a /sms/send `sentto` on commas, semicolons and line breaks (`\n`, `\r\n`, `\r`).
 * Entries are compared after normalisation, so `0532...` and `90532...` are one recipient.
 */
export function splitRecipients(sentto: string): RecipientList {
  const entries = sentto
    .split(entrySeparators)
    .map(normaliseNumber)
    .filter((n) => n !== '');
  return { numbers: [...new Set(entries)], rawCount: entries.length };
}

/** Minimum length of `sentto` (/sms/send) and `mobile` (/otp/send), in characters. */
export const minNumberFieldLength = 7;

/** Whether a number field is under the spec's 7-character minimum, surrounding whitespace aside. */
export function numberFieldTooShort(raw: string): boolean {
  return raw.trim().length < minNumberFieldLength;
}

/** The /sms/send rule: numbers not starting with 905 are international. */
export function isTurkeyNumber(normalised: string): boolean {
  return normalised.startsWith('905');
}

/**
 * A Türkiye mobile number for the blocking list, as `905XXXXXXXXX`, or null for anything
 * else (landlines such as 90212..., foreign numbers, wrong lengths, letters). Any national
 * number of ten digits starting 5 is accepted: the allocated ranges change, and numbers move
 * between operators, so ranges are not checked here.
 */
export function turkishMobile(raw: string): string | null {
  let n = raw.replace(separators, '');
  if (!/^\d+$/.test(n)) return null;
  if (n.startsWith('00')) n = n.slice(2);
  else if (n.startsWith('0')) n = `9${n}`;
  else if (n.startsWith('5')) n = `90${n}`;
  return /^905\d{9}$/.test(n) ? n : null;
}

/** The part of a number that identifies the subscriber: its last ten digits. */
export function subscriberKey(number: string): string {
  return number.slice(-10);
}

/** Blocking-list comparison: two forms of one number share their last ten digits. */
export function sameSubscriber(a: string, b: string): boolean {
  return subscriberKey(a) === subscriberKey(b);
}

/**
 * The /otp/send `mobile` rule. Missing, or under 7 characters as sent, is TS-1025; after the
 * spec's normalisation anything but 11 to 15 digits is TS-1034 (number format invalid).
 */
export function otpMobile(raw: string | undefined): Result<string> {
  if (raw === undefined || numberFieldTooShort(raw)) return fail('TS-1025');
  const n = normaliseNumber(raw);
  return /^\d{11,15}$/.test(n) ? ok(n) : fail('TS-1034');
}

/**
 * Whether a normalised number could be a real one, for the `invalid_numbers` report counter
 * (sends accept any number). Digits only, 8 to 15 of them: E.164 allows at most 15, and the
 * shortest numbers in service with their country code have about 8. Country code 90 is
 * Türkiye alone, whose numbers are 10 digits after it, so `90...` numbers must have 12.
 */
export function isPlausibleNumber(normalised: string): boolean {
  if (!couldBeNumber(normalised) || normalised.length < 8) return false;
  return !normalised.startsWith('90') || normalised.length === 12;
}
