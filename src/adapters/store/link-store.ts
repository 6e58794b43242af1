import { sql } from 'kysely';
import { StorePart } from './store-part.js';
import { hasUrl, newEventRow, resolveTargets } from './event-outbox.js';
import { takesEvent } from '../../domain/webhook.js';
import type { LinkClick, LinkStore, NewShortLink } from '../../ports/link-store.js';

/** Rows per multi-row INSERT and items per IN list: inside both dialects' parameter limits. */
const chunk = 1000;
/** Links per insert statement (one bound list each). */
const listChunk = 10_000;

export class SqlLinkStore extends StorePart implements LinkStore {
  async insert(accountId: number, sendId: number, links: readonly NewShortLink[], now: number): Promise<void> {
    // One statement a chunk with the rows as one bound list (SQLite: a JSON array read by
    // json_each; PostgreSQL: text arrays unnested): a 50,000-recipient send's links are a few
    // statements, not a thousand-row VALUES list each compiled afresh.
    for (let i = 0; i < links.length; i += listChunk) {
      const part = links.slice(i, i + listChunk);
      const rows = this.sql.textRows(
        part.map((l) => [l.token, l.recipient, l.url]),
        3,
      );
      await sql`insert into short_links (token, account_id, send_id, recipient, url, created_at)
        select r.c0, cast(${accountId} as integer), cast(${sendId} as bigint), r.c1, r.c2, cast(${now} as bigint)
        from ${rows} as r`.execute(this.db);
    }
  }

  async click(token: string, now: number): Promise<LinkClick | null> {
    return this.transact(async (self) => {
      const { db, sql } = self;
      const link = await db
        .selectFrom('short_links')
        .innerJoin('sends', 'sends.id', 'short_links.send_id')
        .select(['short_links.send_id', 'short_links.recipient', 'short_links.url', 'sends.key_id'])
        .where('short_links.token', '=', token)
        .executeTakeFirst();
      if (!link) return null;
      // The message's links, locked: two first clicks at once on two of its links take turns,
      // so exactly one of them finds none clicked before and writes sms.clicked.
      const siblings = await db
        .selectFrom('short_links')
        .select(['token', 'first_clicked_at'])
        .where('send_id', '=', link.send_id)
        .where('recipient', '=', link.recipient)
        .$call((qb) => sql.forUpdate(qb))
        .execute();
      const first = siblings.every((s) => s.first_clicked_at === null);
      await db
        .updateTable('short_links')
        .set((eb) => ({
          clicks: eb('clicks', '+', 1),
          first_clicked_at: eb.fn.coalesce('first_clicked_at', eb.val(now)),
        }))
        .where('token', '=', token)
        .execute();
      await db.insertInto('link_clicks').values({ send_id: link.send_id, token, clicked_at: now }).execute();
      const event = first && (await self.clickedEvent(link, now));
      return { url: link.url, event };
    });
  }

  /** sms.clicked for the message's key's webhook, when it has one that takes the event. */
  protected async clickedEvent(
    link: { send_id: number; recipient: string; url: string; key_id: number },
    now: number,
  ): Promise<boolean> {
    const message = await this.db
      .selectFrom('messages')
      .select('id')
      .where('send_id', '=', link.send_id)
      .where('recipient', '=', link.recipient)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (!message) return false;
    const target = (await resolveTargets(this.db, [link.key_id])).get(link.key_id);
    if (!hasUrl(target) || !takesEvent(target.events, 'sms.clicked')) return false;
    await this.db
      .insertInto('webhook_events')
      .values(
        newEventRow(
          {
            keyId: link.key_id,
            eventType: 'sms.clicked',
            smsId: Number(message.id),
            status: null,
            extra: { url: link.url, clicked_at: new Date(now).toISOString() },
          },
          now,
        ),
      )
      .execute();
    return true;
  }

  async hasLinks(sendId: number): Promise<boolean> {
    // A bulk send says so itself (its links are made as its messages are written out); a
    // send whose messages were written with it has its links already.
    const row = await this.db
      .selectFrom('sends')
      .select('id')
      .where('id', '=', sendId)
      .where((eb) =>
        eb.or([
          eb('short_links', '=', 1),
          eb.exists(eb.selectFrom('short_links').select('token').where('short_links.send_id', '=', sendId)),
        ]),
      )
      .executeTakeFirst();
    return row !== undefined;
  }

  async clickSeries(sendId: number, maxPoints: number): Promise<{ at: number; clicks: number }[]> {
    const span = await this.db
      .selectFrom('link_clicks')
      .select((eb) => [eb.fn.min('clicked_at').as('first'), eb.fn.max('clicked_at').as('last')])
      .where('send_id', '=', sendId)
      .executeTakeFirst();
    if (span?.first === null || span?.first === undefined || span.last === null) return [];
    const first = Number(span.first);
    const minute = 60_000;
    const bucket = Math.max(1, Math.ceil((Number(span.last) - first + 1) / Math.max(1, maxPoints) / minute)) * minute;
    const start = Math.floor(first / minute) * minute;
    const index = sql<number>`(clicked_at - ${sql.lit(start)}) / ${sql.lit(bucket)}`;
    const rows = await this.db
      .selectFrom('link_clicks')
      .select((eb) => [index.as('slot'), eb.fn.countAll<string | number>().as('clicks')])
      .where('send_id', '=', sendId)
      .groupBy('slot')
      .orderBy('slot')
      .execute();
    return rows.map((r) => ({ at: start + Number(r.slot) * bucket, clicks: Number(r.clicks) }));
  }

  async sendClicks(sendId: number): Promise<{ clicks: number; clickers: number }> {
    const row = await this.db
      .selectFrom('short_links')
      .select((eb) => [
        eb.fn.sum<string | number | null>('clicks').as('clicks'),
        eb.fn
          .count<string | number>('recipient')
          .distinct()
          .filterWhere('first_clicked_at', 'is not', null)
          .as('clickers'),
      ])
      .where('send_id', '=', sendId)
      .executeTakeFirst();
    return { clicks: Number(row?.clicks ?? 0), clickers: Number(row?.clickers ?? 0) };
  }

  async recipientLinks(
    sendId: number,
    recipients: readonly string[],
  ): Promise<Map<string, { links: string[]; clicks: number }>> {
    const found = new Map<string, { links: string[]; clicks: number }>();
    const distinct = [...new Set(recipients)];
    for (let i = 0; i < distinct.length; i += chunk) {
      const rows = await this.db
        .selectFrom('short_links')
        .select(['recipient', 'token', 'clicks'])
        .where('send_id', '=', sendId)
        .where('recipient', 'in', distinct.slice(i, i + chunk))
        .orderBy('created_at')
        .orderBy('token')
        .execute();
      for (const row of rows) {
        const entry = found.get(row.recipient) ?? { links: [], clicks: 0 };
        entry.links.push(row.token);
        entry.clicks += row.clicks;
        found.set(row.recipient, entry);
      }
    }
    return found;
  }
}
