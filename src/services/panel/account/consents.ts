/**
 * The customer's consents for commercial messages (İYS) in the panel: a number's records,
 * one added by hand, a CSV of them imported with a report per row, every record exported,
 * where the account stands with İYS, and the RETs received by reply. The rules are those of
 * /iys/consent/add (consentOf, the newest consent date wins); every write goes through
 * AccountChanges (its audit row; refused while the account is suspended).
 */
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { ConsentEntry, ConsentKey, SyncSummary } from '../../../ports/consent-store.js';
import type { Consent } from '../../../domain/iys.js';
import { turkishMobile } from '../../../domain/recipients.js';
import { localDateTime } from '../../../domain/istanbul-time.js';
import { consentOf } from '../../consent-service.js';
import type { ConsentProblem } from '../../consent-service.js';
import { maxCsvRows } from './csv-import.js';
import { CustomerPart } from './account-changes.js';

/** Records read from the store per page of an export: the most an export holds at once. */
const exportPageSize = 1000;
/** Consents recorded per store call of an import (the store chunks its statements further). */
const importChunk = 1000;
/** Rows of an import report's table: the count of the rest is given. */
export const maxReportedRows = 1000;
/** RETs by reply the page lists. */
export const retsShown = 50;

/** A consent as the panel's add form posts it (the API's field names). */
export interface ConsentForm {
  recipient: string;
  status: string;
  recipient_type: string;
  source: string;
  consent_date: string;
}

/** Why a row of an import was not recorded: its problem, or `older` (a newer one is in force). */
export type ConsentRowReason = ConsentProblem | 'older';

export interface ConsentImportReport {
  /** Rows recorded as the consent in force. */
  added: number;
  /** Rows not recorded, with why, in file order (at most maxReportedRows). */
  rejected: { line: number; value: string; reason: ConsentRowReason }[];
  /** How many rows were not recorded in all. */
  rejectedCount: number;
}

export type ImportError = 'unreadable' | 'too-many-rows' | 'empty' | 'no-columns';

export interface AccountIysState {
  /** The account's İYS codes, null when the provider has not configured İYS. */
  codes: { iysCode: string; brandCode: string; syncing: boolean; refuseTextRules: boolean } | null;
  sync: SyncSummary;
}

/** Header names a consent CSV may use, per field (lower case; Turkish names too). */
const headerNames: Record<keyof ConsentForm, readonly string[]> = {
  recipient: ['recipient', 'number', 'numara', 'telefon', 'alici', 'alıcı', 'gsm', 'msisdn'],
  status: ['status', 'durum', 'onay'],
  recipient_type: ['recipient_type', 'recipienttype', 'type', 'tip', 'alici_tipi', 'alıcı tipi', 'alıcı_tipi'],
  source: ['source', 'kaynak'],
  consent_date: ['consent_date', 'consentdate', 'date', 'tarih', 'izin_tarihi', 'izin tarihi'],
};
/** Without a header row, the columns in this order. */
const defaultOrder: readonly (keyof ConsentForm)[] = [
  'recipient',
  'status',
  'recipient_type',
  'source',
  'consent_date',
];

export class CustomerConsents extends CustomerPart {
  private get accountId(): number {
    return this.customer.accountId;
  }

  /** Now as a consent date (Istanbul time): the add form's default. */
  now(): string {
    return localDateTime(this.deps.clock.now());
  }

  /** A number's records (both recipient types); null when it is no Türkiye mobile number. */
  async search(raw: string): Promise<{ recipient: string; entries: ConsentEntry[] } | null> {
    const recipient = turkishMobile(raw);
    if (recipient === null) return null;
    return { recipient, entries: await this.deps.store.consents.entriesOf(this.accountId, recipient) };
  }

  /** Records one consent from the form: what is wrong with it, or whether it is now in force. */
  add(
    form: ConsentForm,
  ): Promise<{ ok: true; inForce: boolean; consent: Consent } | { ok: false; problem: ConsentProblem }> {
    const checked = consentOf({ ...form, recipient_type: form.recipient_type || 'BIREYSEL' }, this.deps.clock.now());
    if ('code' in checked) return Promise.resolve({ ok: false, problem: checked.problem });
    return this.changes.make(
      async (store) => {
        const [inForce] = await store.consents.record(this.accountId, [checked], this.deps.clock.now());
        return { ok: true as const, inForce: inForce === true, consent: checked };
      },
      () => ({
        action: 'iys.consent.add',
        object: { type: 'recipient', id: checked.recipient },
        detail: { status: checked.status, recipient_type: checked.recipientType, source: checked.source },
      }),
    );
  }

