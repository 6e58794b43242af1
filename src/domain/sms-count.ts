import type { SmsLang } from './labels.js';
import { couldBeNumber, isTurkeyNumber } from './recipients.js';

/** The line-break token of message text. Capitals only. */
export const lineBreakToken = 'TS-L';

export function toLineBreaks(text: string): string {
  return text.replaceAll(lineBreakToken, '\n');
}

/**
 * Length of a text in UTF-16 code units. A character outside the Basic Multilingual Plane
 * (most emoji) counts as two, as it occupies two code units in the UCS-2/UTF-16 encoding
 * used on the air. Characters are not weighted by GSM 7-bit escapes: the spec's tables
 * are in characters per sms_lang, not in septets.
 */
export function textLength(text: string): number {
  return text.length;
}

/** At most this many characters per text field, measured as sent, before `TS-L` conversion. */
export const maxTextLength = 2000;

export function textTooLong(text: string): boolean {
  return textLength(text) > maxTextLength;
}

export type CountTable = 'turkey' | 'international';

/** Most characters that fit in 1..7 SMS (spec, "Message language and SMS count"). */
const turkeyLimits: Record<SmsLang, readonly number[]> = {
  0: [160, 305, 455, 610, 760, 910, 1070],
  1: [155, 245, 445, 595, 740, 890, 1040],
  2: [65, 127, 190, 250, 315, 380, 445],
};
const internationalLimits: readonly number[] = [70, 130, 195, 260, 325, 390, 450];

/** Texts longer than the 7-SMS column all count as this many. */
export const maxSmsCount = 8;

export function limitsFor(lang: SmsLang, table: CountTable): readonly number[] {
  return table === 'turkey' ? turkeyLimits[lang] : internationalLimits;
}

/**
 * SMS count of a text, after `TS-L` becomes a line break. An empty text counts as 1: it
 * fits the first column (the endpoints reject empty text before counting anyway).
 */
export function smsCount(text: string, lang: SmsLang, table: CountTable): number {
  const length = textLength(toLineBreaks(text));
  const index = limitsFor(lang, table).findIndex((limit) => length <= limit);
  return index === -1 ? maxSmsCount : index + 1;
}

/**
 * 'single': /sms/send and /otp/detailed, where numbers not starting 905 use the international
 * row. 'bulk': /group/send and /group/sendMixed, which use the Türkiye table for all numbers.
 */
export type CountMode = 'single' | 'bulk';

export function tableFor(normalised: string, mode: CountMode): CountTable {
  return mode === 'bulk' || isTurkeyNumber(normalised) ? 'turkey' : 'international';
}

/**
 * The SMS count one recipient is charged. An entry that cannot be a phone number is never
 * sent and costs nothing (a wrong number, digits that reach no one, is charged: the spec).
 */
export function countFor(normalised: string, text: string, lang: SmsLang, mode: CountMode): number {
  if (!couldBeNumber(normalised)) return 0;
  return smsCount(text, lang, tableFor(normalised, mode));
}

/** Total SMS count of one text to several numbers (the balance every recipient needs). */
export function totalCount(numbers: readonly string[], text: string, lang: SmsLang, mode: CountMode): number {
  let total = 0;
  for (const n of numbers) total += countFor(n, text, lang, mode);
  return total;
}
