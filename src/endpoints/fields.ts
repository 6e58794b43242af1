import { z } from 'zod';
import type { ResultCode } from '../domain/result-codes.js';

/**
 * Field schemas whose every failure reports one result code. The code travels as the
 * zod issue's message; `firstCode` reads it back.
 */
export function coded(code: ResultCode): { errorMap: z.ZodErrorMap } {
  return { errorMap: () => ({ message: code }) };
}

/** An integer sent as a JSON number or, as form fields are, a string of digits. */
export function integerField(code: ResultCode): z.ZodType<number, z.ZodTypeDef, unknown> {
  return z.preprocess(
    (v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : v),
    z.number(coded(code)).int(code).safe(code),
  );
}

export function firstCode(error: z.ZodError, fallback: ResultCode, isCode: (s: string) => s is ResultCode): ResultCode {
  const message = error.issues[0]?.message ?? '';
  return isCode(message) ? message : fallback;
}

/** The empty request of endpoints that read only api_key. */
export const noFields = z.object({});
