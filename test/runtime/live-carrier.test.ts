/**
 * The live carrier is chosen in one place (src/composition/dispatch.ts, `liveCarriers`): with no carrier option
 * set, live keys get the built-in simulator; with one set, its loader checks the
 * configuration, and a configuration it refuses stops the dispatcher from starting with the
 * loader's reason (which `serve` prints as "cannot start the delivery worker: ...").
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { openAppContainer, startDispatcher } from '../../src/main.js';
import { buildApp } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { waitForState } from '../helpers/delivery.js';
import { valueOf } from '../helpers/results.js';

const silent = pino({ level: 'silent' });

describe('the live carrier, chosen from one list', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-live-carrier-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is the simulator when no carrier option is set: a message of a live key gets its outcome', async () => {
    const container = await openAppContainer({ dialect: 'sqlite', file: ':memory:' });
    const app = await buildApp({
      connections: defaultConnectionLimits,
      services: container.services,
      requestsPerSecond: 0,
    });
    const dispatcher = await startDispatcher({
      container,
      config: { smppConfig: '', simDelayMs: 0, leaseMs: 60_000 },
      logger: silent,
    });
    try {
      const account = await valueOf(
        container.admin.createAccount({
          name: 'Live',
          balanceMain: 10,
          balanceInternational: 0,
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
        }),
      );
      await valueOf(container.admin.addSenderId(account.id, 'ACME', 'approved'));
      const key = await valueOf(container.admin.createKey(account.id, defaultKeySettings));
      const sent = await app.inject({
        method: 'POST',
        url: '/sms/send',
        payload: { api_key: key.api_key, sentto: '905321230000', title: 'ACME', text: 'hi', sms_lang: 0 },
      });
      const body = sent.json() as { result_code: string; sms_id: number };
      assert.equal(body.result_code, 'TS-1024');
      // 0000: the simulator's "not delivered" (any other carrier would leave it unsent here).
      await waitForState(container, account.id, body.sms_id, ['failed']);
    } finally {
      await dispatcher.stop();
      await app.close();
      await container.close();
    }
  });

  it('is the configured one, whose loader refuses a bad configuration with its reason', async () => {
    const file = join(dir, 'smpp.json');
    writeFileSync(
      file,
      JSON.stringify({
        connections: [{ name: 'operator', host: '127.0.0.1', port: 2775, systemId: 'a', password: 'b' }],
        defaultRoute: 'other',
      }),
    );
    const container = await openAppContainer({ dialect: 'sqlite', file: ':memory:' });
    try {
      await assert.rejects(
        startDispatcher({ container, config: { smppConfig: file, simDelayMs: 0, leaseMs: 60_000 }, logger: silent }),
        /defaultRoute: "other" is not a connection name/,
      );
      await assert.rejects(
        startDispatcher({
          container,
          config: { smppConfig: join(dir, 'missing.json'), simDelayMs: 0, leaseMs: 60_000 },
          logger: silent,
        }),
        /missing\.json/,
      );
    } finally {
      await container.close();
    }
  });
});
