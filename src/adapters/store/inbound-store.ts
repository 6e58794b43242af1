import type { Selectable } from 'kysely';
import { StorePart } from './store-part.js';
import { newestOfAccount } from './account-rows.js';
import type { InboundMessagesTable } from './schema.js';
import { takesEvent, webhookEventsFromText } from '../../domain/webhook.js';
import type { InboundRecord, InboundRoute, InboundStore } from '../../ports/inbound-store.js';

/** An inbound message as the ports have it, from its row (read alone, or behind its outbox row). */
export function toInbound(
  r: Pick<Selectable<InboundMessagesTable>, 'id' | 'account_id' | 'source' | 'destination' | 'text' | 'received_at'>,
): InboundRecord {
  return {
    id: Number(r.id),
    accountId: r.account_id,
    from: r.source,
    to: r.destination,
    text: r.text,
    receivedAt: Number(r.received_at),
  };
}

export class SqlInboundStore extends StorePart implements InboundStore {
  async addRoute(destination: string, accountId: number, now: number): Promise<InboundRoute> {
    await this.db
      .insertInto('inbound_routes')
      .values({ destination, account_id: accountId, created_at: now })
      .onConflict((oc) => oc.column('destination').doUpdateSet({ account_id: accountId, created_at: now }))
      .execute();
    return { destination, accountId, createdAt: now };
  }

  async removeRoute(destination: string): Promise<boolean> {
    const result = await this.db.deleteFrom('inbound_routes').where('destination', '=', destination).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async routes(accountId: number | null): Promise<InboundRoute[]> {
    const rows = await this.db
      .selectFrom('inbound_routes')
      .selectAll()
      .$if(accountId !== null, (qb) => qb.where('account_id', '=', accountId ?? 0))
      .orderBy('destination')
      .execute();
    return rows.map((r) => ({ destination: r.destination, accountId: r.account_id, createdAt: Number(r.created_at) }));
  }

  async routeFor(destination: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('inbound_routes')
      .select('account_id')
      .where('destination', '=', destination)
      .executeTakeFirst();
    return row?.account_id ?? null;
  }

  async insert(m: InboundRecord): Promise<void> {
    await this.db
      .insertInto('inbound_messages')
      .values({
        id: m.id,
        account_id: m.accountId,
        source: m.from,
        destination: m.to,
        text: m.text,
        received_at: m.receivedAt,
      })
      .execute();
  }

  async webhookKeyOf(accountId: number): Promise<number | null> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(['id', 'webhook_events'])
      .where('account_id', '=', accountId)
      .where('state', '=', 'Active')
      .where('replaced_by', 'is', null)
      .where('webhook_url', 'is not', null)
      .orderBy('id', 'desc')
      .execute();
    // Keys whose webhook was limited to other events (key --webhook-events) are passed over.
    return rows.find((r) => takesEvent(webhookEventsFromText(r.webhook_events), 'sms.received'))?.id ?? null;
  }

  async recent(accountId: number, limit: number): Promise<InboundRecord[]> {
    return (await newestOfAccount(this.db, 'inbound_messages', accountId, limit)).map(toInbound);
  }
}
