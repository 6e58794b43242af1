/**
 * /group/cancel of a send the dispatcher is working through (issue 45): with the dispatcher's
 * own loop running and a carrier that takes two messages at once at its own pace, most of
 * the claimed messages wait in the dispatcher's lanes when the cancel comes. They are given
 * back cancelled before the answer, so the carrier gets nothing of the send after it; what it
 * had runs its course; sent + cancelled = accepted, and the credit given back is exactly the
 * cancelled messages'. On every dialect.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { intField } from '../helpers/sms.js';
import { assertBulkAccepted, groupSend, numbersEnding, reportBasic } from '../helpers/bulk.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Two messages at once, each answered after 5 ms: a slow link, so claimed messages queue in
 * the lanes. Each accepted message is reported delivered just after.
 */
class PacedCarrier extends RecordingCarrier {
  constructor() {
    super('live', async (m) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const carrierMessageId = `c-${m.messageId}`;
      setTimeout(() => void this.listener?.onReceipt({ carrierMessageId, status: 'delivered' }), 5);
      return { kind: 'accepted', carrierMessageIds: [carrierMessageId] };
    });
  }

  capacity(): number {
    return 2;
  }
}

for (const dialect of testDialects()) {
  describeOn(dialect, `cancel of a running send (${dialect.name})`, () => {
    let h: Harness;
    let live: PacedCarrier;
    let delivery: Awaited<ReturnType<typeof simulatedDelivery>>;
    before(async () => {
      h = await createHarness(await dialect.location());
      live = new PacedCarrier();
      delivery = await simulatedDelivery(h.runtime, { live, background: true });
    });
    after(async () => {
      await delivery.stop();
      await h.close();
    });

    it('gives back what waits in the dispatcher before the answer: nothing reaches the carrier after it', async () => {
      const p = await h.provision();
      const sentto = numbersEnding('1234', 600, '9056');
      const mine = new Set(sentto);
      const submitted = (): number => live.submitted.filter((m) => mine.has(m.to)).length;
      const sent = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto, text: 'Hello' }));
      await waitFor('the carrier has some of the send', () => submitted() >= 20, { intervalMs: 2 });
      const cancel = await h.post('/group/cancel', { api_key: p.apiKey, rapor_id: sent.raporId });
      const atAnswer = submitted();
      assert.equal(cancel.body.result_code, 'TS-1064', cancel.raw);
      const cancelled = Number(cancel.body.cancelled);
      assert.ok(atAnswer < 600 && cancelled > 0, `${atAnswer} submitted, ${cancelled} cancelled`);
      // Settled: what was sent delivered, the rest cancelled; no message left with a dispatcher.
      await waitFor('every message settled', async () => {
        const basic = await reportBasic(h, p.apiKey, sent.raporId);
        return Number(basic.body.pending_count) === 0 && Number(basic.body.cancelled_count) === cancelled;
      });
      assert.equal(submitted(), atAnswer, 'nothing of the send reached the carrier after the answer');
      assert.equal(atAnswer + cancelled, 600, 'sent + cancelled = accepted');
      assert.equal(cancel.body.refunded, cancelled, 'the credit of exactly the cancelled messages came back');
      assert.equal(intField(await h.post('/balance/', { api_key: p.apiKey }), 'balance_main'), 1000 - atAnswer);
    });
  });
}
