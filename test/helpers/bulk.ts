import assert from 'node:assert/strict';
import type { Answer, PostOptions } from './harness.js';
import type { Poster } from './sms.js';

import type { SimulatedDelivery } from './delivery.js';
import { waitFor } from './wait-for.js';

/** A /group/send body that passes every check for an account provisioned with sender ID ACME. */
export const validGroup = { title: 'ACME', sentto: ['905321234567'], text: 'Hello' } as const;

/** A /group/sendMixed body that passes every check for an account provisioned with sender ID ACME. */
export const validMixed = { title: 'ACME', sentto: ['905321234567'], text: ['Hello'] } as const;

export function groupSend(
  h: Poster,
  apiKey: string,
  fields: Record<string, unknown> = {},
  options?: PostOptions,
): Promise<Answer> {
  return h.post('/group/send', { api_key: apiKey, ...validGroup, ...fields }, options);
}

export function groupSendMixed(
  h: Poster,
  apiKey: string,
  fields: Record<string, unknown> = {},
  options?: PostOptions,
): Promise<Answer> {
  return h.post('/group/sendMixed', { api_key: apiKey, ...validMixed, ...fields }, options);
}

/** The bulk send result (spec, Resources). */
export interface BulkResult {
  raporId: number;
  totalNumbers: number;
  totalSmsCost: number;
  scheduled: boolean;
}

/** A successful /group/send or /group/sendMixed answer (TS-1024, HTTP 200) and its bulk send result. */
export function assertBulkAccepted(answer: Answer): BulkResult {
  assert.equal(answer.body.result_code, 'TS-1024', answer.raw);
  assert.equal(answer.body.result, true, answer.raw);
  assert.equal(answer.status, 200, answer.raw);
  assert.equal(typeof answer.body.result_message, 'string');
  const { rapor_id: raporId, total_numbers: totalNumbers, total_sms_cost: totalSmsCost, scheduled } = answer.body;
  assert.ok(typeof raporId === 'number' && Number.isInteger(raporId) && raporId > 0, `rapor_id: ${answer.raw}`);
  assert.ok(typeof totalNumbers === 'number' && Number.isInteger(totalNumbers), `total_numbers: ${answer.raw}`);
  assert.ok(typeof totalSmsCost === 'number' && Number.isInteger(totalSmsCost), `total_sms_cost: ${answer.raw}`);
  assert.ok(typeof scheduled === 'boolean', `scheduled: ${answer.raw}`);
  return { raporId, totalNumbers, totalSmsCost, scheduled };
}

export function reportBasic(h: Poster, apiKey: string, raporid: unknown): Promise<Answer> {
  return h.post('/reports/basic', raporid === undefined ? { api_key: apiKey } : { api_key: apiKey, raporid });
}

export function reportDetailed(h: Poster, apiKey: string, raporid: unknown, page?: unknown): Promise<Answer> {
  return h.post('/reports/detailed', { api_key: apiKey, raporid, ...(page === undefined ? {} : { page }) });
}

/** The summary report record (spec, Resources). */
export interface Summary {
  rapor_id: number;
  total_numbers: number;
  success_count: number;
  failed_count: number;
  pending_count: number;
  details: {
    sending_date: string;
    sending_time: string;
    report_status: string;
    sms_sender_id: string;
    invalid_numbers: number;
    blocked_numbers: number;
    last_update: string;
  };
}

export interface DetailedRow {
  phone_number: string;
  sent_at: string;
  sms_status: string;
  details: { done_at: string; status_code: number; operator: string };
}

export interface Pagination {
  current_page: number;
  total_pages: number;
  total_records: number;
  records_per_page: number;
}

/** A successful report answer: the status envelope, TS-1064, HTTP 200, no result_message. */
export function assertReportSuccess(answer: Answer): void {
  assert.equal(answer.status, 200, answer.raw);
  assert.equal(answer.body.status, 'success', answer.raw);
  assert.equal(answer.body.result_code, 'TS-1064', answer.raw);
  assert.equal('result_message' in answer.body, false, `no result_message on a successful report: ${answer.raw}`);
  assert.equal('result' in answer.body, false, `the status envelope has no result field: ${answer.raw}`);
}

