/** CSV in and out of the panel: numbers posted as typed text and CSV content, and exports streamed as CSV. */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyReply } from 'fastify';
import type { Lang } from '../catalogue.js';
import { kitText } from './text.js';
import type { CsvEntry } from '../../services/panel/account/csv-import.js';
import { readNumberCsv, typedEntries } from '../../services/panel/account/csv-import.js';

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
 * What a spreadsheet reads as the start of a formula (OWASP, CSV injection), with the
 * fullwidth forms Apple Numbers folds into them.
 */
const formulaChars = '=+\\-@\\uFF1D\\uFF0B\\uFF0D\\uFF20';
/**
 * Where a spreadsheet may start a new cell inside one of ours, if it splits the text
 * itself: the list separators of its locales (`,`, and `;` in Turkish, German or French
 * Excel), a tab, a line break. Spaces after it are skipped, as some spreadsheets trim them.
 */
const formulaAfterSeparator = new RegExp(`([,;\\t\\r\\n][ \\t]*)(?=[${formulaChars}])`, 'g');
const formulaStart = new RegExp(`^(?:[\\t\\r]|[ ]*[${formulaChars}])`);

/**
 * A cell as exported: text a spreadsheet would run as a formula (a contact's name, a
 * recipient that is no number, an operator's report) gets a single quote before it, so it
 * is shown as the text it is; and so does every part of it that starts after a separator
 * (`x;=11`, `a, -2+3`), for a spreadsheet that splits the cell there. Numbers are ours
 * (ids, counts: never negative) and pass as they are; so do our phone numbers, which are
 * stored without a `+`.
 */
export function safeCell(value: string | number): string | number {
  if (typeof value !== 'string') return value;
  const inside = value.replace(formulaAfterSeparator, "$1'");
  return formulaStart.test(inside) ? `'${inside}` : inside;
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
