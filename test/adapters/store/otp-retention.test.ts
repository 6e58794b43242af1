/**
 * Retention of the OTP tables, on both stores: the sweeper (the job `serve
 * --retention-days` runs) removes one-time codes older than the period whose message is
 * finished, the guard's old refusals and the watch's holds released before the cut-off, a
 * few rows a batch; it keeps recent rows, the code of an old message still unfinished, and a
 * standing hold however old. Codes are sent and verified through HTTP.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { pino } from 'pino';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { defaultNow, harnessFor } from '../../helpers/harness.js';
import type { Harness, Provisioned } from '../../helpers/harness.js';
import { RetentionSweeper } from '../../../src/jobs/retention-sweeper.js';
import { noOtpSettings } from '../../../src/domain/otp-guard.js';

const dayMs = 86_400_000;

function dbOf(h: Harness): Kysely<unknown> {
  return (h.runtime.store as unknown as { context: { db: Kysely<unknown> } }).context.db;
}

async function count(h: Harness, table: string, where = sql`true`): Promise<number> {
  const { rows } = await sql<{
    n: number | string;
  }>`select count(*) as n from ${sql.table(table)} where ${where}`.execute(dbOf(h));
  return Number(rows[0]?.n ?? 0);
}

async function sendCodes(h: Harness, p: Provisioned, prefix: string, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const sent = await h.post('/otp/send', { api_key: p.apiKey, mobile: `${prefix}${1_000_000 + i}` });
    assert.equal(sent.body.result_code, 'TS-1024', sent.raw);
    ids.push(sent.body.sms_id as number);
    if (i % 2 === 0) {
      const checked = await h.post('/otp/verify', {
        api_key: p.apiKey,
        sms_id: sent.body.sms_id,
        code: sent.body.otp_code,
      });
      assert.equal(checked.body.verified, true, checked.raw);
    }
  }
  return ids;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `retention of the OTP tables (${dialect.name})`, () => {
    const h = harnessFor(dialect);

    it('removes old finished codes, old refusals and old released holds; keeps the rest', async () => {
      h.clock.set(defaultNow);
      const p = await h.provision();
      const old = await sendCodes(h, p, '90532', 5);
      // Refused (the key narrowed to Türkiye): two old refusals.
      await h.runtime.store.otp.saveSettings(p.keyId, { ...noOtpSettings, countries: ['90'] }, h.clock.now());
      for (const mobile of ['4915112345678', '4915112345679'])
        assert.equal((await h.post('/otp/send', { api_key: p.apiKey, mobile })).body.result_code, 'TS-1094');
      await h.runtime.store.otp.hold(
        { keyId: p.keyId, accountId: p.accountId, prefix: '90533', sent: 30, verified: 0, previousSent: 0 },
        h.clock.now(),
      );
      await h.runtime.store.otp.hold(
        { keyId: p.keyId, accountId: p.accountId, prefix: '90534', sent: 30, verified: 0, previousSent: 0 },
        h.clock.now(),
      );
      await h.runtime.store.otp.release(p.keyId, '90533', h.clock.now() + 60_000);
      // The old messages are finished but one (still queued: its code must stay).
      const unfinished = old[4] ?? assert.fail('five codes');
      await sql`update messages set state = 'delivered' where id in (${sql.join(old.slice(0, 4))})`.execute(dbOf(h));

      h.clock.set(defaultNow + 40 * dayMs);
      const recent = await sendCodes(h, p, '90542', 3);
      assert.equal(
        (await h.post('/otp/send', { api_key: p.apiKey, mobile: '4915112345670' })).body.result_code,
        'TS-1094',
      );
      await h.runtime.store.otp.hold(
        { keyId: p.keyId, accountId: p.accountId, prefix: '90535', sent: 30, verified: 0, previousSent: 0 },
        h.clock.now(),
      );
      await h.runtime.store.otp.release(p.keyId, '90535', h.clock.now());
      const before = {
        codes: await count(h, 'otp_codes', sql`key_id = ${p.keyId}`),
        refusals: await count(h, 'otp_refusals', sql`key_id = ${p.keyId}`),
        holds: await count(h, 'otp_holds', sql`key_id = ${p.keyId}`),
      };
      assert.deepEqual(before, { codes: 8, refusals: 3, holds: 3 });

      const sweeper = new RetentionSweeper(h.runtime.store.retention, h.clock, pino({ level: 'silent' }), {
        days: 30,
        batch: 2,
        pauseMs: 0,
        everyMs: 60_000,
        partitionIds: 1_000_000,
      });
      const removed = await sweeper.sweepOnce();
      assert.ok((removed.otp_codes ?? 0) >= 4, JSON.stringify(removed));
      assert.ok((removed.otp_refusals ?? 0) >= 2, JSON.stringify(removed));
      assert.ok((removed.otp_holds ?? 0) >= 1, JSON.stringify(removed));
      const left = await sql<{
        message_id: number | string;
      }>`select message_id from otp_codes where key_id = ${p.keyId} order by message_id`.execute(dbOf(h));
      assert.deepEqual(
        left.rows.map((r) => Number(r.message_id)),
        [unfinished, ...recent],
      );
      assert.deepEqual(
        (await h.runtime.store.otp.refusals(p.accountId, 10)).map((r) => r.destination),
        ['4915112345670'],
      );
      const holds = await h.runtime.store.otp.holds({ keyId: p.keyId, limit: 10 });
      assert.deepEqual(
        holds.map((x) => [x.prefix, x.releasedAt === null]),
        [
          ['90535', false],
          ['90534', true],
        ],
      );
      // The recent codes still verify: their rows are whole.
      const again = await h.post('/otp/verify', { api_key: p.apiKey, sms_id: recent[1], code: 1 });
      assert.equal(again.body.result_code, 'TS-1090', again.raw);
    });
  });
}
