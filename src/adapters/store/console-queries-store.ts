/** The provider console's reads on either dialect: see src/ports/console-queries.ts. */
import { sql } from 'kysely';
import { StorePart } from './store-part.js';
import { toAccount } from './accounts-store.js';
import { likeLiteral } from './audit-store.js';
import type { Account } from '../../ports/accounts.js';
import type { AccountSearch, ConsoleQueries, LedgerEntry, PendingSenderId } from '../../ports/console-queries.js';

export class SqlConsoleQueries extends StorePart implements ConsoleQueries {
  async accounts(search: AccountSearch): Promise<Account[]> {
    let query = this.db.selectFrom('accounts').selectAll();
    const text = search.text?.trim() ?? '';
    if (text !== '') {
      const pattern = `%${likeLiteral(text.toLowerCase())}%`;
      const asId = /^#?(\d{1,9})$/.exec(text)?.[1];
      query = query.where((eb) =>
        eb.or([
          eb(sql<string>`lower(name)`, 'like', sql<string>`${pattern} escape '\\'`),
          eb(
            'id',
            'in',
            eb
              .selectFrom('panel_users')
              .select('account_id')
              .where(sql<boolean>`lower(email) like ${pattern} escape '\\'`)
              .where('account_id', 'is not', null)
              .$narrowType<{ account_id: number }>(),
          ),
          ...(asId === undefined ? [] : [eb('id', '=', Number(asId))]),
        ]),
      );
    }
    if (search.after !== undefined) query = query.where('id', '>', search.after);
    const rows = await query.orderBy('id').limit(search.limit).execute();
    return rows.map(toAccount);
  }

  async ledger(accountId: number, before: number | undefined, limit: number): Promise<LedgerEntry[]> {
    let query = this.db.selectFrom('ledger').selectAll().where('account_id', '=', accountId);
    if (before !== undefined) query = query.where('id', '<', before);
    const rows = await query.orderBy('id', 'desc').limit(limit).execute();
    return rows.map((r) => ({
      id: Number(r.id),
      bucket: r.bucket,
      delta: Number(r.delta),
      balanceAfter: Number(r.balance_after),
      reason: r.reason,
      reference: r.reference,
      createdAt: Number(r.created_at),
    }));
  }

  async pendingSenderIds(after: number | undefined, limit: number, reseller?: number): Promise<PendingSenderId[]> {
    let query = this.db
      .selectFrom('sender_ids as s')
      .innerJoin('accounts as a', 'a.id', 's.account_id')
      .select(['s.id', 's.account_id', 's.title', 's.status', 's.created_at', 'a.name as account_name'])
      .where('s.status', '=', reseller === undefined ? 'pending' : 'awaiting-reseller');
    if (reseller !== undefined) query = query.where('a.parent_id', '=', reseller);
    if (after !== undefined) query = query.where('s.id', '>', after);
    const rows = await query.orderBy('s.id').limit(limit).execute();
    return rows.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      title: r.title,
      status: r.status,
      createdAt: Number(r.created_at),
      accountName: r.account_name,
    }));
  }
}
