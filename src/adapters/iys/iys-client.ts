/**
 * haberci's client of the İYS REST API (or `haberci iys-sim`): an OAuth2 token by the
 * password grant, kept until shortly before it expires and asked for again on a 401;
 * consents pushed one (single) or in a batch; the changes made on İYS pulled page by page.
 * Every request has a time limit and reads at most `maxBodyBytes` of its answer; no redirect
 * is followed. What cannot be decided now (no connection, a time-out, 5xx, 429, an answer
 * that is not İYS's shape, a refused token) is an IysUnavailable: the caller tries again
 * later. Neither the password nor the token is ever part of an error.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Consent } from '../../domain/iys.js';
import { IysUnavailable } from '../../ports/iys-api.js';
import type { ChangesPage, IysApi, PushResult } from '../../ports/iys-api.js';
import { brandPath, consentPaths, fromWire, maxBatch, toWire, tokenPath } from './iys-wire.js';

export interface IysClientOptions {
  url: string;
  iysCode: string;
  brandCode: string;
  username: string;
  /** Read when a token is needed (decrypted then), not kept in this object. */
  password: () => string;
  timeoutMs: number;
  maxBodyBytes?: number;
  /** The time, for the token's expiry (a clock in tests). */
  now?: () => number;
}

const defaultMaxBody = 1024 * 1024;

// undici is loaded with the first request, not with the module (every thread loads this one).
const load = createRequire(import.meta.url);
let undici: typeof Undici | null = null;

interface Answer {
  status: number;
  body: unknown;
}

export class IysClient implements IysApi {
  private token: { value: string; until: number } | null = null;
  private readonly base: string;
  private readonly now: () => number;

  constructor(private readonly options: IysClientOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.now = options.now ?? Date.now;
  }

  /** Pushes consents (one request for one, batch requests of up to 1,000 for more); a result per consent. */
  async add(consents: readonly Consent[]): Promise<PushResult[]> {
    if (consents.length === 1) return [await this.addOne(consents[0] as Consent)];
    const out: PushResult[] = [];
    for (let start = 0; start < consents.length; start += maxBatch)
      out.push(...(await this.addBatch(consents.slice(start, start + maxBatch))));
    return out;
  }

  /** One page of the changes made on İYS after `after` (null: from the start). */
  async changes(after: string | null, limit: number): Promise<ChangesPage> {
    const query = new URLSearchParams({ limit: String(limit), ...(after !== null ? { after } : {}) });
    const answer = await this.call('GET', `${this.brand()}${consentPaths.changes}?${query.toString()}`);
    if (answer.status !== 200) throw unexpected('changes', answer);
    const body = answer.body as { after?: unknown; list?: unknown };
    if (!Array.isArray(body.list)) throw new IysUnavailable('İYS changes: no list in the answer');
    const consents: Consent[] = [];
    const skipped: string[] = [];
    for (const item of body.list) {
      const c = fromWire(item);
      if (typeof c === 'string') skipped.push(c);
      else consents.push(c);
    }
    const next = typeof body.after === 'string' || typeof body.after === 'number' ? String(body.after) : after;
    return { after: next, consents, skipped };
  }

  private brand(): string {
    return brandPath(this.options.iysCode, this.options.brandCode);
  }

  private async addOne(consent: Consent): Promise<PushResult> {
    const answer = await this.call('POST', `${this.brand()}${consentPaths.single}`, toWire(consent));
    if (answer.status >= 200 && answer.status < 300) return { ok: true };
    if (isRefusal(answer.status)) return { ok: false, error: refusal(answer) };
    throw unexpected('consent add', answer);
  }

