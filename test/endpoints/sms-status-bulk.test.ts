/**
 * /sms/status does not answer for bulk sends (spec, /sms/status: "Identifiers of scheduled
 * and group sends are report identifiers and are not accepted"): neither a /group/send or
 * /group/sendMixed rapor_id nor the ids of the messages such a send writes out, while the
 * message of an immediate /sms/send written out the same way is answered.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertBulkAccepted, drain, groupSend, groupSendMixed } from '../helpers/bulk.js';
import { assertAccepted, assertRefused, intField, sendSms, smsStatus } from '../helpers/sms.js';

describe('/sms/status and bulk sends', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());

  for (const [path, send] of [
    ['/group/send', groupSend],
    ['/group/sendMixed', groupSendMixed],
  ] as const) {
    it(`answers the rapor_id of ${path} and the ids of its messages with TS-1020 and HTTP 403`, async () => {
      const p = await h.provision();
      const live = new RecordingCarrier('live');
      const delivery = await simulatedDelivery(h.runtime, { live });
      try {
        const bulk = assertBulkAccepted(await send(h, p.apiKey));
        const single = await sendSms(h, p.apiKey, { sentto: '905559990001' });
        assertAccepted(single);
        const singleId = intField(single, 'sms_id');
        await drain(delivery);
        const bulkIds = live.submitted.map((m) => m.messageId).filter((id) => id !== singleId);
        assert.equal(bulkIds.length, 1, 'the bulk send wrote out its one message');
        assert.equal(live.submitted.length, 2, 'and the single send its own');

        // Control: the single send's message, written out alongside, is answered.
        assert.equal((await smsStatus(h, p.apiKey, singleId)).body.result_code, 'TS-1022');
        assertRefused(await smsStatus(h, p.apiKey, bulk.raporId), 'TS-1020', 403);
        for (const id of bulkIds) assertRefused(await smsStatus(h, p.apiKey, id), 'TS-1020', 403);
      } finally {
        await delivery.stop();
      }
    });
  }
});
