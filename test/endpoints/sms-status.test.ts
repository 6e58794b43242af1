/**
 * POST /sms/status through HTTP: the refusals of its error table, and the status record as
 * the simulator's outcomes (interfaces.md: last four digits) move a message through the
 * delivery state machine.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Answer, Harness, Provisioned } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery, storedMessage } from '../helpers/delivery.js';
import type { SimulatedDelivery } from '../helpers/delivery.js';
import { assertAccepted, assertRefused, intField, sendSms, smsStatus } from '../helpers/sms.js';
import { pause } from '../helpers/wait-for.js';

const notReceived = 'The number did not receive the message';

/** A TS-1022 or TS-1064 answer: result true and HTTP 200 for both. */
function assertStatus(answer: Answer, code: 'TS-1064' | 'TS-1022'): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.body.result, true, answer.raw);
  assert.equal(answer.status, 200, answer.raw);
}

describe('/sms/status: refused requests', () => {
  let h: Harness;
  let p: Provisioned;
  let smsId: number;
  before(async () => {
    h = await createHarness();
    p = await h.provision();
    const sent = await sendSms(h, p.apiKey);
    assertAccepted(sent);
    smsId = intField(sent, 'sms_id');
  });
  after(async () => h.close());

  const badIds: Array<[string, unknown]> = [
    ['missing', undefined],
    ['empty', ''],
    ['null', null],
    ['0', 0],
    ['-1', -1],
    ['"abc"', 'abc'],
    ['1.5', 1.5],
    ['"0"', '0'],
    ['an array', [1]],
  ];
  for (const [name, value] of badIds) {
    it(`answers sms_id ${name} with TS-1052 and HTTP 403`, async () => {
      assertRefused(await smsStatus(h, p.apiKey, value), 'TS-1052', 403);
    });
  }

  it('accepts sms_id sent as a string of digits', async () => {
    assertStatus(await smsStatus(h, p.apiKey, String(smsId)), 'TS-1022');
  });

  it("answers another account's message and an unknown id with TS-1020 and HTTP 403", async () => {
    const other = await h.provision();
    assertRefused(await smsStatus(h, other.apiKey, smsId), 'TS-1020', 403);
    assertRefused(await smsStatus(h, p.apiKey, 987_654_321), 'TS-1020', 403);
    // The owner still reads it.
    assertStatus(await smsStatus(h, p.apiKey, smsId), 'TS-1022');
  });

  it("answers a scheduled send's report id, and its messages' ids, with TS-1020 and HTTP 403", async () => {
    const scheduled = await sendSms(h, p.apiKey, { scheduled_date: '2026-03-16', scheduled_time: '09:00' });
    assertAccepted(scheduled);
    const reportId = intField(scheduled, 'sms_id');
    assert.ok(
      await h.runtime.store.reports.findSend(reportId, p.accountId),
      'sms_id of a scheduled send is the send (report) id',
    );
    assertRefused(await smsStatus(h, p.apiKey, reportId), 'TS-1020', 403);
    // An immediate send's own id (allocated just before its message's) is not a message id either.
    const sendId = smsId - 1;
    assert.ok(await h.runtime.store.reports.findSend(sendId, p.accountId));
    assertRefused(await smsStatus(h, p.apiKey, sendId), 'TS-1020', 403);
  });
});

