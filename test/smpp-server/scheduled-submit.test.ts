/**
 * A submit_sm's schedule_delivery_time (issue 42), through an SMPP session to the server in
 * this process, on SQLite and PostgreSQL, with a fixed clock: the absolute and the relative
 * forms are honoured (the message is answered with its own id, not submitted to the carrier
 * before its time, submitted at it), query_sm answers for it while it waits, its receipt
 * carries the id of submit_sm_resp; the parts of a concatenated message are scheduled as a
 * whole; a time in the past and a malformed one are ESME_RINVSCHED, nothing stored.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { harnessFor } from '../helpers/harness.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import type { SimulatedDelivery } from '../helpers/delivery.js';
import { connectEsme } from '../helpers/esme.js';
import type { Esme } from '../helpers/esme.js';
import { waitFor } from '../helpers/wait-for.js';
import { summaryOf } from '../helpers/bulk.js';
import type { SmppServer } from '../../src/smpp-server/smpp-server.js';
import { smppServerOn } from '../helpers/smpp-server.js';
import { numberField, stringField } from '../../src/smpp/smpp-wire.js';
import type { Pdu } from '../../src/smpp/smpp-wire.js';
import { valueOf } from '../helpers/results.js';

const ESME_ROK = 0x00;
const ESME_RINVSCHED = 0x61;
/** Recipients end in digits the simulator delivers (not 0000-0002). The harness's clock starts at 2026-03-15 09:00:00 UTC (12:00 in Istanbul). */
const start = Date.UTC(2026, 2, 15, 9, 0, 0);
const hour = 3600_000;