  private async addBatch(consents: readonly Consent[]): Promise<PushResult[]> {
    const sent = await this.call('POST', `${this.brand()}${consentPaths.batch}`, consents.map(toWire));
    if (isRefusal(sent.status)) {
      // The whole batch refused (its shape): each is tried alone next time, to learn which.
      throw new IysUnavailable(`İYS refused the batch: ${refusal(sent)}`);
    }
    const requestId = (sent.body as { requestId?: unknown } | null)?.requestId;
    if (sent.status !== 200 || (typeof requestId !== 'string' && typeof requestId !== 'number'))
      throw unexpected('batch add', sent);
    const path = `${this.brand()}${consentPaths.batch}/${encodeURIComponent(String(requestId))}`;
    // İYS takes a batch and works it out on its own; its outcome is asked for a few times.
    for (let asked = 0; asked < 5; asked++) {
      if (asked > 0) await new Promise((r) => setTimeout(r, 200 * asked));
      const answer = await this.call('GET', path);
      if (answer.status !== 200) throw unexpected('batch status', answer);
      const subs = (answer.body as { subRequests?: unknown } | null)?.subRequests;
      if (!Array.isArray(subs)) throw unexpected('batch status', answer);
      const results: (PushResult | null)[] = consents.map(() => null);
      for (const sub of subs as { index?: unknown; status?: unknown; error?: unknown }[]) {
        if (typeof sub.index !== 'number' || sub.index < 0 || sub.index >= consents.length) continue;
        if (sub.status === 'SUCCESS') results[sub.index] = { ok: true };
        else if (sub.status === 'FAILURE') results[sub.index] = { ok: false, error: errorText(sub.error) };
      }
      if (results.every((r) => r !== null)) return results as PushResult[];
    }
    throw new IysUnavailable('İYS has not finished the batch yet');
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    const answer = await this.send(method, path, body, await this.bearer());
    if (answer.status !== 401) return answer;
    // The token expired early or was revoked: one new token, one more try.
    this.token = null;
    const again = await this.send(method, path, body, await this.bearer());
    if (again.status === 401) throw new IysUnavailable('İYS refused the token (401)');
    return again;
  }

  private async bearer(): Promise<string> {
    if (this.token !== null && this.token.until > this.now()) return this.token.value;
    const answer = await this.send('POST', tokenPath, {
      grant_type: 'password',
      username: this.options.username,
      password: this.options.password(),
    });
    const body = answer.body as { access_token?: unknown; expires_in?: unknown } | null;
    if (answer.status === 400 || answer.status === 401)
      throw new IysUnavailable(`İYS refused the credentials (${answer.status})`);
    if (answer.status !== 200 || typeof body?.access_token !== 'string') throw unexpected('token', answer);
    const seconds = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 60;
    // Renewed a little before İYS would refuse it.
    this.token = { value: body.access_token, until: this.now() + Math.max(1, seconds - 30) * 1000 };
    return this.token.value;
  }

  private async send(method: 'GET' | 'POST', path: string, body: unknown, bearer?: string): Promise<Answer> {
    const limit = this.options.maxBodyBytes ?? defaultMaxBody;
    try {
      undici ??= load('undici') as typeof Undici;
      const res = await undici.request(`${this.base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(bearer !== undefined ? { authorization: `Bearer ${bearer}` } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      let size = 0;
      const chunks: Buffer[] = [];
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) {
          res.body.destroy();
          throw new IysUnavailable(`İYS answered more than ${limit} bytes`);
        }
        chunks.push(chunk);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown = null;
      if (text !== '') {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = null;
        }
      }
      return { status: res.statusCode, body: parsed };
    } catch (error) {
      if (error instanceof IysUnavailable) throw error;
      const name = error instanceof Error ? error.name : '';
      const reason =
        name === 'TimeoutError' || name === 'AbortError'
          ? `no answer within ${this.options.timeoutMs} ms`
          : error instanceof Error
            ? (((error as { code?: unknown }).code as string | undefined) ?? error.message)
            : String(error);
      throw new IysUnavailable(`İYS could not be reached: ${reason}`);
    }
  }
}

/** A 4xx that is İYS's word on the request itself (408 and 429 only say: later). */
function isRefusal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

function errorText(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const e = error as { code?: unknown; message?: unknown };
    const code = typeof e.code === 'string' ? e.code : '';
    const message = typeof e.message === 'string' ? e.message : '';
    const text = [code, message].filter((p) => p !== '').join(': ');
    if (text !== '') return text.slice(0, 300);
  }
  return 'refused';
}

/** İYS's reason for a 4xx: `{errors: [{code, message}]}`. */
function refusal(answer: Answer): string {
  const errors = (answer.body as { errors?: unknown } | null)?.errors;
  const first: unknown = Array.isArray(errors) ? errors[0] : undefined;
  return `${answer.status} ${errorText(first)}`;
}

function unexpected(what: string, answer: Answer): IysUnavailable {
  return new IysUnavailable(`İYS ${what}: answered ${answer.status}`);
}
