import type { Store } from '../../../ports/store.js';
import type { LogCursor, LogRow, MessageDetail, MessageFilter, OutcomeFilter } from '../../../ports/panel-queries.js';
import { normaliseNumber } from '../../../domain/recipients.js';
import { dayOfDate, dayStart } from '../../../domain/istanbul-time.js';

export const logPageSize = 50;

/** The log's search form as typed (query string). Empty fields are no filter. */
export interface LogQuery {
  number?: string;
  from?: string;
  to?: string;
  status?: string;
  sender?: string;
  campaign?: string;
  after?: string;
}

export type LogField = 'number' | 'from' | 'to' | 'status' | 'campaign' | 'after';

export interface LogPage {
  rows: LogRow[];
  /** The `after` value of the next page, or null on the last page. */
  next: string | null;
  /** Fields that could not be read, with no rows searched. */
  errors: Partial<Record<LogField, 'invalid'>>;
}

const outcomes: readonly string[] = ['delivered', 'failed', 'pending'] satisfies OutcomeFilter[];

export function encodeCursor(c: LogCursor): string {
  return `${c.createdAt}.${c.id}`;
}

export function decodeCursor(text: string): LogCursor | null {
  const m = /^(\d{1,15})\.(\d{1,15})$/.exec(text);
  return m ? { createdAt: Number(m[1]), id: Number(m[2]) } : null;
}

/** Reads the search form into a store filter, or says which fields are wrong. */
export function parseLogQuery(q: LogQuery): {
  filter: MessageFilter;
  after: LogCursor | null;
  errors: LogPage['errors'];
} {
  const filter: MessageFilter = {};
  const errors: LogPage['errors'] = {};
  const text = (v: string | undefined): string => (v ?? '').trim();
  if (text(q.number) !== '') {
    const n = normaliseNumber(text(q.number));
    if (/^\d{1,15}$/.test(n)) filter.number = n;
    else errors.number = 'invalid';
  }
  if (text(q.from) !== '') {
    const day = dayOfDate(text(q.from));
    if (day === null) errors.from = 'invalid';
    else filter.from = dayStart(day);
  }
  if (text(q.to) !== '') {
    const day = dayOfDate(text(q.to));
    // Inclusive of the whole last day.
    if (day === null) errors.to = 'invalid';
    else filter.to = dayStart(day + 1);
  }
  if (text(q.status) !== '') {
    if (outcomes.includes(text(q.status))) filter.outcome = text(q.status) as OutcomeFilter;
    else errors.status = 'invalid';
  }
  if (text(q.sender) !== '') filter.sender = text(q.sender);
  if (text(q.campaign) !== '') {
    if (/^\d{1,15}$/.test(text(q.campaign))) filter.sendId = Number(text(q.campaign));
    else errors.campaign = 'invalid';
  }
  let after: LogCursor | null = null;
  if (text(q.after) !== '') {
    after = decodeCursor(text(q.after));
    if (after === null) errors.after = 'invalid';
  }
  return { filter, after, errors };
}

/** The message log (keyset pages, newest first) and a message's timeline. */
export class CustomerMessages {
  constructor(
    private readonly store: Store,
    private readonly accountId: number,
  ) {}

  async search(q: LogQuery): Promise<LogPage> {
    const { filter, after, errors } = parseLogQuery(q);
    if (Object.keys(errors).length > 0) return { rows: [], next: null, errors };
    // One row more than the page says whether there is a next page.
    const rows = await this.store.panel.messageLog(this.accountId, filter, after, logPageSize + 1);
    const page = rows.slice(0, logPageSize);
    const last = page[page.length - 1];
    return { rows: page, next: rows.length > logPageSize && last ? encodeCursor(last) : null, errors };
  }

  async message(messageId: number): Promise<MessageDetail | null> {
    if (!Number.isSafeInteger(messageId) || messageId <= 0) return null;
    return this.store.panel.message(this.accountId, messageId);
  }
}
