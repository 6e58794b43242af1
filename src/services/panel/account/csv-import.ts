import { parse } from 'csv-parse/sync';
import { isFieldName, maxContactFields, maxFieldValueLength } from '../../../domain/templates.js';

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
  /** With `columns`: the row's other cells by their header (names a template's placeholder can take). */
  fields?: Record<string, string>;
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

/** A header cell as a placeholder's name: letters, digits and `_` (isFieldName), else none. */
function fieldNameOf(cell: string): string | null {
  const name = cell.trim();
  return isFieldName(name) ? name : null;
}

/**
 * `columns`: each entry also carries its row's other cells by the header's names (a send of a
 * template fills its placeholders from them), when the file has a header row.
 */
export function readNumberCsv(text: string, options: { columns?: boolean } = {}): CsvRead {
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
  const names = options.columns === true && start === 1 ? header.slice(0, maxContactFields + 1).map(fieldNameOf) : [];
  const entries: CsvEntry[] = [];
  for (const { record, info } of records.slice(start)) {
    const value = (record[column] ?? '').trim();
    const name = nameColumn === -1 ? '' : (record[nameColumn] ?? '').trim().slice(0, maxContactName);
    const entry: CsvEntry = name === '' ? { line: info.lines, value } : { line: info.lines, value, name };
    if (names.length > 0) entry.fields = rowFields(names, record, column);
    entries.push(entry);
  }
  return { ok: true, entries };
}

/** A row's cells by their columns' names, the number's column left out; values cut to a field's bound. */
function rowFields(names: readonly (string | null)[], record: readonly string[], numberColumn: number) {
  const fields: Record<string, string> = {};
  names.forEach((name, i) => {
    if (name !== null && i !== numberColumn) fields[name] = (record[i] ?? '').trim().slice(0, maxFieldValueLength);
  });
  return fields;
}
