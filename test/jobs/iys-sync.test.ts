/**
 * The sync with İYS, on both stores, against `haberci iys-sim`'s simulator in this process
 * and haberci's own İYS client: consents and RETs pushed (synced), an outage survived
 * (pending, attempts and error kept, due again after the wait, then synced), a refusal
 * (failed, not retried), a record recorded again while its push was in flight (not marked
 * synced), changes made on İYS pulled (RET in force, not pushed back), and no password in
 * the log.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createLogger, openAppContainer } from '../../src/main.js';
import type { AppContainer } from '../../src/main.js';
import { FixedClock } from '../../src/ports/clock.js';
import { IysSimulator } from '../../src/adapters/iys/iys-simulator.js';
import { IysClient } from '../../src/adapters/iys/iys-client.js';
import { IysSync, retryWait } from '../../src/jobs/iys-sync.js';
import type { IysApi } from '../../src/ports/iys-api.js';
import { consentMark } from '../../src/domain/iys.js';
import { InboundService } from '../../src/services/inbound-service.js';
import { valueOf } from '../helpers/results.js';

const start = Date.UTC(2026, 10, 20, 9, 0, 0);
const password = 'iys-sync-Secret-pw-123';
const everyMs = 1000;

for (const dialect of testDialects()) {
  describeOn(dialect, `İYS sync (${dialect.name})`, () => {
    let app: AppContainer;
    let clock: FixedClock;
    let sim: IysSimulator;
    let sync: IysSync;
    let accountId = 0;
    let logged = '';
    let api: IysApi;

    const consent = (recipient: string, status = 'ONAY', date = '2026-01-01 10:00:00') => ({
      recipient,
      status,
      recipient_type: 'BIREYSEL',
      source: 'HS_WEB',
      consent_date: date,
    });
    const atSim = async (recipient: string) => {
      const res = await fetch(
        `http://127.0.0.1:${sim.port}/sim/consents?iysCode=700001&brandCode=700002&recipient=${recipient}`,
      );
      return ((await res.json()) as { list: { status: string; source: string }[] }).list;
    };

    before(async () => {
      clock = new FixedClock(start);
      app = await openAppContainer(await dialect.location(), clock);
      const account = await valueOf(
        app.admin.createAccount({
          name: 'Brand',
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
          balanceMain: 100,
          balanceInternational: 0,
        }),
      );
      accountId = account.id;
      sim = new IysSimulator({ port: 0, username: 'api-user', password, tokenTtlSeconds: 3600 });
      await sim.start();
      await valueOf(
        app.iysAdmin.configure(accountId, {
          iysCode: '700001',
          brandCode: '700002',
          url: `http://127.0.0.1:${sim.port}`,
          username: 'api-user',
          passwordSecret: 'kept by the test',
        }),
      );
      const logger = createLogger(
        'debug',
        new Writable({
          write(chunk: Buffer, _enc, done) {
            logged += chunk.toString();
            done();
          },
        }),
      );
      api = new IysClient({
        url: `http://127.0.0.1:${sim.port}`,
        iysCode: '700001',
        brandCode: '700002',
        username: 'api-user',
        password: () => password,
        timeoutMs: 5000,
      });
      let swap: IysApi | null = null;
      sync = new IysSync(app.store.consents, clock, logger, { everyMs, retryMaxMs: 8000 }, () => ({
        add: (c) => (swap ?? api).add(c),
        changes: (a, l) => (swap ?? api).changes(a, l),
      }));
      // A test swaps the İYS the job talks to through this.
      (sync as unknown as { swap: (to: IysApi | null) => void }).swap = (to) => (swap = to);
    });
    after(async () => {
      await sync.stop();
      await sim.stop();
      await app.close();
    });

    it('pushes new consents and RETs (one alone, then a batch) and marks them synced', async () => {
      await app.services.consents.add(accountId, [consent('905321110001')]);
      await sync.syncOnce();
      assert.equal((await atSim('905321110001'))[0]?.status, 'ONAY');
      assert.equal(sim.stats.singleAdds, 1);
      await app.services.consents.add(accountId, [
        consent('905321110002'),
        consent('905321110003', 'RET', '2026-02-01 10:00:00'),
      ]);
      await sync.syncOnce();
      assert.equal(sim.stats.batchAdds, 1);
      assert.equal((await atSim('905321110003'))[0]?.status, 'RET');
      const summary = await app.store.consents.syncSummary(accountId);
      assert.deepEqual(summary, { pending: 0, synced: 3, failed: 0, fromIys: 0, lastError: null });
      assert.equal(sim.stats.tokens, 1, 'the token is kept between rounds');
    });

    it('keeps records pending through an outage, with attempts and error, and pushes them once İYS answers', async () => {
      sim.outage(600_000);
      await app.services.consents.add(accountId, [consent('905321110004'), consent('905321110005')]);
      await sync.syncOnce();
      let summary = await app.store.consents.syncSummary(accountId);
      assert.equal(summary.pending, 2);
      assert.match(summary.lastError ?? '', /503/);
      const [due] = await app.store.consents.dueForSync(accountId, clock.now() + 60_000, 10);
      assert.equal(due?.attempts, 1);
      // Not due again before the wait: no request is made.
      const unavailable = sim.stats.unavailable;
      await sync.syncOnce();
      assert.equal(sim.stats.unavailable, unavailable + 1, 'only the pull asked İYS this round');
      clock.advance(retryWait(1, everyMs, 8000));
      await sync.syncOnce();
      summary = await app.store.consents.syncSummary(accountId);
      assert.equal(summary.pending, 2);
      assert.equal((await app.store.consents.dueForSync(accountId, clock.now() + 60_000, 10))[0]?.attempts, 2);
      sim.outage(0);
      clock.advance(retryWait(2, everyMs, 8000));
      await sync.syncOnce();
      summary = await app.store.consents.syncSummary(accountId);
      assert.equal(summary.pending, 0);
      assert.equal(summary.synced, 5);
      assert.equal((await atSim('905321110005'))[0]?.status, 'ONAY');
    });

    it('marks a record İYS refuses failed, with its reason, and does not push it again', async () => {
      const swap = (sync as unknown as { swap: (to: IysApi | null) => void }).swap;
      let asked = 0;
      swap({
        add: async (c) => {
          asked += c.length;
          return c.map(() => ({ ok: false as const, error: '400 H100: recipient is on no list' }));
        },
        changes: async (after) => ({ after, consents: [], skipped: [] }),
      });
      try {
        await app.services.consents.add(accountId, [consent('905321110006')]);
        await sync.syncOnce();
        clock.advance(60_000);
        await sync.syncOnce();
      } finally {
        swap(null);
      }
      assert.equal(asked, 1);
      const summary = await app.store.consents.syncSummary(accountId);
      assert.equal(summary.failed, 1);
      assert.equal(summary.lastError, '400 H100: recipient is on no list');
    });

    it('leaves a record recorded again during its push pending, for a push of its own', async () => {
      await app.services.consents.add(accountId, [consent('905321110007')]);
      const [due] = await app.store.consents.dueForSync(accountId, clock.now(), 10);
      assert.ok(due);
      clock.advance(1);
      await app.services.consents.add(accountId, [consent('905321110007', 'RET', '2026-03-01 10:00:00')]);
      await app.store.consents.settleSync(accountId, [{ consent: due, result: 'synced' }], clock.now());
      const again = await app.store.consents.dueForSync(accountId, clock.now(), 10);
      assert.equal(again[0]?.status, 'RET', 'the newer record is still to push');
      await sync.syncOnce();
      assert.equal((await atSim('905321110007'))[0]?.status, 'RET');
    });

    it('pulls changes made on İYS: a RET there is in force here, and is not pushed back', async () => {
      const taken = sim.stats.consentsTaken;
      const problem = sim.change('700001', '700002', {
        recipient: '+905321110001',
        recipientType: 'BIREYSEL',
        status: 'RET',
        source: 'IYS',
        consentDate: '2026-06-01 12:00:00',
        type: 'MESAJ',
      });
      assert.equal(problem, null);
      await sync.syncOnce();
      const status = await app.services.consents.status(accountId, '05321110001', 'BIREYSEL');
      assert.equal(status?.status, 'RET');
      assert.equal(status?.source, 'IYS');
      assert.equal((await app.store.consents.syncSummary(accountId)).fromIys, 1);
      assert.equal(await app.store.consents.pullCursor(accountId), '1');
      await sync.syncOnce();
      assert.equal(sim.stats.consentsTaken, taken, 'nothing pushed back');
      assert.equal(sim.stats.changesPulled, 1, 'the cursor moved past it');
      const statuses = await app.store.consents.statusesOf(accountId, 'BIREYSEL', ['905321110001', '905321110002']);
      assert.deepEqual([...statuses], [consentMark.ret, consentMark.onay]);
    });

    it('pushes a RET by reply, of both recipient types, source HS_MESAJ', async () => {
      await app.store.inbound.addRoute('4700', accountId, clock.now());
      await app.services.consents.add(accountId, [consent('905321110008')]);
      await new InboundService(app.store).receive({
        from: '905321110008',
        to: '4700',
        text: 'İptal',
        receivedAt: clock.now(),
      });
      const due = await app.store.consents.dueForSync(accountId, clock.now(), 10);
      assert.deepEqual(
        due.map((c) => [c.recipient, c.recipientType, c.status, c.source]),
        [
          ['905321110008', 'BIREYSEL', 'RET', 'HS_MESAJ'],
          ['905321110008', 'TACIR', 'RET', 'HS_MESAJ'],
        ],
      );
      await sync.syncOnce();
      const atIys = await atSim('905321110008');
      assert.deepEqual(atIys.map((c) => c.status).sort(), ['RET', 'RET']);
      assert.equal((await app.store.consents.syncSummary(accountId)).pending, 0);
    });

    it('never writes the password to the log', () => {
      assert.ok(logged.includes('iys:'), 'the job logged');
      assert.equal(logged.includes(password), false);
    });
  });
}
