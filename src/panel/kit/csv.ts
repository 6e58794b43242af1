/** CSV in and out of the panel: numbers posted as typed text and CSV content, and exports streamed as CSV. */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyReply } from 'fastify';
import type { Lang } from '../catalogue.js';
import { kitText } from './text.js';
import type { CsvEntry } from '../../services/panel/account/csv-import.js';
import { readNumberCsv, typedEntries } from '../../services/panel/account/csv-import.js';
import { safeCell } from '../../util/csv-cell.js';

/** Import forms carry up to 50,000 CSV rows as text: a larger body limit than the API's. */
export const importBodyLimit = 8 * 1024 * 1024;

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
  const t = kitText[lang];
  return error === 'too-many-rows' ? t.csvTooManyRows : error === 'empty' ? t.csvEmpty : t.csvUnreadable;
}

/**
 * Cells csv-stringify quotes besides its own (a comma, a double quote, a line break): a
 * semicolon or a tab, so that a spreadsheet splitting on either keeps the cell whole.
 */
const quotedAlso = /[;\t]/;

/**
 * Streams pages of rows as CSV: each page is fetched from the store when csv-stringify
 * asks for more (Readable.from pulls the generator lazily), so the reply never holds
 * more than a page and the socket's backpressure paces the store. Every export of the
 * panel goes through here, so every cell is made safe here (safeCell, quotedAlso).
 */
export function sendCsv<T>(
  reply: FastifyReply,
  filename: string,
  columns: readonly string[],
  pages: AsyncGenerator<T[]>,
  row: (item: T) => Record<string, string | number>,
): FastifyReply {
  async function* rows(): AsyncGenerator<Record<string, string | number>> {
    for await (const page of pages)
      for (const item of page)
        yield Object.fromEntries(Object.entries(row(item)).map(([key, value]) => [key, safeCell(value)]));
  }
  const header = columns.map((key) => ({ key, header: key }));
  const csv = Readable.from(rows()).pipe(
    stringify({ header: true, columns: header, bom: true, quoted_match: quotedAlso }),
  );
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(csv);
}