/** A failure in the status envelope with a literal code and HTTP status from the spec. */
export function assertStatusRefused(answer: Answer, code: string, status: number): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.body.status, 'error', answer.raw);
  assert.equal(answer.status, status, `${code}: ${answer.raw}`);
  assert.equal(typeof answer.body.result_message, 'string', answer.raw);
  assert.equal('result' in answer.body, false, answer.raw);
}

const integerFields = ['rapor_id', 'total_numbers', 'success_count', 'failed_count', 'pending_count'] as const;

/** The summary record of a successful /reports/basic answer, with every field's type checked. */
export function summaryOf(answer: Answer): Summary {
  assertReportSuccess(answer);
  for (const name of integerFields)
    assert.ok(Number.isInteger(answer.body[name]), `${name} is an integer: ${answer.raw}`);
  const details = answer.body.details as Record<string, unknown> | undefined;
  assert.ok(details !== undefined && typeof details === 'object', answer.raw);
  for (const name of ['sending_date', 'sending_time', 'report_status', 'sms_sender_id', 'last_update'])
    assert.equal(typeof details[name], 'string', `details.${name}: ${answer.raw}`);
  for (const name of ['invalid_numbers', 'blocked_numbers'])
    assert.ok(Number.isInteger(details[name]), `details.${name}: ${answer.raw}`);
  return answer.body as unknown as Summary;
}

/** The rows and pagination of a successful /reports/detailed answer, with every field's type checked. */
export function detailedOf(answer: Answer): { data: DetailedRow[]; pagination: Pagination } {
  assertReportSuccess(answer);
  assert.ok(Array.isArray(answer.body.data), answer.raw);
  const pagination = answer.body.pagination as Record<string, unknown> | undefined;
  assert.ok(pagination !== undefined && typeof pagination === 'object', answer.raw);
  for (const name of ['current_page', 'total_pages', 'total_records', 'records_per_page'])
    assert.ok(Number.isInteger(pagination[name]), `pagination.${name}: ${answer.raw}`);
  const data = answer.body.data as DetailedRow[];
  for (const row of data) {
    assert.equal(typeof row.phone_number, 'string');
    assert.equal(typeof row.sent_at, 'string');
    assert.equal(typeof row.sms_status, 'string');
    assert.equal(typeof row.details.done_at, 'string');
    assert.ok([0, 1, 2].includes(row.details.status_code), JSON.stringify(row));
    assert.equal(typeof row.details.operator, 'string');
  }
  return { data, pagination: pagination as unknown as Pagination };
}

/** Runs the dispatcher until nothing more is due (bounded), so every due send is written out and submitted. */
export async function drain(delivery: SimulatedDelivery, maxRounds = 1_000): Promise<number> {
  let total = 0;
  for (let round = 0; round < maxRounds; round++) {
    const claimed = await delivery.runOnce();
    if (claimed === 0) return total;
    total += claimed;
  }
  throw new Error(`the queue did not drain in ${maxRounds} rounds`);
}

/** `count` distinct numbers of a 905... range whose last four digits are `suffix` (simulator outcome). */
export function numbersEnding(suffix: '0000' | '0001' | '0002' | '1234', count: number, prefix = '9053'): string[] {
  return Array.from(
    { length: count },
    (_, i) => `${prefix}${String(i).padStart(12 - prefix.length - 4, '0')}${suffix}`,
  );
}

/**
 * Polls /reports/basic until `done` holds, running the dispatcher's maintenance on each poll
 * as its loop would (a report that overtook its submit's commit is applied by maintenance).
 */
export async function waitForSummary(
  h: Poster,
  apiKey: string,
  raporId: number,
  delivery: SimulatedDelivery,
  done: (s: Summary) => boolean,
  timeoutMs = 5_000,
): Promise<Summary> {
  let last: Summary | null = null;
  await waitFor(
    `report ${raporId} to reach the expected counters (last: ${JSON.stringify(last)})`,
    async () => {
      await delivery.dispatcher.maintain();
      last = summaryOf(await reportBasic(h, apiKey, raporId));
      return done(last);
    },
    { timeoutMs: timeoutMs },
  );
  return last ?? summaryOf(await reportBasic(h, apiKey, raporId));
}
