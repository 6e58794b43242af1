import assert from 'node:assert/strict';
import type { Answer, Harness, PostOptions } from './harness.js';

/** Anything that posts requests: a harness on a fixed or on the system clock. */
export type Poster = Pick<Harness, 'post'>;

/** A /sms/send body that passes every check for an account provisioned with sender ID ACME. */
export const validSend = { sentto: '905321234567', title: 'ACME', text: 'Hello' } as const;

export function sendSms(
  h: Poster,
  apiKey: string,
  fields: Record<string, unknown> = {},
  options?: PostOptions,
): Promise<Answer> {
  return h.post('/sms/send', { api_key: apiKey, ...validSend, ...fields }, options);
}

export function smsStatus(h: Poster, apiKey: string, smsId: unknown): Promise<Answer> {
  return h.post('/sms/status', smsId === undefined ? { api_key: apiKey } : { api_key: apiKey, sms_id: smsId });
}

/** A failure in the result envelope with a literal code and HTTP status from the spec. */
export function assertRefused(answer: Answer, code: string, status: number): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.body.result, false, answer.raw);
  assert.equal(answer.status, status, `${code}: ${answer.raw}`);
  assert.equal(typeof answer.body.result_message, 'string');
}

/** A successful /sms/send answer (TS-1024, HTTP 200). */
export function assertAccepted(answer: Answer): void {
  assert.equal(answer.body.result_code, 'TS-1024', answer.raw);
  assert.equal(answer.body.result, true, answer.raw);
  assert.equal(answer.status, 200, answer.raw);
}

/** An integer field of an answer; fails the test when it is not one. */
export function intField(answer: Answer, name: string): number {
  const value = answer.body[name];
  assert.ok(typeof value === 'number' && Number.isInteger(value), `${name} is an integer: ${answer.raw}`);
  return value;
}

export interface Balances {
  main: number;
  international: number;
}

/** The account's balances as /auth/post/check/ reports them. */
export async function balancesOf(h: Poster, apiKey: string): Promise<Balances> {
  const answer = await h.post('/auth/post/check/', { api_key: apiKey });
  assert.equal(answer.body.result_code, 'TS-1000', answer.raw);
  const summary = answer.body.account_summary as { balance: Balances };
  return { main: summary.balance.main, international: summary.balance.international };
}

/** `count` distinct numbers in the 905... form (not meant for delivery: some end in 0000..0002). */
export function turkishNumbers(count: number, offset = 0): string[] {
  return Array.from({ length: count }, (_, i) => `905${String(offset + i).padStart(9, '0')}`);
}
