import { z } from 'zod';
import type { ResultCode } from '../domain/result-codes.js';
import type { StatusMap } from './endpoint.js';
import { validOtpValidity } from '../domain/otp-check.js';

/**
 * Field schemas whose every failure reports one result code. The code travels as the
 * zod issue's message; `firstCode` reads it back.
 */
export function coded(code: ResultCode): { error: ResultCode } {
  return { error: code };
}

/** An integer sent as a JSON number or, as form fields are, a string of digits. */
export function integerField(code: ResultCode): z.ZodType<number, unknown> {
  // zod 4's int() is a safe integer: no larger than 2^53 - 1 in magnitude.
  return z.preprocess(
    (v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : v),
    z.number(coded(code)).int(code),
  );
}

/**
 * A refinement failing with `code`, whose `detail` replaces the catalogue's message in the
 * response (the catalogue's text is too general for some rules, like a missing TS-CODE).
 */
export function codedDetail(code: ResultCode, detail: string): { message: ResultCode; params: { detail: string } } {
  return { message: code, params: { detail } };
}

/**
 * Why `value` cannot be stored as sent, or null. PostgreSQL's text refuses a NUL (the
 * statement fails), and its driver writes a UTF-16 surrogate without its pair as U+FFFD, so
 * two different values would be stored as one; SQLite keeps both. Refusing them in the
 * request gives one answer on both stores, and no such text ever reaches a write.
 */
export function unstorableText(value: string): 'a NUL character' | 'an unpaired UTF-16 surrogate' | null {
  if (value.includes('\u0000')) return 'a NUL character';
  // With the u flag a surrogate pair is one code point, so only lone surrogates match.
  return /\p{Cs}/u.test(value) ? 'an unpaired UTF-16 surrogate' : null;
}

/** A check refusing text `unstorableText` refuses with `code`, naming the field and why. */
export function storableText(code: ResultCode, field: string): (value: string, ctx: z.RefinementCtx) => void {
  return (value, ctx) => {
    const reason = unstorableText(value);
    if (reason !== null) ctx.addIssue({ code: 'custom', ...codedDetail(code, `${field} contains ${reason}`) });
  };
}

/** The detail of the first issue, when its refinement gave one. */
export function firstDetail(error: z.ZodError): string | undefined {
  const issue = error.issues[0];
  const detail = issue?.code === 'custom' ? (issue.params as { detail?: unknown } | undefined)?.detail : undefined;
  return typeof detail === 'string' ? detail : undefined;
}

export function firstCode(error: z.ZodError, fallback: ResultCode, isCode: (s: string) => s is ResultCode): ResultCode {
  const message = error.issues[0]?.message ?? '';
  return isCode(message) ? message : fallback;
}

/** A number field sent as a string or, by some clients, as a JSON number; TS-1025 otherwise. */
export const numberText = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string(coded('TS-1025')));

/** `sms_lang` (`lang` on the OTP endpoints): 0, 1 or 2; TS-1033 otherwise. */
export const langField = integerField('TS-1033').refine((v) => v >= 0 && v <= 2, 'TS-1033');

/**
 * `validity` of the OTP endpoints: seconds the code stays valid, 30 to 3600;
 * absent, the key's setting or 5 minutes. TS-1033 otherwise.
 */
export const otpValidityField = integerField('TS-1033').refine(
  (v) => validOtpValidity(v),
  codedDetail('TS-1033', 'validity must be whole seconds from 30 to 3600'),
);

/** `sms_id` of /sms/status, /sms/cancel and /otp/verify: a positive integer; missing or anything else is TS-1052. */
export const smsIdField = z.preprocess(
  (v) => (v === undefined || v === null || v === '' ? undefined : v),
  integerField('TS-1052').refine((n) => n > 0, 'TS-1052'),
);

/** The OTP endpoints' refusals made before a charge, not in the spec's table. */
const otpGuardStatuses: StatusMap = {
  // The OTP guard.
  'TS-1094': 403,
  'TS-1095': 429,
  // The conversion watch's hold: refused until the provider releases it.
  'TS-1096': 403,
};

/** What both OTP sends refuse alike once their fields pass: the key's account, the balance, the OTP guard. */
export const otpSendStatuses: StatusMap = {
  'TS-1031': 403,
  'TS-1030': 403,
  'TS-1027': 403,
  'TS-5000': 403,
  ...otpGuardStatuses,
};

/**
 * A body's preprocessing where `alias` is another name of `field` (an older name, or one
 * that published clients send): taken when `field` is not sent; `field` wins when both are.
 */
export function fieldAlias(field: string, alias: string): (body: unknown) => unknown {
  return (body) =>
    typeof body === 'object' && body !== null && !(field in body) && alias in body
      ? { ...body, [field]: (body as Record<string, unknown>)[alias] }
      : body;
}

/** The empty request of endpoints that read only api_key. */
export const noFields = z.object({});
