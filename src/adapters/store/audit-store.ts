/** The audit log (migration 0018) on either dialect: see src/ports/audit-store.ts. */
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { AuditLogTable } from './schema-panel.js';
import { StorePart } from './store-part.js';
import type { AuditEntry, AuditEntryInput, AuditSearch, AuditStore } from '../../ports/audit-store.js';

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
  async record(entry: AuditEntryInput): Promise<void> {
    await this.db
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
    let query = this.db.selectFrom('audit_log').selectAll();
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
