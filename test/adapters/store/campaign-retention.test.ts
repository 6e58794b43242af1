/**
 * Retention of what campaign controls and short links leave (issue 45), on both stores: a
 * cancelled send older than the period goes whole (its cancelled messages, the send, its
 * short links and their clicks, its refunds' once-only keys), while its ledger rows stay and
 * a recent cancelled send stays whole; an old link then answers a plain 404. Sends, cancels
 * and clicks go through HTTP; the sweeper is the job `serve --retention-days` runs.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { pino } from 'pino';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { defaultNow, harnessFor } from '../../helpers/harness.js';
import type { Answer, Harness, Provisioned } from '../../helpers/harness.js';
import { RetentionSweeper } from '../../../src/jobs/retention-sweeper.js';
import { SendExpander } from '../../../src/jobs/send-expander.js';

const dayMs = 86_400_000;
const base = 'https://s.example/l';

function dbOf(h: Harness): Kysely<unknown> {
  return (h.runtime.store as unknown as { context: { db: Kysely<unknown> } }).context.db;
}

async function count(h: Harness, table: string, where: ReturnType<typeof sql>): Promise<number> {
  const { rows } = await sql<{
    n: number | string;
  }>`select count(*) as n from ${sql.table(table)} where ${where}`.execute(dbOf(h));
  return Number(rows[0]?.n ?? 0);
}

for (const dialect of testDialects()) {
  describeOn(dialect, `retention of cancelled sends and short links (${dialect.name})`, () => {
    const h = harnessFor(dialect, {}, base);
    const get = (path: string): Promise<Answer> => h.post(path, undefined, { method: 'GET' });

    /**
     * A group send of three numbers with a link each, written out (its links are made then)
     * and cancelled before a dispatcher submitted it; one link clicked.
     */
    async function cancelledSend(p: Provisioned, prefix: string): Promise<{ sendId: number; token: string }> {
      const sent = await h.post('/group/send', {
        api_key: p.apiKey,
        title: 'ACME',
        sentto: [`${prefix}1111111`, `${prefix}2222222`, `${prefix}3333333`],
        text: 'Sale https://shop.example.com/a',
        short_links: 1,
      });
      assert.equal(sent.body.result_code, 'TS-1024', sent.raw);
      const sendId = sent.body.rapor_id as number;
      assert.equal(await new SendExpander(h.runtime.store.queue, h.clock).expandNext(), 3);
      const { rows } = await sql<{ token: string }>`select token from short_links where send_id = ${sendId}`.execute(
        dbOf(h),
      );
      const token = rows[0]?.token ?? assert.fail('the send has short links');
      assert.equal((await get(`/l/${token}`)).status, 302);
      const cancel = await h.post('/group/cancel', { api_key: p.apiKey, rapor_id: sendId });
      assert.deepEqual([cancel.body.cancelled, cancel.body.refunded], [3, 3], cancel.raw);
      return { sendId, token };
    }

    const left = async (sendId: number) => ({
      messages: await count(h, 'messages', sql`send_id = ${sendId}`),
      sends: await count(h, 'sends', sql`id = ${sendId}`),
      links: await count(h, 'short_links', sql`send_id = ${sendId}`),
      clicks: await count(h, 'link_clicks', sql`send_id = ${sendId}`),
      refunds: await count(
        h,
        'refunds',
        sql`refund_key in (select ${sql.lit('message:')} || cast(id as text) from messages where send_id = ${sendId})`,
      ),
    });

    it('removes an old cancelled send whole, with its links, clicks and refund keys; keeps a recent one and the ledger', async () => {
      h.clock.set(defaultNow);
      const p = await h.provision();
      const old = await cancelledSend(p, '90532');
      const oldRefundKeys = await count(h, 'refunds', sql`account_id = ${p.accountId}`);
      assert.equal(oldRefundKeys, 3);
      h.clock.set(defaultNow + 40 * dayMs);
      const recent = await cancelledSend(p, '90533');
      const ledgerBefore = await count(h, 'ledger', sql`account_id = ${p.accountId}`);
      assert.deepEqual(await left(old.sendId), { messages: 3, sends: 1, links: 3, clicks: 1, refunds: 3 });

      const sweeper = new RetentionSweeper(h.runtime.store.retention, h.clock, pino({ level: 'silent' }), {
        days: 30,
        batch: 2,
        pauseMs: 0,
        everyMs: 60_000,
        partitionIds: 1_000_000,
      });
      const removed = await sweeper.sweepOnce();
      assert.ok((removed.messages ?? 0) >= 3, JSON.stringify(removed));
      assert.deepEqual(await left(old.sendId), { messages: 0, sends: 0, links: 0, clicks: 0, refunds: 0 });
      assert.equal(await count(h, 'refunds', sql`account_id = ${p.accountId}`), 3, "the recent send's keys stay");
      assert.deepEqual(await left(recent.sendId), { messages: 3, sends: 1, links: 3, clicks: 1, refunds: 3 });
      assert.equal(await count(h, 'ledger', sql`account_id = ${p.accountId}`), ledgerBefore, 'the ledger stays');
      assert.equal((await get(`/l/${old.token}`)).status, 404, 'an expired link is a plain 404');
      assert.equal((await get(`/l/${recent.token}`)).status, 302);
    });
  });
}
