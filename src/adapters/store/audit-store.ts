/** The audit log (migration 0018) on either dialect: see src/ports/audit-store.ts. */
import { sql } from 'kysely';
import type { Generated, Kysely, Selectable } from 'kysely';
import { StorePart } from './store-part.js';
import type { PartContext } from './store-part.js';
import type { AuditEntry, AuditEntryInput, AuditSearch, AuditStore } from '../../ports/audit-store.js';

interface AuditLogTable {
  id: Generated<number>;
  at: number;
  actor: string;
  actor_user_id: number | null;
  address: string | null;
  action: string;
  account_id: number | null;
  object_type: string | null;
  object_id: string | null;
  detail: string | null;
}

type AuditDb = Kysely<{ audit_log: AuditLogTable }>;

/** A LIKE pattern matching `text` literally (with `escape '\'`). */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function toEntry(row: Selectable<AuditLogTable>): AuditEntry {
  return {
    id: Number(row.id),
    at: Number(row.at),
    actor: row.actor,
    actorUserId: row.actor_user_id,
    address: row.address,
    action: row.action,
    accountId: row.account_id,
    objectType: row.object_type,
    objectId: row.object_id,
    detail: row.detail,
  };
}

export class SqlAuditStore extends StorePart implements AuditStore {
  private readonly tables: AuditDb;

  constructor(context: PartContext) {
    super(context);
    // Declared here, not in the shared schema: this class alone uses the table.
    this.tables = context.db as unknown as AuditDb;
  }

  async record(entry: AuditEntryInput): Promise<void> {
    await this.tables
      .insertInto('audit_log')
      .values({
        at: entry.at,
        actor: entry.actor,
        actor_user_id: entry.actorUserId,
        address: entry.address,
        action: entry.action,
        account_id: entry.accountId,
        object_type: entry.objectType,
        object_id: entry.objectId,
        detail: entry.detail,
      })
      .execute();
  }

  async search(q: AuditSearch): Promise<AuditEntry[]> {
    let query = this.tables.selectFrom('audit_log').selectAll();
    if (q.accountId !== undefined) query = query.where('account_id', '=', q.accountId);
    if (q.actor !== undefined && q.actor !== '')
      query = query.where(sql<boolean>`lower(actor) like ${`%${likeLiteral(q.actor.toLowerCase())}%`} escape '\\'`);
    if (q.action !== undefined && q.action !== '')
      query = query.where(sql<boolean>`action like ${`${likeLiteral(q.action)}%`} escape '\\'`);
    if (q.from !== undefined) query = query.where('at', '>=', q.from);
    if (q.to !== undefined) query = query.where('at', '<', q.to);
    if (q.before !== undefined) query = query.where('id', '<', q.before);
    const rows = await query.orderBy('id', 'desc').limit(q.limit).execute();
    return rows.map(toEntry);
  }
}
