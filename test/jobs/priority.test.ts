/**
 * Interactive sends are not starved behind a campaign: a single /sms/send accepted while a
 * 50,000-number /group/send waits in the queue is submitted before the rest of the
 * campaign, both when the test drives the dispatcher a round at a time and when its own loop
 * runs. A scheduled send is bulk (domain/lanes.ts): once due, another account's goes out in
 * the next claim, its account's share of the bulk lane, not after the campaign.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, createLiveHarness } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertAccepted, intField, sendSms, turkishNumbers } from '../helpers/sms.js';
import { assertBulkAccepted, groupSend } from '../helpers/bulk.js';
import { defaultDispatcherOptions } from '../../src/jobs/dispatcher.js';
import { waitFor } from '../helpers/wait-for.js';

const campaignSize = 50_000;

for (const dialect of testDialects()) {
  describeOn(dialect, `interactive sends before a campaign, on ${dialect.name}`, () => {
    it('submits a single send and a scheduled send that comes due before the campaign queued ahead of them', async () => {
      const h = await createHarness(await dialect.location());
      const live = new RecordingCarrier('live');
      const delivery = await simulatedDelivery(h.runtime, { live });
      try {
        const p = await h.provision({ account: { balanceMain: 100_000 } });
        const campaign = new Set(turkishNumbers(campaignSize));
        assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: [...campaign] }));
        const other = await h.provision({ account: { balanceMain: 100 } });
        const scheduled = await sendSms(h, other.apiKey, {
          sentto: '905559990002',
          scheduled_date: '2026-03-15',
          scheduled_time: '12:00:05',
        });
        assertAccepted(scheduled);

        // The first round writes the whole campaign out and submits one batch of it.
        const first = await delivery.runOnce();
        assert.ok(first > 0);
        assert.ok(
          live.submitted.every((m) => campaign.has(m.to)),
          'only campaign messages so far',
        );

        const single = await sendSms(h, p.apiKey, { sentto: '905559990001' });
        assertAccepted(single);
        await delivery.runOnce();
        assert.equal(
          live.submitted[first]?.messageId,
          intField(single, 'sms_id'),
          'the single send is the next one submitted',
        );

        h.clock.advance(5_000);
        const before = live.submitted.length;
        await delivery.runOnce();
        assert.ok(
          live.submitted.slice(before).some((m) => m.to === '905559990002'),
          "once due, the other account's scheduled send goes in the next claim",
        );
        assert.ok(live.submitted.length < campaignSize, 'most of the campaign is still waiting');
      } finally {
        await delivery.stop();
        await h.close();
      }
    });

    it("with the dispatcher's own loop running, a single send accepted mid-campaign is claimed within a batch or two", async () => {
      const h = await createLiveHarness(await dialect.location());
      const live = new RecordingCarrier('live');
      const delivery = await simulatedDelivery(h.runtime, { live, background: true });
      try {
        const p = await h.provision({ account: { balanceMain: 100_000 } });
        assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: turkishNumbers(campaignSize) }));
        await waitFor('the campaign to start going out', () => live.submitted.length > 0, {
          timeoutMs: 10_000,
          intervalMs: 1,
        });
        const single = await sendSms(h, p.apiKey, { sentto: '905559990001' });
        assertAccepted(single);
        const submittedWhenAccepted = live.submitted.length;
        assert.ok(submittedWhenAccepted < campaignSize, 'the campaign was still going out');
        const id = intField(single, 'sms_id');
        await waitFor('the single send to be submitted', () => live.submitted.some((m) => m.messageId === id), {
          timeoutMs: 10_000,
          intervalMs: 1,
        });
        const position = live.submitted.findIndex((m) => m.messageId === id);
        // Claims already under way when it was accepted may go first: at most one batch,
        // and what fits in the in-flight window.
        const bound = submittedWhenAccepted + defaultDispatcherOptions.batchSize + defaultDispatcherOptions.maxInFlight;
        assert.ok(
          position <= bound,
          `submitted at position ${position}; ${submittedWhenAccepted} submits had happened when it was accepted`,
        );
        assert.ok(position < campaignSize / 2, `submitted before most of the campaign (position ${position})`);
      } finally {
        await delivery.stop();
        await h.close();
      }
    });
  });
}
