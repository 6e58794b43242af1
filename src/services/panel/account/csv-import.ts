import { parse } from 'csv-parse/sync';

/**
 * The panel's CSV rules (imports of contacts, the blocking list and send recipients): UTF-8
 * with or without a byte-order mark; comma or semicolon separated (whichever the first
 * line has more of: Excel in Turkish writes semicolons); quotes as RFC 4180. When the
 * first row names its columns (no digit in it), the number is read from the column named
 * number, numara, telefon, gsm, mobile or phone, else from the first column, and a contact's
 * name from a column named name, ad, isim, ad soyad or adı (contact imports keep it). Empty
 * rows are skipped; at most `maxCsvRows` rows. Names are cut to `maxContactName` characters.
 */
export const maxCsvRows = 50_000;
const numberHeaders = ['number', 'numara', 'telefon', 'gsm', 'mobile', 'phone', 'cep', 'msisdn'];
const nameHeaders = ['name', 'ad', 'adı', 'isim', 'ad soyad', 'adı soyadı', 'full name'];
export const maxContactName = 100;

export interface CsvEntry {
  /** 1-based line of the row in the file. */
  line: number;
  value: string;
  /** The name column's value, when the file has one and it is not empty. */
  name?: string;
}

/** What happened to one row of an import. */
export type RowOutcome = 'added' | 'exists' | 'repeated' | 'invalid' | 'not-mobile';

/** An import of numbers into a group or the blocking list. */
export interface ImportReport {
  added: number;
  /** Rows not added, with why, in file order. */
  rejected: { line: number; value: string; reason: Exclude<RowOutcome, 'added'> }[];
}

export type CsvRead =
  { ok: true; entries: CsvEntry[] } | { ok: false; error: 'unreadable' | 'too-many-rows' | 'empty' };

/** Entries of a typed or pasted list: commas, semicolons and lines separate them, as in a `sentto`. */
export function typedEntries(text: string): string[] {
  return text
    .split(/[,;\r\n]+/)
    .map((e) => e.trim())
    .filter((e) => e !== '');
}

export function readNumberCsv(text: string): CsvRead {
  const body = text.replace(/^\uFEFF/, '');
  const firstLine = body.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(body, {
      delimiter,
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      info: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch {
    return { ok: false, error: 'unreadable' };
  }
  if (records.length === 0) return { ok: false, error: 'empty' };
  let column = 0;
  let nameColumn = -1;
  let start = 0;
  const header = records[0]?.record ?? [];
  if (!header.some((cell) => /\d/.test(cell))) {
    start = 1;
    const is = (cell: string, names: readonly string[]): boolean =>
      names.includes(cell.toLocaleLowerCase('tr').trim()) || names.includes(cell.toLowerCase().trim());
    const named = header.findIndex((cell) => is(cell, numberHeaders));
    column = named === -1 ? 0 : named;
    nameColumn = header.findIndex((cell, i) => i !== column && is(cell, nameHeaders));
  }
  if (records.length - start > maxCsvRows) return { ok: false, error: 'too-many-rows' };
  const entries: CsvEntry[] = [];
  for (const { record, info } of records.slice(start)) {
    const value = (record[column] ?? '').trim();
    const name = nameColumn === -1 ? '' : (record[nameColumn] ?? '').trim().slice(0, maxContactName);
    entries.push(name === '' ? { line: info.lines, value } : { line: info.lines, value, name });
  }
  return { ok: true, entries };
}
