/**
 * The number blocking list is applied to no send endpoint (spec, /blacklist/post/add: "it
 * is not applied to /sms/send, /otp/* and /group/*"): a number on the account's list is
 * accepted, counted as a number and not as blocked, and submitted to the carrier.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertBulkAccepted, drain, groupSend, groupSendMixed, reportBasic, summaryOf } from '../helpers/bulk.js';

const blocked = '905321234567';
const other = '905551112233';

type Send = (h: Harness, apiKey: string) => Promise<Answer>;

const sends: [string, Send, 'bulk' | 'single'][] = [
  ['/group/send', (h, apiKey) => groupSend(h, apiKey, { sentto: [blocked, other] }), 'bulk'],
  [
    '/group/sendMixed',
    (h, apiKey) => groupSendMixed(h, apiKey, { sentto: [blocked, other], text: ['One', 'Two'] }),
    'bulk',
  ],
  [
    '/otp/detailed',
    (h, apiKey) => h.post('/otp/detailed', { api_key: apiKey, mobile: blocked, title: 'ACME', text: 'Code TS-CODE' }),
    'single',
  ],
  ['/otp/send', (h, apiKey) => h.post('/otp/send', { api_key: apiKey, mobile: '0532 123 45 67' }), 'single'],
  [
    '/sms/send',
    (h, apiKey) =>
      h.post('/sms/send', { api_key: apiKey, sentto: `${blocked},${other}`, title: 'ACME', text: 'Hello' }),
    'single',
  ],
];

describe('the number blocking list and the send endpoints', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());

  for (const [path, send, kind] of sends) {
    it(`${path} sends to a number on the account's blocking list`, async () => {
      const p = await h.provision();
      assert.equal(
        (await h.post('/blacklist/post/add', { api_key: p.apiKey, number: '05321234567' })).body.result_code,
        'TS-1141',
      );
      // Control: the account's list does hold the number.
      assert.equal(
        (await h.post('/blacklist/post/status', { api_key: p.apiKey, number: blocked })).body.result_code,
        'TS-1143',
      );
      const live = new RecordingCarrier('live');
      const delivery = await simulatedDelivery(h.runtime, { live });
      try {
        const answer = await send(h, p.apiKey);
        if (kind === 'bulk') {
          const result = assertBulkAccepted(answer);
          assert.equal(result.totalNumbers, 2);
          await drain(delivery);
          const summary = summaryOf(await reportBasic(h, p.apiKey, result.raporId));
          assert.equal(summary.details.blocked_numbers, 0, JSON.stringify(summary));
          assert.equal(summary.failed_count, 0, JSON.stringify(summary));
        } else {
          assert.equal(answer.body.result_code, 'TS-1024', answer.raw);
          await drain(delivery);
        }
        assert.ok(
          live.submitted.some((m) => m.to === blocked),
          `${blocked} was submitted: ${JSON.stringify(live.submitted.map((m) => m.to))}`,
        );
      } finally {
        await delivery.stop();
      }
    });
  }
});
