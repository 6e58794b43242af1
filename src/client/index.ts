/**
 * A typed client of the haberci API (`import { HaberciClient } from 'haberci/client'`).
 * Its types are generated from the OpenAPI document (src/client/openapi-types.ts): one
 * method per endpoint, each answer a union discriminated by `result_code`.
 */
import type { paths } from './openapi-types.js';

export { verifyWebhook } from './verify-webhook.js';
export type { VerifyOptions, VerifyResult, WebhookBucketBody, WebhookEventBody } from './verify-webhook.js';
export type { paths, operations, components } from './openapi-types.js';

export type ApiPath = keyof paths;
type Operation<P extends ApiPath> = paths[P]['post'];
type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The request fields of an endpoint, without `api_key` (the client adds it). */
export type RequestOf<P extends ApiPath> = Omit<JsonBody<Operation<P>['requestBody']>, 'api_key'>;
/** Every answer of an endpoint, success and refusals, told apart by `result_code`. */
export type AnswerOf<P extends ApiPath> = {
  [S in keyof Operation<P>['responses']]: JsonBody<Operation<P>['responses'][S]>;
}[keyof Operation<P>['responses']];

export interface RateLimit {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export interface Answer<P extends ApiPath> {
  /** HTTP status; read `body.result_code` to know the outcome (some failures answer 200). */
  status: number;
  body: AnswerOf<P>;
  /** The X-RateLimit-* headers, when the server sends them. */
  rateLimit: RateLimit | null;
  /** Retry-After of a refused answer, in seconds. */
  retryAfterSeconds: number | null;
  /** Requests made for this call: more than 1 when a rate-limited answer was retried. */
  attempts: number;
}

export interface ClientOptions {
  /** For example `http://127.0.0.1:8080` (no trailing path). */
  baseUrl: string;
  apiKey: string;
  /** Per request, milliseconds (default 30,000). */
  timeoutMs?: number;
  /**
   * Retries of answers refused for now (HTTP 429, a rate limit; HTTP 503, the store or the
   * server busy or away: nothing of the request was done), after waiting as their
   * Retry-After says (default 2; 0 turns retries off). Sends are retried only when they carry
   * an `idempotency_key`: a retried send without one could send twice.
   */
  rateLimitRetries?: number;
  /** The longest Retry-After waited for, seconds (default 60); a longer one is returned as is. */
  maxRetryAfterSeconds?: number;
}

/** The request failed without an answer: a time-out, a network error, or a body that is not JSON. */
export class HaberciRequestError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'network' | 'not-json',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HaberciRequestError';
  }
}

const sendPaths: ReadonlySet<ApiPath> = new Set<ApiPath>([
  '/sms/send',
  '/group/send',
  '/group/sendMixed',
  '/otp/send',
  '/otp/detailed',
]);

function intHeader(headers: Headers, name: string): number | null {
  const raw = headers.get(name);
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw);
}