for (const dialect of testDialects()) {
  describeOn(dialect, `/sms/status through delivery on ${dialect.name}`, () => {
    let h: Harness;
    let p: Provisioned;
    let delivery: SimulatedDelivery;
    before(async () => {
      h = await createHarness(await dialect.location());
      p = await h.provision();
      delivery = await simulatedDelivery(h.runtime);
    });
    after(async () => {
      await delivery.stop();
      await h.close();
      await dialect.cleanup();
    });

    async function send(fields: Record<string, unknown>): Promise<number> {
      const answer = await sendSms(h, p.apiKey, fields);
      assertAccepted(answer);
      return intField(answer, 'sms_id');
    }

    it('answers TS-1022 while queued, then TS-1064 with the full record once delivered', async () => {
      const id = await send({ sentto: '0532 123 1234' });
      const queued = await smsStatus(h, p.apiKey, id);
      assertStatus(queued, 'TS-1022');
      assert.equal(queued.body.sms_status, notReceived);
      // The record keeps the time the message was recorded, not when it went out.
      h.clock.advance(5_000);
      assert.equal(await delivery.runOnce(), 1);
      await delivery.waitForState(p.accountId, id, ['delivered']);
      const answer = await smsStatus(h, p.apiKey, id);
      assertStatus(answer, 'TS-1064');
      const { result: _r, result_code: _c, result_message: _m, ...record } = answer.body;
      assert.deepEqual(record, {
        sender_id: 'ACME',
        date_of_sending: '2026-03-15',
        time_of_sending: '12:00:00',
        sms_status: 'Number received the message',
        sms_balance: '1',
        details: 'Delivered',
        operator: 'Turkcell',
      });
      assert.ok(delivery.transitions.some((t) => t.messageId === id && t.state === 'delivered'));
    });

    it('reports sms_balance as the SMS count of the message, as a string, and the operator of the number', async () => {
      const turkish = await send({ sentto: '905421231234', text: 'a'.repeat(161), sms_lang: 0 });
      const international = await send({ sentto: '447700901234', text: 'a'.repeat(131), sms_lang: 0 });
      const unknown = await send({ sentto: '1234567' });
      const cases: Array<[number, string, string]> = [
        [turkish, '2', 'Vodafone'],
        [international, '3', 'International'],
        [unknown, '1', ''],
      ];
      for (const [id, smsBalance, operator] of cases) {
        const answer = await smsStatus(h, p.apiKey, id);
        assertStatus(answer, 'TS-1022');
        assert.equal(answer.body.sms_balance, smsBalance);
        assert.equal(answer.body.operator, operator);
      }
    });

    const outcomes: Array<[string, string, 'failed' | 'expired', RegExp]> = [
      ['0000', 'failed', 'failed', /not delivered/i],
      ['0001', 'expired', 'expired', /expired/i],
    ];
    for (const [lastFour, name, state, details] of outcomes) {
      it(`answers TS-1022 for a number ending in ${lastFour} once the simulator reports it ${name}`, async () => {
        const id = await send({ sentto: `90532123${lastFour}` });
        await delivery.runOnce();
        const message = await delivery.waitForState(p.accountId, id, ['delivered', 'failed', 'expired']);
        assert.equal(message.state, state);
        const answer = await smsStatus(h, p.apiKey, id);
        assertStatus(answer, 'TS-1022');
        assert.equal(answer.body.sms_status, notReceived);
        assert.match(String(answer.body.details), details);
      });
    }

    it('keeps answering TS-1022 for a number ending in 0002, whose report never comes', async () => {
      const silent = await send({ sentto: '905321230002' });
      const control = await send({ sentto: '905321235678' });
      assert.equal(await delivery.runOnce(), 2);
      // Reports of one dispatch arrive together: once the control is delivered, any report
      // for the 0002 number would have arrived too.
      await delivery.waitForState(p.accountId, control, ['delivered']);
      await pause(100);
      await delivery.dispatcher.maintain();
      assert.equal((await storedMessage(h.runtime, p.accountId, silent)).state, 'sent');
      const answer = await smsStatus(h, p.apiKey, silent);
      assertStatus(answer, 'TS-1022');
      assert.equal(answer.body.sms_status, notReceived);
      assert.doesNotMatch(String(answer.body.details), /^Delivered$/);
    });

    it('answers TS-1022 after submission while the report has not arrived', async () => {
      const slow = await simulatedDelivery(h.runtime, { delayMs: 60_000 });
      try {
        const id = await send({ sentto: '905321239876' });
        assert.equal(await slow.runOnce(), 1);
        assert.equal((await storedMessage(h.runtime, p.accountId, id)).state, 'sent');
        const answer = await smsStatus(h, p.apiKey, id);
        assertStatus(answer, 'TS-1022');
        assert.equal(answer.body.sms_status, notReceived);
      } finally {
        await slow.stop();
      }
    });
  });
}
