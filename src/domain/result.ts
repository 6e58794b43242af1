import type { ResultCode } from './result-codes.js';

/**
 * An expected failure. `variant` names which of several rows of an endpoint's error table
 * applies when one code has two HTTP statuses there (TS-1060 for a recipient count is 400,
 * for the per-minute limit 429). `retryAfterSeconds` accompanies every limit failure.
 * `C` is the catalogue of codes: the API's result codes unless said otherwise (the provider's
 * commands and the panel's services use `AdminCode`, `services/admin-result.ts`).
 */
export interface Failure<C extends string = ResultCode> {
  ok: false;
  code: C;
  variant?: string;
  message?: string;
  retryAfterSeconds?: number;
}

/** Expected failures below HTTP, the CLI and the panel are values, not exceptions. */
export type Result<T, C extends string = ResultCode> = { ok: true; value: T } | Failure<C>;

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail<C extends string = ResultCode>(code: C, extra: Omit<Failure, 'ok' | 'code'> = {}): Failure<C> {
  return { ok: false, code, ...extra };
}
