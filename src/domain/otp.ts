import type { SmsLang } from './labels.js';
import { toLineBreaks } from './sms-count.js';

/** A uniform integer in [min, maxExclusive); the service passes `crypto.randomInt`. */
export type RandomInt = (min: number, maxExclusive: number) => number;

export type OtpDigits = 4 | 5 | 6;

export const defaultOtpDigits: OtpDigits = 4;

/** `digits`: the integers 4, 5 or 6; any other value, a numeric string included, gives 4. */
export function otpDigits(value: unknown): OtpDigits {
  // Form fields are text: "6" from a form is the 6 of a JSON body.
  const n = typeof value === 'string' && /^\s*[456]\s*$/.test(value) ? Number(value) : value;
  return n === 4 || n === 5 || n === 6 ? n : defaultOtpDigits;
}

/**
 * A code of exactly `digits` digits that never starts with 0 (the response gives it as an
 * integer), uniform over all such codes when `randomInt` is uniform: 1000..9999 for 4.
 */
export function otpCode(digits: OtpDigits, randomInt: RandomInt): number {
  const min = 10 ** (digits - 1);
  return randomInt(min, min * 10);
}

/** Fixed activation phrases of the /otp/send template; the code follows the colon directly. */
const activationPhrases: Record<SmsLang, string> = {
  0: 'Your activation code is:',
  1: 'Aktivasyon kodunuz:',
  2: 'رمز التفعيل الخاص بك:',
};

/**
 * /otp/send text: `<phrase><code> <OTP_BRAND>`. A brand that is empty or only whitespace
 * is left out together with its space, so the text never ends in a space.
 */
export function otpTemplate(lang: SmsLang, code: number | string, brand: string): string {
  const base = `${activationPhrases[lang]}${code}`;
  const b = brand.trim();
  return b === '' ? base : `${base} ${b}`;
}

/** The /otp/detailed code token. Capitals only: `ts-code` is ordinary text. */
export const codeToken = 'TS-CODE';

export function containsCodeToken(text: string): boolean {
  return text.includes(codeToken);
}

/** /otp/detailed text: every `TS-CODE` becomes the code, and `TS-L` a line break. */
export function fillOtpText(text: string, code: number | string): string {
  return toLineBreaks(text.replaceAll(codeToken, String(code)));
}
