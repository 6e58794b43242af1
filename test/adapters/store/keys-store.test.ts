/**
 * API keys on every dialect: read back as created, one hash per key.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allPermissions } from '../../../src/domain/permissions.js';
import { defaultKeySettings } from '../../../src/services/admin.js';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { accountInput, now, storeSuite } from '../../helpers/store-suite.js';

for (const dialect of testDialects()) {
  describeOn(dialect, `store (${dialect.name})`, () => {
    const suite = storeSuite(dialect);
    let store: SqlStore;
    before(() => {
      ({ store } = suite);
    });

    describe('keys', () => {
      it('a key reads back with the settings it was created with', async () => {
        const account = await store.accounts.createAccount(accountInput('Keys'), now);
        const settings = {
          ...defaultKeySettings,
          permissions: { ...allPermissions(false), check_balance: true, send_otp: true },
          ipAllow: ['10.0.0.0/8', '2001:db8::/32'],
          hourlyLimit: 5,
          dailyLimit: 50,
          monthlyLimit: 500,
          expiresOn: '2026-12-31',
          webhookUrl: 'https://example.test/hook',
          webhookSecret: 's3cret',
          webhookAttempts: 7,
          webhookEvents: ['sms.delivered' as const, 'sms.received' as const],
          webhookRetryScheduleMs: [30_000, 7_200_000],
          webhookBatch: 25,
          webhookBatchWaitMs: 750,
          sandbox: true,
        };
        const created = await store.keys.createKey(account.id, 'round-trip-hash', 'hb_test_abcd…', settings, now);
        const found = await store.keys.findKeyByHash('round-trip-hash');
        assert.equal(found?.account.id, account.id);
        assert.deepEqual(found?.key, created);
        assert.deepEqual(
          {
            permissions: created.permissions,
            ipAllow: created.ipAllow,
            hourlyLimit: created.hourlyLimit,
            dailyLimit: created.dailyLimit,
            monthlyLimit: created.monthlyLimit,
            expiresOn: created.expiresOn,
            webhookUrl: created.webhookUrl,
            webhookSecret: created.webhookSecret,
            webhookAttempts: created.webhookAttempts,
            webhookEvents: created.webhookEvents,
            webhookRetryScheduleMs: created.webhookRetryScheduleMs,
            webhookBatch: created.webhookBatch,
            webhookBatchWaitMs: created.webhookBatchWaitMs,
            sandbox: created.sandbox,
          },
          settings,
        );
        assert.equal(created.state, 'Active');
        assert.equal(created.validUntil, null);
        assert.equal(await store.keys.findKeyByHash('no-such-hash'), null);
      });

      it('two keys cannot share a hash', async () => {
        const account = await store.accounts.createAccount(accountInput('Unique'), now);
        await store.keys.createKey(account.id, 'same-hash', 'h', defaultKeySettings, now);
        await assert.rejects(store.keys.createKey(account.id, 'same-hash', 'h', defaultKeySettings, now));
      });
    });
  });
}