  /**
   * Imports a consent CSV: the text is parsed as a stream (csv-parse), at most maxCsvRows
   * rows (a file over that changes nothing), each row checked as /iys/consent/add checks an
   * item before anything is written; the valid ones are then recorded in chunks, a
   * transaction each, the last with the import's audit row.
   */
  async importCsv(
    text: string,
  ): Promise<{ ok: true; report: ConsentImportReport } | { ok: false; error: ImportError }> {
    const now = this.deps.clock.now();
    const body = text.replace(/^\uFEFF/, '');
    const firstLine = body.split(/\r?\n/, 1)[0] ?? '';
    const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
    const parser = Readable.from([body]).pipe(
      parse({ delimiter, relax_column_count: true, skip_empty_lines: true, trim: true, info: true }),
    );
    const valid: { line: number; value: string; consent: Consent }[] = [];
    const rejected: ConsentImportReport['rejected'] = [];
    let rejectedCount = 0;
    const reject = (line: number, value: string, reason: ConsentRowReason): void => {
      rejectedCount += 1;
      if (rejected.length < maxReportedRows) rejected.push({ line, value, reason });
    };
    let columns: ReturnType<typeof columnsOf> = null;
    let rows = 0;
    try {
      for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
        const { record, info } = item;
        if (columns === null) {
          columns = columnsOf(record);
          if (columns === null) return { ok: false, error: 'no-columns' };
          // A header row names the columns; without one this row is data.
          if (columns.header === true) continue;
        }
        rows += 1;
        if (rows > maxCsvRows) {
          parser.destroy();
          return { ok: false, error: 'too-many-rows' };
        }
        const cell = (name: keyof ConsentForm): string => {
          const at = columns?.[name];
          return at === undefined ? '' : (record[at] ?? '').trim();
        };
        const form: ConsentForm = {
          recipient: cell('recipient'),
          status: cell('status').toUpperCase(),
          recipient_type: cell('recipient_type').toUpperCase(),
          source: cell('source').toUpperCase(),
          consent_date: cell('consent_date'),
        };
        const checked = consentOf({ ...form, recipient_type: form.recipient_type || 'BIREYSEL' }, now);
        if ('code' in checked) reject(info.lines, form.recipient, checked.problem);
        else valid.push({ line: info.lines, value: form.recipient, consent: checked });
      }
    } catch {
      return { ok: false, error: 'unreadable' };
    }
    if (rows === 0) return { ok: false, error: 'empty' };
    // One transaction per chunk: PostgreSQL's version trigger (migration 0028) updates one
    // row per consent written, and 50,000 updates of one row in one transaction cost time
    // that grows with their square. The file was read and checked whole before the first
    // write; the last chunk writes the import's audit row with its totals.
    const taken: boolean[] = [];
    const chunks = Math.max(1, Math.ceil(valid.length / importChunk));
    for (let chunk = 0; chunk < chunks; chunk++) {
      const slice = valid.slice(chunk * importChunk, (chunk + 1) * importChunk).map((v) => v.consent);
      const last = chunk === chunks - 1;
      taken.push(
        ...(await this.changes.make(
          (store) => store.consents.record(this.accountId, slice, now),
          (done) => {
            if (!last) return null;
            const recorded = [...taken, ...done].filter((t) => t).length;
            return { action: 'iys.consent.import', detail: { rows, recorded, rejected: rows - recorded } };
          },
        )),
      );
    }
    let added = 0;
    valid.forEach((v, i) => {
      if (taken[i] === true) added += 1;
      else reject(v.line, v.value, 'older');
    });
    rejected.sort((a, b) => a.line - b.line);
    return { ok: true, report: { added, rejected, rejectedCount } };
  }

  /** Every record of the account in pages (type, then number), for an export. */
  exportEntries(): AsyncGenerator<ConsentEntry[]> {
    const { store } = this.deps;
    const { accountId } = this;
    return (async function* pages(): AsyncGenerator<ConsentEntry[]> {
      let after: ConsentKey | null = null;
      for (;;) {
        const page: ConsentEntry[] = await store.consents.entriesAfter(accountId, after, exportPageSize);
        if (page.length === 0) return;
        yield page;
        const last = page[page.length - 1];
        if (!last || page.length < exportPageSize) return;
        after = { recipientType: last.recipientType, recipient: last.recipient };
      }
    })();
  }

  /** The account's İYS codes (if configured) and the sync state of its records. */
  async iysState(): Promise<AccountIysState> {
    const [settings, sync] = await Promise.all([
      this.deps.store.consents.settingsOf(this.accountId),
      this.deps.store.consents.syncSummary(this.accountId),
    ]);
    return {
      codes: settings
        ? {
            iysCode: settings.iysCode,
            brandCode: settings.brandCode,
            syncing: settings.url !== null,
            refuseTextRules: settings.refuseTextRules,
          }
        : null,
      sync,
    };
  }

  /** The RETs received by reply, newest first. */
  retsByReply(): Promise<ConsentEntry[]> {
    return this.deps.store.consents.retsByReply(this.accountId, retsShown);
  }
}

/**
 * The columns of a consent CSV from its first row: a header (no digit in it) names them
 * (`header` marks that the row is not data); otherwise the default order. null: a header
 * without a column for the number.
 */
function columnsOf(first: readonly string[]): (Partial<Record<keyof ConsentForm, number>> & { header?: true }) | null {
  if (first.some((cell) => /\d/.test(cell)))
    return Object.fromEntries(defaultOrder.map((name, i) => [name, i])) as Partial<Record<keyof ConsentForm, number>>;
  const out: Partial<Record<keyof ConsentForm, number>> & { header?: true } = { header: true };
  for (const name of defaultOrder) {
    const at = first.findIndex((cell) => {
      const c = cell.trim();
      return headerNames[name].includes(c.toLocaleLowerCase('tr')) || headerNames[name].includes(c.toLowerCase());
    });
    if (at !== -1) out[name] = at;
  }
  return out.recipient === undefined ? null : out;
}
