import type { z } from 'zod';
import type { ResultCode } from '../domain/result-codes.js';
import type { Permission } from '../domain/permissions.js';
import { ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import type { Caller } from '../services/auth.js';
import type { Services } from '../services/services.js';
import type { ReplyShape } from './replies.js';

export type Envelope = 'result' | 'status';

/** The spec's per-endpoint rule for `api_key`: its length and the codes when it is off. */
export interface KeyRule {
  min: number;
  max: number;
  /** Code when api_key is absent or empty. */
  missing: ResultCode;
  /** Code when api_key is not a string or its length is outside min..max. */
  malformed: ResultCode;
}

/** A successful answer: the code and the endpoint's own fields. */
export interface Reply {
  code: ResultCode;
  fields?: Record<string, unknown>;
}

/** HTTP statuses by `code` or by `code:variant`, the endpoint's row of the spec's error table. */
export type StatusMap = Partial<Record<ResultCode | `${ResultCode}:${string}`, number>>;

export interface HandlerContext<Body> {
  body: Body;
  caller: Caller;
  services: Services;
}

export interface Endpoint<S extends z.ZodTypeAny = z.ZodTypeAny> {
  path: string;
  summary: string;
  /** The success answers: their codes and fields (src/endpoints/replies.ts). */
  reply: ReplyShape;
  envelope: Envelope;
  key: KeyRule;
  /** Code for a body that is not a JSON or form object, is too large, or is poisoned. */
  invalidBody: ResultCode;
  /**
   * Code for a key whose account is not Active, when the endpoint's error table names
   * another than TS-1030 (the blocking endpoints answer TS-1031).
   */
  accountInactive?: ResultCode;
  /** Code for an unexpected error (always HTTP 500). */
  serverError: 'SRV-ERR' | 'TS-5000';
  permissions: readonly Permission[];
  /** Whether the key's hourly/daily/monthly request limits apply. */
  limited: boolean;
  statuses: StatusMap;
  /** Body fields besides api_key. Each issue's message is the result code it answers with. */
  request: S;
  /** Report responses leave result_message out on success (spec, Response envelopes). */
  omitMessageOnSuccess?: boolean;
  /** Largest body accepted, in bytes; the default is the server's. */
  bodyLimit?: number;
  /**
   * Bodies read as they arrive, within these bounds (src/http/flat-json.ts), with the key
   * checked before the rest of the body is read: for endpoints whose documented maximum
   * needs a body far larger than JSON.parse should hold at once.
   */
  streamedBody?: {
    maxArrayItems: number;
    maxStringLength: number;
    maxKeys: number;
    fieldCodes?: Partial<Record<string, ResultCode>>;
  };
  handle(ctx: HandlerContext<z.output<S>>): Promise<Result<Reply>>;
}

/** The key rule of /sms/send, which most endpoints have too: 30 to 128 characters, TS-1050 when missing or off. */
export const smsSendKey: KeyRule = { min: 30, max: 128, missing: 'TS-1050', malformed: 'TS-1050' };

/**
 * The rules of /sms/send that most endpoints have too: the result envelope, its key rule,
 * TS-1033 for a body that is no object, SRV-ERR for an unexpected error, the request limits.
 */
export const smsSendRules = {
  envelope: 'result',
  key: smsSendKey,
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  limited: true,
} as const;

/** Codes every endpoint but the key check can answer with (spec, Errors). */
export const commonStatuses: StatusMap = {
  'TS-1035': 403,
  'TS-1066': 403,
  'TS-1068': 429,
  'TS-1069': 429,
  'TS-1073': 429,
  'TS-1060:rate': 429,
  'SRV-ERR': 500,
};

/**
 * The rows the endpoints that are ours rather than the spec's (groups, templates, İYS,
 * resellers, /sms/cancel) start from, modelled on /sms/send: a bad body 400, the key 401,
 * the key's account 403. Each adds its own codes.
 */
export const ourStatuses: StatusMap = {
  ...commonStatuses,
  'TS-1033': 400,
  'TS-1050': 401,
  'TS-1031': 401,
  'TS-1030': 403,
};

export function defineEndpoint<S extends z.ZodTypeAny>(endpoint: Endpoint<S>): Endpoint<S> {
  return endpoint;
}

/** A use case's result as the endpoint's answer: on success `code`, with the value's fields. */
export function answered(code: ResultCode, result: Result<object>): Result<Reply> {
  return result.ok ? ok({ code, fields: { ...result.value } }) : result;
}