for (const dialect of testDialects()) {
  describeOn(dialect, `SMPP server: scheduled submit_sm (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    let server: SmppServer;
    let delivery: SimulatedDelivery;
    let esme: Esme;
    let accountId = 0;
    let apiKey = '';

    before(async () => {
      const p = await h.provision();
      accountId = p.accountId;
      apiKey = p.apiKey;
      await valueOf(h.runtime.smppUsers.create({ keyId: p.keyId, systemId: 'sched', password: 'pw' }));
      server = smppServerOn(h.runtime, h.clock, { receiptPollMs: 20 });
      const port = await server.listen({ port: 0, host: '127.0.0.1' });
      // Nothing is claimed until runOnce(): the fixed clock decides what is due.
      delivery = await simulatedDelivery(h.runtime);
      esme = await connectEsme(port);
      assert.equal(await esme.bind('bind_transceiver', 'sched', 'pw'), ESME_ROK);
    });
    after(async () => {
      await esme.close();
      await server.close();
      await delivery.stop();
    });

    const submittedIds = (): number[] => delivery.transitions.filter((t) => t.state === 'sent').map((t) => t.messageId);
    const stored = async (id: number) => h.runtime.store.reports.findMessage(id, accountId);
    const receiptFor = (id: string): Pdu | undefined =>
      esme.delivered.find((d) => stringField(d, 'receipted_message_id') === id);
    const balance = async (): Promise<number> =>
      (await h.runtime.store.accounts.balancesOf([accountId])).get(accountId)?.main ?? -1;

    /** Submitted once the clock reaches `at`, not a millisecond before; then delivered and its receipt sent. */
    async function dueAt(messageId: string, at: number): Promise<void> {
      const id = Number(messageId);
      h.clock.set(at - 1);
      await delivery.runOnce();
      assert.ok(!submittedIds().includes(id), 'submitted before its time');
      assert.equal((await stored(id))?.state, 'queued');
      h.clock.set(at);
      await delivery.runOnce();
      assert.ok(submittedIds().includes(id), 'not submitted at its time');
      await delivery.waitForState(accountId, id, ['delivered']);
      await waitFor(`the receipt of ${messageId}`, () => receiptFor(messageId) !== undefined);
    }

    it('honours an absolute time: answered with the message id, waits, is submitted at its time, its receipt carries that id', async () => {
      h.clock.set(start);
      // 2026-03-15 13:30:00 in Istanbul (UTC+3: 12 quarter hours ahead) is 10:30 UTC.
      const resp = await esme.submit('905321112241', 'Randevu', { schedule_delivery_time: '260315133000012+' });
      assert.equal(resp.command_status, ESME_ROK);
      const messageId = stringField(resp, 'message_id') ?? '';
      assert.match(messageId, /^\d+$/);
      const message = await stored(Number(messageId));
      assert.equal(message?.recipient, '905321112241');
      assert.equal(message?.scheduled, true);
      // Charged at acceptance, as the API's scheduled sends.
      assert.equal(await balance(), 999);
      // query_sm while it waits: ENROUTE.
      const query = await esme.request('query_sm', { message_id: messageId, source_addr: 'ACME' });
      assert.equal(query.command_status, ESME_ROK);
      assert.equal(numberField(query, 'message_state'), 1);
      // The report of the send says so (its id is the message's send).
      const report = summaryOf(await h.post('/reports/basic', { api_key: apiKey, raporid: message?.sendId }));
      assert.equal(report.details.report_status, 'Scheduled: waiting for the scheduled time');

      await dueAt(messageId, Date.UTC(2026, 2, 15, 10, 30, 0));
      const receipt = receiptFor(messageId);
      assert.equal(numberField(receipt ?? ({} as Pdu), 'message_state'), 2);
      const after = await esme.request('query_sm', { message_id: messageId, source_addr: 'ACME' });
      assert.equal(numberField(after, 'message_state'), 2);
    });

    it('honours a relative time, counted from the server clock at the submit', async () => {
      h.clock.set(start + 2 * hour);
      // 00 years, 00 months, 00 days, 00 hours, 02 minutes, 30 seconds from now.
      const resp = await esme.submit('905321112242', 'Hatirlatma', { schedule_delivery_time: '000000000230000R' });
      assert.equal(resp.command_status, ESME_ROK);
      await dueAt(stringField(resp, 'message_id') ?? '', start + 2 * hour + 150_000);
    });

    it('schedules the parts of a concatenated message as a whole: at the latest time a part asked for', async () => {
      h.clock.set(start + 3 * hour);
      const udh = (seq: number): Buffer => Buffer.from([5, 0x00, 0x03, 0x31, 2, seq]);
      const part = (seq: number, text: string, schedule: string) =>
        esme.submit('905321112243', '', {
          esm_class: 0x40,
          short_message: Buffer.concat([udh(seq), Buffer.from(text, 'latin1')]),
          schedule_delivery_time: schedule,
        });
      // The first part asks for 5 minutes from now; the second none.
      const first = await part(1, 'Parca bir, ', '000000000500000R');
      assert.equal(first.command_status, ESME_ROK);
      h.clock.advance(1000);
      const last = await part(2, 'parca iki', '');
      assert.equal(last.command_status, ESME_ROK);
      const messageId = stringField(last, 'message_id') ?? '';
      assert.notEqual(messageId, stringField(first, 'message_id'));
      await dueAt(messageId, start + 3 * hour + 300_000);
      // The first part's receipt, under its own id, once the message is final.
      await waitFor(
        'the first part\u2019s receipt',
        () => receiptFor(stringField(first, 'message_id') ?? '') !== undefined,
      );
    });

    it('refuses a time in the past and a malformed one with ESME_RINVSCHED, storing and charging nothing', async () => {
      h.clock.set(start + 4 * hour);
      const before = await balance();
      const cases = [
        // An hour ago, 12:00 UTC (the grace is 10 s).
        '260315120000000+',
        // 2026-02-29 does not exist.
        '260229100000000+',
        // Not 16 characters; no sign; tenths in a relative time.
        '2603151200',
        '2603151200000000',
        '000000000100100R',
      ];
      for (const schedule of cases) {
        const resp = await esme.submit('905321112244', 'Gec', { schedule_delivery_time: schedule });
        assert.equal(resp.command_status, ESME_RINVSCHED, schedule);
      }
      // A part too: refused at once, not when its message is complete.
      const part = await esme.submit('905321112244', '', {
        esm_class: 0x40,
        short_message: Buffer.concat([Buffer.from([5, 0x00, 0x03, 0x32, 2, 1]), Buffer.from('x', 'latin1')]),
        schedule_delivery_time: '260315120000000+',
      });
      assert.equal(part.command_status, ESME_RINVSCHED);
      assert.equal(await balance(), before);
    });

    it('sends at once a time a few seconds past (a client clock a little off)', async () => {
      h.clock.set(start + 5 * hour);
      // Now is 14:00:00 UTC: 5 s before it.
      const resp = await esme.submit('905321112245', 'Simdi', { schedule_delivery_time: '260315135955000+' });
      assert.equal(resp.command_status, ESME_ROK);
      const id = Number(stringField(resp, 'message_id'));
      assert.equal((await stored(id))?.scheduled, false);
      await delivery.runOnce();
      assert.ok(submittedIds().includes(id));
    });
  });
}
