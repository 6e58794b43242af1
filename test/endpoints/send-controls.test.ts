/**
 * `send_window`, `speed` and `validity_minutes` on /sms/send, /group/send and /group/sendMixed
 * through HTTP (../shared/interfaces.md, "Campaign controls"), on every dialect: messages
 * outside the window wait for the next one (across midnight too), a paced send goes out at
 * its rate on the dispatcher's clock while another send is not slowed, a message past its
 * validity ends `expired` with its credit given back once and is never submitted, the
 * carrier is told the validity, the account's defaults apply to a send that names none, and
 * the refusals.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Harness, Provisioned } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertAccepted, intField, sendSms } from '../helpers/sms.js';
import {
  assertBulkAccepted,
  detailedOf,
  drain,
  groupSend,
  groupSendMixed,
  numbersEnding,
  reportBasic,
  reportDetailed,
} from '../helpers/bulk.js';
import { valueOf } from '../helpers/results.js';

const minute = 60_000;
/** An Istanbul wall time (UTC+3) as an instant. */
const istanbul = (day: number, hour: number, min = 0): number => Date.UTC(2026, 2, day, hour - 3, min);
// March 2026: the 16th is a Monday, the 20th a Friday, the 21st a Saturday.
const office = { from: '09:00', to: '18:00', days: [1, 2, 3, 4, 5] };

