import type { ResultCode } from './result-codes.js';

/**
 * An expected failure. `variant` names which of several rows of an endpoint's error table
 * applies when one code has two HTTP statuses there (TS-1060 for a recipient count is 400,
 * for the per-minute limit 429). `retryAfterSeconds` accompanies every limit failure.
 */
export interface Failure {
  ok: false;
  code: ResultCode;
  variant?: string;
  message?: string;
  retryAfterSeconds?: number;
}

/** Expected failures below HTTP are values, not exceptions. */
export type Result<T> = { ok: true; value: T } | Failure;

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail(code: ResultCode, extra: Omit<Failure, 'ok' | 'code'> = {}): Failure {
  return { ok: false, code, ...extra };
}
