/**
 * Every event type end to end, wired as `serve` wires it: /sms/send over HTTP, the
 * dispatcher with the simulator, the webhook courier, and the provider's key.test, each
 * arriving at a real receiver signed and with the header timestamp of the signed body.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { buildApp } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import { openAppContainer, startDispatcher, startWebhooks, webhookAdmin } from '../../src/main.js';
import { systemClock } from '../../src/ports/clock.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { sign } from '../../src/domain/webhook.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait-for.js';
import { valueOf } from '../helpers/results.js';

const silent = pino({ level: 'silent' });
const secret = 'whsec_events';
const webhookConfig = {
  webhookAllowPrivate: true,
  webhookTimeoutMs: 2_000,
  webhookRetryBaseMs: 20,
  webhookConcurrency: 8,
};

interface Body {
  event_type: string;
  event_id: string;
  timestamp: string;
  data: { sms_id: number; status?: string };
}

for (const dialect of testDialects()) {
  describeOn(dialect, `webhook events end to end (${dialect.name})`, () => {
    it('delivers sms.sent, sms.delivered, sms.failed (expired too) and key.test, each signed', async () => {
      const runtime = await openAppContainer(await dialect.location(), systemClock);
      const receiver = await startReceiver();
      const app = await buildApp({
        connections: defaultConnectionLimits,
        services: runtime.services,
        requestsPerSecond: 0,
      });
      const dispatcher = await startDispatcher({
        container: runtime,
        config: { smppConfig: '', simDelayMs: 0, leaseMs: 60_000 },
        logger: silent,
      });
      const webhooks = startWebhooks({ container: runtime, config: webhookConfig, logger: silent });
      const hooks = webhookAdmin(runtime, webhookConfig);
      try {
        const account = await valueOf(
          runtime.admin.createAccount({
            name: 'E2E',
            balanceMain: 100,
            balanceInternational: 0,
            perMinuteLimit: 0,
            otpBrand: '',
            ipAllow: [],
            globalSending: false,
          }),
        );
        await valueOf(runtime.admin.addSenderId(account.id, 'ACME', 'approved'));
        const key = await valueOf(
          runtime.admin.createKey(account.id, {
            ...defaultKeySettings,
            webhookUrl: `${receiver.url}/hook`,
            webhookSecret: secret,
          }),
        );
        // Simulator outcomes by the last four digits: delivered, failed, expired, no report.
        const numbers = ['905321231234', '905321230000', '905321230001', '905321230002'];
        const sent = await app.inject({
          method: 'POST',
          url: '/sms/send',
          payload: { api_key: key.api_key, sentto: numbers.join(','), title: 'ACME', text: 'hi', sms_lang: 0 },
        });
        assert.equal((sent.json() as { result_code: string }).result_code, 'TS-1024');

        await waitFor('seven webhooks', () => receiver.requests.length >= 7, { intervalMs: 10 });
        const test = await valueOf(hooks.admin.testWebhook(key.id));
        assert.equal(test.state, 'delivered');
        assert.deepEqual([test.event_type, test.attempts.length, test.attempts[0]?.http_status], ['key.test', 1, 200]);

        const bodies = receiver.requests.map((r) => {
          assert.equal(r.path, '/hook');
          assert.equal(r.headers['x-service-signature'], sign(r.body, secret), 'signed with the key\u2019s secret');
          const body = JSON.parse(r.body) as Body;
          assert.equal(r.headers['x-service-timestamp'], body.timestamp, 'header timestamp is the signed one');
          assert.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
          return body;
        });
        const bySms = new Map<number, string[]>();
        for (const b of bodies)
          bySms.set(b.data.sms_id, [...(bySms.get(b.data.sms_id) ?? []), `${b.event_type}:${b.data.status ?? '-'}`]);
        const ids = [...bySms.keys()].filter((id) => id !== 0).sort((a, b) => a - b);
        assert.equal(ids.length, 4);
        const [delivered = 0, failed = 0, expired = 0, silentOne = 0] = ids;
        assert.deepEqual(bySms.get(delivered)?.sort(), ['sms.delivered:delivered', 'sms.sent:sent']);
        assert.deepEqual(bySms.get(failed)?.sort(), ['sms.failed:failed', 'sms.sent:sent']);
        assert.deepEqual(
          bySms.get(expired)?.sort(),
          ['sms.failed:failed', 'sms.sent:sent'],
          'an expired message is sms.failed',
        );
        assert.deepEqual(bySms.get(silentOne), ['sms.sent:sent']);
        assert.deepEqual(bySms.get(0), ['key.test:-'], 'key.test has no status and sms_id 0');
        assert.equal(new Set(bodies.map((b) => b.event_id)).size, 8, 'one event_id per event');
        // The receiver has each request before the courier records its answer: wait for the records.
        const listed = await waitFor('eight deliveries recorded', async () => {
          const page = await valueOf(hooks.admin.deliveries(key.id, 20));
          return page.deliveries.every((d) => d.state === 'delivered') ? page : null;
        });
        assert.equal(listed.deliveries.length, 8);
        assert.ok(
          listed.deliveries.every((d) => d.attempts.length === 1),
          'each delivered at its first attempt',
        );
        assert.equal(JSON.stringify(listed).includes(secret), false, 'the secret is never shown');
      } finally {
        hooks.close();
        await app.close();
        await dispatcher.stop();
        await webhooks.stop();
        await receiver.close();
        await runtime.close();
      }
    });
  });
}
