/** What the data pages share: form fields, dates, outcome labels, CSV reports and streams. */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelDeps } from '../context.js';
import type { Lang } from '../i18n/messages.js';
import { dataCommon } from '../i18n/data-common.js';
import { NotFoundForAccount } from '../../services/account-panel.js';
import type { PanelDataServices } from '../../services/panel/panel-data-services.js';
import type { DeliveryState, PartState } from '../../domain/delivery-state.js';
import { readNumberCsv } from '../../services/panel/panel-csv.js';
import type { CsvEntry } from '../../services/panel/panel-csv.js';
import { typedEntries } from '../../services/panel/panel-send.js';

/** Import forms carry up to 50,000 CSV rows as text: a larger body limit than the API's. */
export const importBodyLimit = 8 * 1024 * 1024;

export function dataOf(deps: PanelDeps): PanelDataServices {
  const data = deps.services.panelData;
  if (!data) throw new Error('the panel data services are not built (src/main.ts openRuntime)');
  return data;
}

/** Refuses what is not the account's with the panel's 404 page. */
export function notFound(): never {
  throw new NotFoundForAccount();
}

/** One text field of a posted form ('' when missing; the first of repeated values). */
export function field(body: unknown, name: string): string {
  if (body === null || typeof body !== 'object') return '';
  const value = (body as Record<string, unknown>)[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return '';
}

/** A path id: a positive integer, else null (answered as not found). */
export function idParam(raw: string): number | null {
  return /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
}

export function dateTime(epochMs: number | null, lang: Lang): string {
  if (epochMs === null) return '';
  return new Intl.DateTimeFormat(lang === 'tr' ? 'tr-TR' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'medium',
    timeZone: 'Europe/Istanbul',
  }).format(new Date(epochMs));
}

export function stateLabel(state: DeliveryState | PartState, lang: Lang): string {
  const t = dataCommon[lang];
  return {
    queued: t.stateQueued,
    submitting: t.stateSubmitting,
    sent: t.stateSent,
    delivered: t.stateDelivered,
    failed: t.stateFailed,
    expired: t.stateExpired,
  }[state];
}

/** Typed numbers (one per line) and CSV content (a textarea the file input fills) as entries with their lines. */
export function postedEntries(
  typed: string,
  csv: string,
): { ok: true; entries: CsvEntry[] } | { ok: false; error: string } {
  const entries: CsvEntry[] = typed
    .split(/\r?\n/)
    .flatMap((line, i) => typedEntries(line).map((value) => ({ line: i + 1, value })));
  if (csv.trim() !== '') {
    const read = readNumberCsv(csv);
    if (!read.ok) return { ok: false, error: read.error };
    entries.push(...read.entries);
  }
  return { ok: true, entries };
}

export function csvErrorText(error: string, lang: Lang): string {
  const t = dataCommon[lang];
  return error === 'too-many-rows' ? t.csvTooManyRows : error === 'empty' ? t.csvEmpty : t.csvUnreadable;
}

/**
 * Streams pages of rows as CSV: each page is fetched from the store when csv-stringify
 * asks for more (Readable.from pulls the generator lazily), so the reply never holds
 * more than a page and the socket's backpressure paces the store.
 */
export function sendCsv<T>(
  reply: FastifyReply,
  filename: string,
  columns: { key: string; header: string }[],
  pages: AsyncGenerator<T[]>,
  row: (item: T) => Record<string, string | number>,
): FastifyReply {
  async function* rows(): AsyncGenerator<Record<string, string | number>> {
    for await (const page of pages) for (const item of page) yield row(item);
  }
  const csv = Readable.from(rows()).pipe(stringify({ header: true, columns, bom: true }));
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(csv);
}

export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