for (const dialect of testDialects()) {
  describeOn(dialect, `send window, speed and validity through HTTP (${dialect.name})`, () => {
    let h: Harness;
    let live: RecordingCarrier;
    /** When (on the dispatcher's clock) each number was submitted. */
    const submittedAt = new Map<string, number>();
    let delivery: Awaited<ReturnType<typeof simulatedDelivery>>;
    before(async () => {
      h = await createHarness(await dialect.location());
      live = new RecordingCarrier('live', (m) => {
        submittedAt.set(m.to, h.clock.now());
        return { kind: 'accepted', carrierMessageIds: [`c-${m.messageId}`] };
      });
      delivery = await simulatedDelivery(h.runtime, { live });
    });
    after(async () => {
      await delivery.stop();
      await h.close();
    });

    const balance = async (p: Provisioned): Promise<number> =>
      intField(await h.post('/balance/', { api_key: p.apiKey }), 'balance_main');
    const submittedOf = (numbers: readonly string[]): number => numbers.filter((n) => submittedAt.has(n)).length;

    it('a send outside its window waits for the next opening, then goes; the window holds it again after it closes', async () => {
      const p = await h.provision();
      h.clock.set(istanbul(16, 20)); // Monday 20:00, after the window.
      const sentto = numbersEnding('1234', 30, '90531');
      assertBulkAccepted(await groupSend(h, p.apiKey, { sentto, text: 'Hello', send_window: office }));
      await drain(delivery);
      assert.equal(submittedOf(sentto), 0, 'nothing outside the window');
      h.clock.set(istanbul(17, 8, 59)); // Tuesday, a minute before it opens.
      await drain(delivery);
      assert.equal(submittedOf(sentto), 0);
      h.clock.set(istanbul(17, 9, 0));
      await drain(delivery);
      assert.equal(submittedOf(sentto), 30, 'everything once it opens');
      assert.ok(sentto.every((n) => submittedAt.get(n) === istanbul(17, 9, 0)));

      // A send accepted inside the window but claimed after it closed waits for the next day in it.
      const late = numbersEnding('1234', 5, '90532');
      h.clock.set(istanbul(20, 17, 59)); // Friday 17:59
      assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: late, send_window: office }));
      h.clock.set(istanbul(20, 18, 0));
      await drain(delivery);
      h.clock.set(istanbul(22, 23, 0)); // Sunday: no day of the window.
      await drain(delivery);
      assert.equal(submittedOf(late), 0);
      h.clock.set(istanbul(23, 9, 0)); // Monday 09:00
      await drain(delivery);
      assert.equal(submittedOf(late), 5);
    });

    it('a window across midnight belongs to the day it opens on, and runs into the next', async () => {
      const p = await h.provision();
      const night = { from: '22:00', to: '02:00', days: [5] }; // Friday night
      h.clock.set(istanbul(21, 1, 0)); // Saturday 01:00: Friday's window still runs.
      const inside = ['905631000001', '905631000002'];
      assertAccepted(await sendSms(h, p.apiKey, { sentto: inside.join(','), send_window: night }));
      await drain(delivery);
      assert.equal(submittedOf(inside), 2);
      h.clock.set(istanbul(21, 2, 0)); // Saturday 02:00: closed until next Friday 22:00.
      const outside = ['905631000003'];
      assertAccepted(await sendSms(h, p.apiKey, { sentto: outside[0], send_window: night }));
      h.clock.set(istanbul(27, 21, 59));
      await drain(delivery);
      assert.equal(submittedOf(outside), 0);
      h.clock.set(istanbul(27, 22, 0));
      await drain(delivery);
      assert.equal(submittedAt.get(outside[0] ?? ''), istanbul(27, 22, 0));
    });

    it('speed: a paced send goes out at its rate (within 5 %), and another send at the same time is not slowed', async () => {
      const paced = await h.provision();
      const other = await h.provision();
      const start = istanbul(24, 10, 0);
      h.clock.set(start);
      const slow = numbersEnding('1234', 31, '90533');
      const fast = numbersEnding('1234', 50, '90534');
      // 600 a minute: one every 100 ms of the dispatcher's clock.
      assertBulkAccepted(await groupSend(h, paced.apiKey, { sentto: slow, speed: 600 }));
      assertBulkAccepted(await groupSend(h, other.apiKey, { sentto: fast }));
      await drain(delivery);
      assert.equal(submittedOf(fast), 50, 'the other send goes at once');
      assert.ok(fast.every((n) => submittedAt.get(n) === start));
      assert.equal(submittedOf(slow), 1, 'the paced send: its first message only');
      // The dispatcher's clock moves on 10 ms at a time; every due message is claimed at each step.
      for (let t = start; t <= start + 4000 && submittedOf(slow) < slow.length; t += 10) {
        h.clock.set(t);
        await drain(delivery);
      }
      assert.equal(submittedOf(slow), 31);
      const times = slow.map((n) => submittedAt.get(n) ?? Number.NaN).sort((a, b) => a - b);
      const first = times[0] ?? 0;
      const last = times[times.length - 1] ?? 0;
      const perMinute = ((times.length - 1) * minute) / (last - first);
      assert.ok(Math.abs(perMinute - 600) <= 30, `${perMinute.toFixed(1)} a minute, asked 600`);
      const gaps = times.slice(1).map((t, i) => t - (times[i] ?? 0));
      assert.ok(Math.min(...gaps) >= 95, `no two closer than the interval: ${gaps.join(',')}`);
    });

    it('a paused paced send takes up its pace again from the resume, not all at once', async () => {
      const p = await h.provision();
      const start = istanbul(25, 10, 0);
      h.clock.set(start);
      const sentto = numbersEnding('1234', 3, '90536');
      const sent = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto, speed: 1 }));
      await drain(delivery);
      assert.equal(submittedOf(sentto), 1);
      const paused = await h.post('/group/pause', { api_key: p.apiKey, rapor_id: sent.raporId });
      assert.equal(paused.body.waiting, 2, paused.raw);
      h.clock.set(start + 10 * minute);
      const resumed = await h.post('/group/resume', { api_key: p.apiKey, rapor_id: sent.raporId });
      assert.equal(resumed.body.state, 'running', resumed.raw);
      await drain(delivery);
      assert.equal(submittedOf(sentto), 2, 'one at the resume: the pause did not bank the two slots');
      h.clock.set(start + 11 * minute - 1);
      await drain(delivery);
      assert.equal(submittedOf(sentto), 2);
      h.clock.set(start + 11 * minute);
      await drain(delivery);
      assert.equal(submittedOf(sentto), 3);
    });

    it('validity: a message not submitted in time ends expired, is never submitted, and its credit comes back once', async () => {
      const p = await h.provision();
      h.clock.set(istanbul(16, 20, 0)); // Monday 20:00, the window closed until Tuesday 09:00.
      const sentto = numbersEnding('1234', 4, '90535');
      const sent = assertBulkAccepted(
        await groupSend(h, p.apiKey, { sentto, text: 'Hello', send_window: office, validity_minutes: 60 }),
      );
      assert.equal(await balance(p), 1000 - 4);
      h.clock.set(istanbul(16, 20, 59));
      await drain(delivery);
      assert.equal(await balance(p), 1000 - 4, 'still valid: nothing expired');
      h.clock.set(istanbul(16, 21, 0));
      await drain(delivery);
      assert.equal(await balance(p), 1000, 'every credit given back');
      h.clock.set(istanbul(17, 9, 0));
      await drain(delivery);
      assert.equal(submittedOf(sentto), 0, 'never submitted after its validity');
      assert.equal(await balance(p), 1000, 'given back once');
      const rows = detailedOf(await reportDetailed(h, p.apiKey, sent.raporId)).data;
      assert.equal(rows.length, 4);
      assert.ok(
        rows.every((r) => r.details.status_code === 2),
        JSON.stringify(rows.map((r) => r.details)),
      );
      const basic = await reportBasic(h, p.apiKey, sent.raporId);
      assert.equal(basic.body.pending_count, 0, basic.raw);
    });

    it('validity: the carrier is told when the message is no longer worth delivering', async () => {
      const p = await h.provision();
      const now = istanbul(18, 11, 0);
      h.clock.set(now);
      assertAccepted(await sendSms(h, p.apiKey, { sentto: '905661000001', validity_minutes: 30 }));
      await drain(delivery);
      const submit = live.submitted.find((m) => m.to === '905661000001');
      assert.equal(submit?.validUntil, now + 30 * minute);
      // A send without the field says nothing of validity.
      assertAccepted(await sendSms(h, p.apiKey, { sentto: '905661000002' }));
      await drain(delivery);
      assert.equal(live.submitted.find((m) => m.to === '905661000002')?.validUntil, undefined);
    });

    it("the account's defaults apply to a send that names none; a send's own field wins over its default", async () => {
      const p = await h.provision();
      const shown = await valueOf(
        h.runtime.admin.updateAccount(p.accountId, { sendDefaults: { speed: 1, validityMinutes: 90 } }, {}),
      );
      assert.deepEqual(shown.send_defaults, { send_window: null, speed: 1, validity_minutes: 90 });
      const start = istanbul(19, 10, 0);
      h.clock.set(start);
      const sentto = numbersEnding('1234', 3, '90537');
      assertBulkAccepted(await groupSend(h, p.apiKey, { sentto }));
      await drain(delivery);
      assert.equal(submittedOf(sentto), 1, 'one a minute');
      h.clock.set(start + minute);
      await drain(delivery);
      assert.equal(submittedOf(sentto), 2);
      const own = numbersEnding('1234', 3, '90538');
      assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: own, speed: 600 }));
      await drain(delivery); // written out now: its pace starts here
      h.clock.set(start + minute + 200);
      await drain(delivery);
      assert.equal(submittedOf(own), 3, 'its own speed, not the default');
      const cleared = await valueOf(
        h.runtime.admin.updateAccount(p.accountId, { sendDefaults: { speed: null, validityMinutes: null } }, {}),
      );
      assert.equal(cleared.send_defaults, null);
      const free = numbersEnding('1234', 3, '90539');
      assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: free }));
      await drain(delivery);
      assert.equal(submittedOf(free), 3);
    });

    it('refusals: each field out of its range or shape is TS-1033 naming the rule; the window as JSON text is taken', async () => {
      const p = await h.provision();
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ send_window: { from: '9:00', to: '18:00' } }, /send_window.from/],
        [{ send_window: { from: '09:00', to: '24:01' } }, /send_window.to/],
        [{ send_window: { from: '09:00', to: '09:00' } }, /must differ/],
        [{ send_window: { from: '09:00', to: '18:00', days: [0] } }, /days/],
        [{ send_window: { from: '09:00', to: '18:00', days: [] } }, /days/],
        [{ send_window: { from: '09:00', to: '18:00', hours: 1 } }, /no field/],
        [{ send_window: '{not json' }, /not a JSON object/],
        [{ send_window: [1] }, /must be an object/],
        [{ speed: 0 }, /speed/],
        [{ speed: 'fast' }, /./],
        [{ validity_minutes: 2881 }, /validity_minutes/],
        [{ validity_minutes: 0 }, /validity_minutes/],
      ];
      for (const [fields, message] of cases) {
        // /group/sendMixed's streamed body takes no objects: its window cases are the text ones.
        const mixed = typeof fields.send_window === 'object' && !Array.isArray(fields.send_window);
        for (const answer of [
          await sendSms(h, p.apiKey, fields),
          await groupSend(h, p.apiKey, fields),
          ...(mixed ? [] : [await groupSendMixed(h, p.apiKey, fields)]),
        ]) {
          assert.equal(answer.status, 400, `${JSON.stringify(fields)}: ${answer.raw}`);
          assert.equal(answer.body.result_code, 'TS-1033', answer.raw);
          assert.match(String(answer.body.result_message), message, answer.raw);
        }
      }
      // /group/sendMixed's body carries no objects: the window goes as JSON text.
      assertBulkAccepted(await groupSendMixed(h, p.apiKey, { send_window: JSON.stringify(office), speed: 60 }));
      assertBulkAccepted(await groupSend(h, p.apiKey, { send_window: { from: '00:00', to: '24:00', days: [7] } }));
      assert.equal(await balance(p), 1000 - 2, 'the refused requests charged nothing');
    });
  });
}