function rateLimitOf(headers: Headers): RateLimit | null {
  const limit = intHeader(headers, 'x-ratelimit-limit');
  const remaining = intHeader(headers, 'x-ratelimit-remaining');
  const reset = intHeader(headers, 'x-ratelimit-reset');
  return limit === null || remaining === null || reset === null ? null : { limit, remaining, resetSeconds: reset };
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class HaberciClient {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly maxRetryAfter: number;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.rateLimitRetries ?? 2;
    this.maxRetryAfter = options.maxRetryAfterSeconds ?? 60;
  }

  /** One endpoint by its path; the methods below are this with their path filled in. */
  async call<P extends ApiPath>(path: P, fields: RequestOf<P>): Promise<Answer<P>> {
    const payload = JSON.stringify({ ...fields, api_key: this.apiKey });
    const retryable =
      !sendPaths.has(path) || typeof (fields as { idempotency_key?: unknown }).idempotency_key === 'string';
    for (let attempt = 1; ; attempt += 1) {
      const answer = await this.once<P>(path, payload, attempt);
      const later = answer.status === 429 || answer.status === 503 ? answer.retryAfterSeconds : null;
      if (later === null || !retryable || attempt > this.retries || later > this.maxRetryAfter) return answer;
      await wait(later * 1000);
    }
  }

  private async once<P extends ApiPath>(path: P, payload: string, attempt: number): Promise<Answer<P>> {
    let response: Response;
    try {
      response = await fetch(this.baseUrl + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: payload,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      throw new HaberciRequestError(
        timedOut ? `POST ${path}: no answer within ${this.timeoutMs} ms` : `POST ${path}: ${String(error)}`,
        timedOut ? 'timeout' : 'network',
        { cause: error },
      );
    }
    const text = await response.text();
    let body: AnswerOf<P>;
    try {
      body = JSON.parse(text) as AnswerOf<P>;
    } catch (error) {
      throw new HaberciRequestError(`POST ${path}: HTTP ${response.status} with a body that is not JSON`, 'not-json', {
        cause: error,
      });
    }
    return {
      status: response.status,
      body,
      rateLimit: rateLimitOf(response.headers),
      retryAfterSeconds: intHeader(response.headers, 'retry-after'),
      attempts: attempt,
    };
  }

  authCheck(): Promise<Answer<'/auth/post/check/'>> {
    return this.call('/auth/post/check/', {});
  }
  balance(): Promise<Answer<'/balance/'>> {
    return this.call('/balance/', {});
  }
  senderIds(): Promise<Answer<'/senderid/check'>> {
    return this.call('/senderid/check', {});
  }
  /** Not retried unless `idempotency_key` is given. */
  smsSend(fields: RequestOf<'/sms/send'>): Promise<Answer<'/sms/send'>> {
    return this.call('/sms/send', fields);
  }
  smsStatus(fields: RequestOf<'/sms/status'>): Promise<Answer<'/sms/status'>> {
    return this.call('/sms/status', fields);
  }
  /** Never retried. */
  otpSend(fields: RequestOf<'/otp/send'>): Promise<Answer<'/otp/send'>> {
    return this.call('/otp/send', fields);
  }
  /** Never retried. */
  otpDetailed(fields: RequestOf<'/otp/detailed'>): Promise<Answer<'/otp/detailed'>> {
    return this.call('/otp/detailed', fields);
  }
  /** Checks a code; a 429 is retried: a refused request counted no try. */
  otpVerify(fields: RequestOf<'/otp/verify'>): Promise<Answer<'/otp/verify'>> {
    return this.call('/otp/verify', fields);
  }
  groupsCreate(fields: RequestOf<'/groups/create'>): Promise<Answer<'/groups/create'>> {
    return this.call('/groups/create', fields);
  }
  groupsEdit(fields: RequestOf<'/groups/edit'>): Promise<Answer<'/groups/edit'>> {
    return this.call('/groups/edit', fields);
  }
  groupsDelete(fields: RequestOf<'/groups/delete'>): Promise<Answer<'/groups/delete'>> {
    return this.call('/groups/delete', fields);
  }
  groupsList(): Promise<Answer<'/groups/list'>> {
    return this.call('/groups/list', {});
  }
  contactsAdd(fields: RequestOf<'/contacts/add'>): Promise<Answer<'/contacts/add'>> {
    return this.call('/contacts/add', fields);
  }
  /** A saved text with {{field}} placeholders; a retry after 429 cannot make two (names are unique). */
  templatesCreate(fields: RequestOf<'/templates/create'>): Promise<Answer<'/templates/create'>> {
    return this.call('/templates/create', fields);
  }
  templatesList(): Promise<Answer<'/templates/list'>> {
    return this.call('/templates/list', {});
  }
  templatesDelete(fields: RequestOf<'/templates/delete'>): Promise<Answer<'/templates/delete'>> {
    return this.call('/templates/delete', fields);
  }
  blacklistAdd(fields: RequestOf<'/blacklist/post/add'>): Promise<Answer<'/blacklist/post/add'>> {
    return this.call('/blacklist/post/add', fields);
  }
  blacklistStatus(fields: RequestOf<'/blacklist/post/status'>): Promise<Answer<'/blacklist/post/status'>> {
    return this.call('/blacklist/post/status', fields);
  }
  /** Never retried. */
  groupSend(fields: RequestOf<'/group/send'>): Promise<Answer<'/group/send'>> {
    return this.call('/group/send', fields);
  }
  /** Never retried. */
  groupSendMixed(fields: RequestOf<'/group/sendMixed'>): Promise<Answer<'/group/sendMixed'>> {
    return this.call('/group/sendMixed', fields);
  }
  reportsBasic(fields: RequestOf<'/reports/basic'>): Promise<Answer<'/reports/basic'>> {
    return this.call('/reports/basic', fields);
  }
  reportsDetailed(fields: RequestOf<'/reports/detailed'>): Promise<Answer<'/reports/detailed'>> {
    return this.call('/reports/detailed', fields);
  }
  /** Safe to repeat (a message's credit comes back once), so a 429 is retried. */
  smsCancel(fields: RequestOf<'/sms/cancel'>): Promise<Answer<'/sms/cancel'>> {
    return this.call('/sms/cancel', fields);
  }
  /** Safe to repeat (a message's credit comes back once), so a 429 is retried. */
  groupCancel(fields: RequestOf<'/group/cancel'>): Promise<Answer<'/group/cancel'>> {
    return this.call('/group/cancel', fields);
  }
  groupPause(fields: RequestOf<'/group/pause'>): Promise<Answer<'/group/pause'>> {
    return this.call('/group/pause', fields);
  }
  groupResume(fields: RequestOf<'/group/resume'>): Promise<Answer<'/group/resume'>> {
    return this.call('/group/resume', fields);
  }
}
