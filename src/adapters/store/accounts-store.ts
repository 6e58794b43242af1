/** Accounts and their balance ledger. */
import { sql } from 'kysely';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { AccountsTable, LedgerTable } from './schema.js';
import type {
  Account,
  AccountInput,
  AccountListing,
  Balances,
  CreditMove,
  LedgerSum,
  AccountPatch,
  AccountStore,
  BalanceBucket,
  ChargeEntry,
  Refund,
} from '../../ports/accounts.js';
import { StorePart } from './store-part.js';
import type { PartContext } from './store-part.js';
import { columnsOf, preparedList, preparedQuery, preparedRows } from './prepared-query.js';
import { accountRows, customerCount, ledgerBalancesBefore, ledgerSums, moveCredit } from './credit-moves.js';
import { refundOnce } from './refunds.js';
import { changedDefaults, decodeControls, encodeControls } from '../../domain/send-controls.js';

export function parseList(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * An account row; the key lookup reads no `send_weight` (only the dispatcher's claim needs
 * it), nor the hierarchy (`reseller`, `parent_id`: only the reseller's use cases need it).
 */
export function toAccount(
  row: Omit<
    Selectable<AccountsTable>,
    'send_weight' | 'reseller' | 'parent_id' | 'send_defaults' | 'refund_undelivered'
  > & {
    send_weight?: number | undefined;
    send_defaults?: string | null | undefined;
    reseller?: number | undefined;
    parent_id?: number | null | undefined;
    refund_undelivered?: number | undefined;
  },
): Account {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    balanceMain: Number(row.balance_main),
    balanceInternational: Number(row.balance_international),
    perMinuteLimit: row.per_minute_limit,
    otpBrand: row.otp_brand,
    ipAllow: parseList(row.ip_allow),
    globalSending: row.global_sending === 1,
    ...(row.send_weight !== undefined ? { sendWeight: row.send_weight } : {}),
    createdAt: Number(row.created_at),
    ...(row.reseller !== undefined ? { reseller: row.reseller === 1 } : {}),
    ...(row.parent_id !== undefined ? { parentId: row.parent_id } : {}),
    ...(row.send_defaults !== undefined && row.send_defaults !== null
      ? { sendDefaults: decodeControls(row.send_defaults) }
      : {}),
    ...(row.refund_undelivered !== undefined ? { refundUndelivered: row.refund_undelivered === 1 } : {}),
  };
}

// The statements of every send batch, compiled once per database.
const balancesQuery = preparedList(
  (db, _: Record<string, never>, ids: number[]) =>
    db.selectFrom('accounts').select(['id', 'balance_main', 'balance_international']).where('id', 'in', ids),
  [],
);

/** Takes a charge from one balance unless it no longer covers it; answers the balance after. */
function chargeOf(column: 'balance_main' | 'balance_international') {
  return preparedQuery(
    (db, p: { accountId: number; amount: number }) =>
      db
        .updateTable('accounts')
        .set({ [column]: sql`${sql.ref(column)} - ${p.amount}` })
        .where('id', '=', p.accountId)
        .where(sql.ref(column), '>=', p.amount)
        .returning(sql<number>`${sql.ref(column)}`.as('balance')),
    ['accountId', 'amount'],
  );
}

const chargeQuery: Record<BalanceBucket, ReturnType<typeof chargeOf>> = {
  main: chargeOf('balance_main'),
  international: chargeOf('balance_international'),
};

type LedgerRow = Omit<Insertable<LedgerTable>, 'id'>;
const ledgerColumns = columnsOf<LedgerRow>({
  account_id: true,
  bucket: true,
  delta: true,
  balance_after: true,
  reason: true,
  reference: true,
  created_at: true,
});
/** Ledger rows per INSERT: the row count of a send batch's charges, well inside the parameter limits. */
const ledgerChunk = 256;
const ledgerInsert = preparedRows((db, rows: LedgerRow[]) => db.insertInto('ledger').values(rows), ledgerColumns);

/** An account's balances, read through SQLite's balance cache outside transactions. */
export async function balanceOf(context: PartContext, id: number): Promise<Record<BalanceBucket, number> | null> {
  const load = async (): Promise<Record<BalanceBucket, number> | null> => {
    const { rows } = await context.db.executeQuery(balancesQuery(context.db, {}, [id]));
    const row = rows[0];
    return row ? { main: Number(row.balance_main), international: Number(row.balance_international) } : null;
  };
  const caches = context.db.isTransaction ? null : context.caches;
  return caches ? caches.balances.lookup(String(id), load) : load();
}

export class SqlAccountStore extends StorePart implements AccountStore {
  async hasAccounts(): Promise<boolean> {
    return (await this.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  async createAccount(input: AccountInput, now: number): Promise<Account> {
    return this.transact(async (self) => {
      const row = await self.db
        .insertInto('accounts')
        .values({
          name: input.name,
          status: 'Active',
          balance_main: 0,
          balance_international: 0,
          per_minute_limit: input.perMinuteLimit,
          otp_brand: input.otpBrand,
          ip_allow: JSON.stringify(input.ipAllow),
          global_sending: input.globalSending ? 1 : 0,
          ...(input.sendWeight !== undefined ? { send_weight: input.sendWeight } : {}),
          ...(input.parentId !== undefined ? { parent_id: input.parentId } : {}),
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      self.context.caches?.keysChanged();
      if (input.balanceMain > 0)
        await self.adjustBalance(row.id, 'main', input.balanceMain, 'opening balance', null, now);
      if (input.balanceInternational > 0)
        await self.adjustBalance(row.id, 'international', input.balanceInternational, 'opening balance', null, now);
      const account = await self.getAccount(row.id);
      if (!account) throw new Error('account vanished inside its own transaction');
      return account;
    });
  }

  async getAccount(id: number): Promise<Account | null> {
    const row = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toAccount(row) : null;
  }

  async updateAccount(id: number, patch: AccountPatch): Promise<Account | null> {
    const values: Updateable<AccountsTable> = {};
    if (patch.name !== undefined) values.name = patch.name;
    if (patch.status !== undefined) values.status = patch.status;
    if (patch.perMinuteLimit !== undefined) values.per_minute_limit = patch.perMinuteLimit;
    if (patch.otpBrand !== undefined) values.otp_brand = patch.otpBrand;
    if (patch.ipAllow !== undefined) values.ip_allow = JSON.stringify(patch.ipAllow);
    if (patch.globalSending !== undefined) values.global_sending = patch.globalSending ? 1 : 0;
    if (patch.sendWeight !== undefined) values.send_weight = patch.sendWeight;
    if (patch.reseller !== undefined) values.reseller = patch.reseller ? 1 : 0;
    if (patch.sendDefaults !== undefined) {
      const before = await this.getAccount(id);
      values.send_defaults = encodeControls(changedDefaults(before?.sendDefaults ?? null, patch.sendDefaults));
    }
    if (patch.refundUndelivered !== undefined) values.refund_undelivered = patch.refundUndelivered ? 1 : 0;
    if (Object.keys(values).length > 0) {
      await this.db.updateTable('accounts').set(values).where('id', '=', id).execute();
      // The key lookup holds the account's fields: a suspension must be seen by the next request.
      this.context.caches?.keysChanged();
    }
    return this.getAccount(id);
  }

  async adjustBalance(
    id: number,
    bucket: BalanceBucket,
    delta: number,
    reason: string,
    reference: string | null,
    now: number,
  ): Promise<Account | 'insufficient' | null> {
    const column = bucket === 'main' ? 'balance_main' : 'balance_international';
    return this.transact(async (self) => {
      // The guard in WHERE keeps concurrent spenders from racing below zero; the CHECK
      // constraint on the column is the last line behind it.
      const updated = await self.db
        .updateTable('accounts')
        .set({ [column]: sql`${sql.ref(column)} + ${delta}` })
        .where('id', '=', id)
        .where(sql.ref(column), '>=', -delta)
        .returning([column])
        .executeTakeFirst();
      if (!updated) {
        const exists = await self.db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst();
        return exists ? 'insufficient' : null;
      }
      self.context.caches?.balancesChanged();
      const balanceAfter = Number((updated as Record<string, unknown>)[column]);
      await self.db
        .insertInto('ledger')
        .values({ account_id: id, bucket, delta, balance_after: balanceAfter, reason, reference, created_at: now })
        .execute();
      return self.getAccount(id);
    });
  }

  async lockAccounts(ids: readonly number[]): Promise<void> {
    if (!this.sql.locksRows || ids.length === 0) return;
    await this.db
      .selectFrom('accounts')
      .select('id')
      .where('id', 'in', [...ids])
      .orderBy('id')
      .$call((qb) => this.sql.forUpdate(qb))
      .execute();
  }

  async balancesOf(ids: readonly number[]): Promise<Map<number, Record<BalanceBucket, number>>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.db.executeQuery(balancesQuery(this.db, {}, ids));
    return new Map(
      rows.map((r) => [r.id, { main: Number(r.balance_main), international: Number(r.balance_international) }]),
    );
  }

  async applyCharges(charges: readonly ChargeEntry[], now: number): Promise<void> {
    const totals = new Map<string, { accountId: number; bucket: BalanceBucket; amount: number }>();
    for (const c of charges) {
      const key = `${c.accountId}:${c.bucket}`;
      const t = totals.get(key) ?? { accountId: c.accountId, bucket: c.bucket, amount: 0 };
      t.amount += c.amount;
      totals.set(key, t);
    }
    const after = new Map<string, number>();
    for (const [key, t] of totals) {
      const updated = (
        await this.db.executeQuery(chargeQuery[t.bucket](this.db, { accountId: t.accountId, amount: t.amount }))
      ).rows[0];
      if (!updated) throw new Error(`balance of account ${t.accountId} no longer covers ${t.amount}`);
      this.context.caches?.balancesChanged();
      // Ledger rows carry the balance after each charge, so work back from the final one.
      after.set(key, Number(updated.balance) + t.amount);
    }
    const rows = charges.map((c) => {
      const key = `${c.accountId}:${c.bucket}`;
      const balance = (after.get(key) ?? 0) - c.amount;
      after.set(key, balance);
      return {
        account_id: c.accountId,
        bucket: c.bucket,
        delta: -c.amount,
        balance_after: balance,
        reason: c.reason,
        reference: c.reference,
        created_at: now,
      };
    });
    for (let i = 0; i < rows.length; i += ledgerChunk)
      await this.db.executeQuery(ledgerInsert(this.db, rows.slice(i, i + ledgerChunk)));
  }

  moveCredit(move: CreditMove, now: number): Promise<{ from: Balances; to: Balances } | 'insufficient' | null> {
    return this.transact((self) => moveCredit(self.context, move, now));
  }

  async listAccounts(listing: AccountListing): Promise<Account[]> {
    return (await accountRows(this.context, listing)).map(toAccount);
  }

  customerCount(parentId: number): Promise<number> {
    return customerCount(this.context, parentId);
  }

  ledgerSums(accountId: number, from: number, to: number): Promise<LedgerSum[]> {
    return ledgerSums(this.context, accountId, from, to);
  }

  ledgerBalancesBefore(accountId: number, instant: number): Promise<Balances> {
    return ledgerBalancesBefore(this.context, accountId, instant);
  }

  refund(refunds: readonly Refund[], reason: string, reference: string | null, now: number): Promise<number> {
    return this.transact((self) => refundOnce(self.context, refunds, reason, reference, now));
  }
}
