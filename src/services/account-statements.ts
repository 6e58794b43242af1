/**
 * Monthly statements (docs/resellers.md, "Statements"): per account and Istanbul month, its
 * messages created in the month by their state now, and its credit per balance from the
 * ledger to the unit: opening, added, spent, refunded, moved in and out (a reseller and its
 * customers), taken (debits), closing. Derived data: read after the commits that wrote the
 * ledger, never inside a send. A reseller's statement adds each of its customers'.
 */
import { stringify } from 'csv-stringify/sync';
import type { BalanceBucket } from '../ports/accounts.js';
import type { Store } from '../ports/store.js';
import type { DeliveryState } from '../domain/delivery-state.js';
import { dayOfDate, dayStart } from '../domain/istanbul-time.js';
import { isMoveReason, isRefundReason, isSendReason } from '../domain/refunds.js';
import { safeCell } from '../util/csv-cell.js';
import { ok } from '../domain/result.js';
import { notFound, refused } from './admin-result.js';
import type { AdminResult } from './admin-result.js';
import { maxAccountPage } from './account-hierarchy.js';

/** One balance over the month: closing = opening + added + refunded + moved_in - spent - moved_out - taken. */
export interface StatementCredit {
  opening: number;
  added: number;
  spent: number;
  refunded: number;
  moved_in: number;
  moved_out: number;
  taken: number;
  closing: number;
}

export interface Statement {
  account_id: number;
  name: string;
  parent_id: number | null;
  month: string;
  from: string;
  to: string;
  /** Messages created in the month, by the state each is in now, with their SMS. */
  messages: { total: number; sms: number; by_state: Partial<Record<DeliveryState, { messages: number; sms: number }>> };
  credit: Record<BalanceBucket, StatementCredit>;
}

export interface ResellerStatement extends Statement {
  customers: Statement[];
}

const creditKeys = ['opening', 'added', 'spent', 'refunded', 'moved_in', 'moved_out', 'taken', 'closing'] as const;
const buckets = ['main', 'international'] as const;

export interface MonthBounds {
  from: string;
  to: string;
  start: number;
  end: number;
}

/** The first and last day of `YYYY-MM`, and the Istanbul instants that bound it; ADM-REFUSED for another form. */
export function monthBounds(month: string): AdminResult<MonthBounds> {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  const first = m ? dayOfDate(`${month}-01`) : null;
  if (!m || first === null) return refused('--month is YYYY-MM');
  const year = Number(m[1]);
  const next = Number(m[2]) === 12 ? `${year + 1}-01-01` : `${year}-${String(Number(m[2]) + 1).padStart(2, '0')}-01`;
  const after = dayOfDate(next);
  if (after === null) return refused('--month is YYYY-MM');
  const last = new Date((after - 1) * 86_400_000).toISOString().slice(0, 10);
  return ok({ from: `${month}-01`, to: last, start: dayStart(first), end: dayStart(after) });
}

export class AccountStatements {
  constructor(private readonly store: Store) {}

  /**
   * An account's statement for a month; a reseller's with `customers`: each of its customers'
   * too. ADM-REFUSED: the month is not `YYYY-MM`, or the account is no reseller;
   * ADM-NOT-FOUND: no such account.
   */
  async statement(
    accountId: number,
    month: string,
    customers = false,
  ): Promise<AdminResult<Statement | ResellerStatement>> {
    const bounds = monthBounds(month);
    if (!bounds.ok) return bounds;
    const own = await this.one(accountId, month, bounds.value);
    if (!own.ok || !customers) return own;
    const account = await this.store.accounts.getAccount(accountId);
    if (account?.reseller !== true) return refused(`account ${accountId} is no reseller`);
    const list: Statement[] = [];
    for (let after = 0; ;) {
      const page = await this.store.accounts.listAccounts({ parentId: accountId, after, limit: maxAccountPage });
      for (const c of page) {
        const one = await this.one(c.id, month, bounds.value);
        if (!one.ok) return one;
        list.push(one.value);
      }
      const last = page[page.length - 1];
      if (page.length < maxAccountPage || !last) break;
      after = last.id;
    }
    return ok({ ...own.value, customers: list });
  }

  private async one(accountId: number, month: string, bounds: MonthBounds): Promise<AdminResult<Statement>> {
    const account = await this.store.accounts.getAccount(accountId);
    if (!account) return notFound(`no account with id ${accountId}`);
    const [states, sums, opening] = await Promise.all([
      this.store.reports.periodStates(accountId, bounds.start, bounds.end),
      this.store.accounts.ledgerSums(accountId, bounds.start, bounds.end),
      this.store.accounts.ledgerBalancesBefore(accountId, bounds.start),
    ]);
    const credit = {} as Record<BalanceBucket, StatementCredit>;
    for (const b of buckets)
      credit[b] = {
        opening: opening[b],
        added: 0,
        spent: 0,
        refunded: 0,
        moved_in: 0,
        moved_out: 0,
        taken: 0,
        closing: 0,
      };
    for (const s of sums) {
      const c = credit[s.bucket];
      if (s.added > 0)
        c[isRefundReason(s.reason) ? 'refunded' : isMoveReason(s.reason) ? 'moved_in' : 'added'] += s.added;
      if (s.taken > 0) c[isSendReason(s.reason) ? 'spent' : isMoveReason(s.reason) ? 'moved_out' : 'taken'] += s.taken;
    }
    for (const c of Object.values(credit))
      c.closing = c.opening + c.added + c.refunded + c.moved_in - c.spent - c.moved_out - c.taken;
    const byState: Statement['messages']['by_state'] = {};
    let total = 0;
    let sms = 0;
    for (const s of states) {
      byState[s.state] = { messages: s.messages, sms: s.sms };
      total += s.messages;
      sms += s.sms;
    }
    return ok({
      account_id: account.id,
      name: account.name,
      parent_id: account.parentId ?? null,
      month,
      from: bounds.from,
      to: bounds.to,
      messages: { total, sms, by_state: byState },
      credit,
    });
  }
}

const stateColumns: readonly DeliveryState[] = [
  'delivered',
  'failed',
  'expired',
  'cancelled',
  'sent',
  'submitting',
  'queued',
  'paused',
];

/**
 * Statements as CSV: one row per account and balance, its messages (on the main balance's
 * row only, so a column sums to the total) and its credit. Every cell through `safeCell`:
 * an account's name is the customer's text.
 */
export function statementsCsv(statements: readonly Statement[]): string {
  const header = [
    'account_id',
    'name',
    'parent_id',
    'month',
    'balance',
    'messages',
    'sms',
    ...stateColumns.map((s) => `messages_${s}`),
    ...creditKeys,
  ];
  const rows = statements.flatMap((s) =>
    buckets.map((b) => {
      const main = b === 'main';
      const row: (string | number)[] = [
        s.account_id,
        s.name,
        s.parent_id ?? '',
        s.month,
        b,
        main ? s.messages.total : 0,
        main ? s.messages.sms : 0,
        ...stateColumns.map((state) => (main ? (s.messages.by_state[state]?.messages ?? 0) : 0)),
        ...creditKeys.map((k) => s.credit[b][k]),
      ];
      return row.map(safeCell);
    }),
  );
  return stringify([header, ...rows], { bom: true, quoted_match: /[;\t]/ });
}
