/**
 * POST /auth/post/check/ against the spec: every response field, and what its error table
 * adds to the rows tested from the endpoint table (test/http/endpoint-table): keys that
 * come back (reactivated, unsuspended), expiry at the Istanbul day's end, rotation.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePermissionList } from '../../src/domain/permissions.js';
import type { PermissionSet } from '../../src/domain/permissions.js';
import { createHarness, defaultNow } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';
import { valueOf } from '../helpers/results.js';

const path = '/auth/post/check/';

/** The 16 permission fields of the check response (spec, Authentication), manage_iys (issue 34) and manage_subaccounts (issue 46), additive. */
const permissionFields = [
  'post_request',
  'send_single_sms',
  'send_group_sms',
  'send_otp',
  'send_otp_advanced',
  'create_group',
  'manage_groups',
  'edit_group',
  'delete_group',
  'list_groups',
  'add_contact',
  'delete_contact',
  'block_number',
  'check_balance',
  'check_sms_status',
  'check_senderid',
  'manage_iys',
  'manage_subaccounts',
].sort();

function permissions(list: string): PermissionSet {
  const set = parsePermissionList(list);
  if ('unknown' in set) throw new Error(`unknown permission ${set.unknown}`);
  return set;
}

function assertFailure(answer: Answer, code: string, status: number): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.status, status, answer.raw);
  assert.equal(answer.body.result, false);
  assert.equal(typeof answer.body.result_message, 'string');
  assert.equal('key_details' in answer.body, false);
  assert.equal('account_summary' in answer.body, false);
}

function record(value: unknown): Record<string, unknown> {
  assert.equal(typeof value, 'object');
  assert.notEqual(value, null);
  return value as Record<string, unknown>;
}

describe('POST /auth/post/check/', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());
  beforeEach(() => h.clock.set(defaultNow));

  describe('HTTP 400 TS-1031: key not found', () => {
    it('a real key with surrounding spaces is not found', async () => {
      const p = await h.provision();
      assertFailure(await h.post(path, { api_key: ` ${p.apiKey} ` }), 'TS-1031', 400);
    });
  });

  describe('HTTP 400 TS-1030: account not active', () => {
    it('a key of a suspended account', async () => {
      const p = await h.provision();
      await valueOf(h.runtime.admin.updateAccount(p.accountId, { status: 'Suspended' }, {}));
      assertFailure(await h.post(path, { api_key: p.apiKey }), 'TS-1030', 400);
      await valueOf(h.runtime.admin.updateAccount(p.accountId, { status: 'Active' }, {}));
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.result_code, 'TS-1000');
    });
  });

  describe('HTTP 403 TS-1035: key paused, expired or revoked', () => {
    it('a paused key, and again Active after reactivation', async () => {
      const p = await h.provision();
      await valueOf(h.runtime.admin.changeKeyState(p.keyId, 'pause'));
      assertFailure(await h.post(path, { api_key: p.apiKey }), 'TS-1035', 403);
      await valueOf(h.runtime.admin.changeKeyState(p.keyId, 'reactivate'));
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.result_code, 'TS-1000');
    });

    it('a key is valid until the end of its expiry day in Istanbul, then expired', async () => {
      const p = await h.provision({ key: { expiresOn: '2026-03-15' } });
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.result_code, 'TS-1000');
      h.clock.set(Date.UTC(2026, 2, 15, 20, 59, 59)); // 23:59:59 Istanbul
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.result_code, 'TS-1000');
      h.clock.set(Date.UTC(2026, 2, 15, 21, 0, 0)); // 00:00:00 on the 16th in Istanbul
      assertFailure(await h.post(path, { api_key: p.apiKey }), 'TS-1035', 403);
    });

    it('a rotated key is rejected at once without keep-old', async () => {
      const p = await h.provision();
      const rotated = await valueOf(h.runtime.admin.rotateKey(p.keyId, false));
      assertFailure(await h.post(path, { api_key: p.apiKey }), 'TS-1035', 403);
      assert.equal((await h.post(path, { api_key: rotated.api_key })).body.result_code, 'TS-1000');
    });

    it('a rotated key with keep-old is Active for 24 more hours, then rejected', async () => {
      const start = h.clock.now();
      const p = await h.provision();
      const rotated = await valueOf(h.runtime.admin.rotateKey(p.keyId, true));
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.result_code, 'TS-1000');
      h.clock.set(start + 24 * 3600_000 - 1000);
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.result_code, 'TS-1000');
      h.clock.set(start + 24 * 3600_000);
      assertFailure(await h.post(path, { api_key: p.apiKey }), 'TS-1035', 403);
      assert.equal((await h.post(path, { api_key: rotated.api_key })).body.result_code, 'TS-1000');
    });
  });

  describe('HTTP 200 TS-1000', () => {
    it('answers with the key details, the account summary and the audit info', async () => {
      const p = await h.provision({ account: { balanceMain: 4321, balanceInternational: 17, globalSending: true } });
      const answer = await h.post(path, { api_key: p.apiKey }, { ip: '198.51.100.23' });
      assert.equal(answer.status, 200, answer.raw);
      assert.equal(answer.body.result, true);
      assert.equal(answer.body.result_code, 'TS-1000');
      assert.equal(typeof answer.body.result_message, 'string');

      const details = record(answer.body.key_details);
      assert.equal(details.status, 'Active');
      const perms = record(details.permissions);
      assert.deepEqual(Object.keys(perms).sort(), permissionFields);
      for (const name of permissionFields) assert.equal(perms[name], true, name);

      const summary = record(answer.body.account_summary);
      assert.equal(summary.account_status, 'Active');
      assert.deepEqual(summary.balance, { main: 4321, international: 17 });
      assert.equal(summary.global_sending, true);

      const audit = record(answer.body.audit_info);
      assert.equal(audit.request_ip, '198.51.100.23');
      assert.equal(audit.checked_at, '2026-03-15 12:00:00');
    });

    it('balances are integers and global_sending is false when not granted', async () => {
      const p = await h.provision({ account: { balanceMain: 0, balanceInternational: 0, globalSending: false } });
      const summary = record((await h.post(path, { api_key: p.apiKey })).body.account_summary);
      assert.deepEqual(summary.balance, { main: 0, international: 0 });
      assert.equal(summary.global_sending, false);
    });

    it('the balance follows a top-up', async () => {
      const p = await h.provision({ account: { balanceMain: 10 } });
      await valueOf(h.runtime.admin.topup(p.accountId, 5, false));
      await valueOf(h.runtime.admin.topup(p.accountId, 3, true));
      const summary = record((await h.post(path, { api_key: p.apiKey })).body.account_summary);
      assert.deepEqual(summary.balance, { main: 15, international: 103 });
    });

    it('reports exactly the permissions the key has, with manage_groups mirroring create_group', async () => {
      const p = await h.provision({ key: { permissions: permissions('check_balance,manage_groups,send_otp') } });
      const perms = record(record((await h.post(path, { api_key: p.apiKey })).body.key_details).permissions);
      assert.deepEqual(Object.keys(perms).sort(), permissionFields);
      const on = Object.entries(perms)
        .filter(([, v]) => v === true)
        .map(([k]) => k)
        .sort();
      assert.deepEqual(on, ['check_balance', 'create_group', 'manage_groups', 'send_otp']);
      for (const value of Object.values(perms)) assert.equal(typeof value, 'boolean');
    });

    it('a key with no permissions still passes the check: it needs none', async () => {
      const p = await h.provision({ key: { permissions: permissions('') } });
      const answer = await h.post(path, { api_key: p.apiKey });
      assert.equal(answer.body.result_code, 'TS-1000');
      const perms = record(record(answer.body.key_details).permissions);
      assert.equal(Object.keys(perms).length, 18);
      assert.ok(Object.values(perms).every((v) => v === false));
      assert.equal(perms.delete_contact, false);
    });

    it('checked_at is Istanbul time from the injected clock, across a month end', async () => {
      const p = await h.provision();
      h.clock.set(Date.UTC(2026, 2, 31, 21, 30, 5)); // 2026-04-01 00:30:05 in Istanbul
      const audit = record((await h.post(path, { api_key: p.apiKey })).body.audit_info);
      assert.equal(audit.checked_at, '2026-04-01 00:30:05');
      h.clock.set(Date.UTC(2026, 11, 31, 20, 59, 59)); // 2026-12-31 23:59:59 in Istanbul
      assert.equal(
        record((await h.post(path, { api_key: p.apiKey })).body.audit_info).checked_at,
        '2026-12-31 23:59:59',
      );
    });

    it('checked_at has the form YYYY-MM-DD HH:MM:SS with no zone', async () => {
      const p = await h.provision();
      const audit = record((await h.post(path, { api_key: p.apiKey })).body.audit_info);
      assert.match(String(audit.checked_at), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });

    it('request_ip is the socket address, for IPv6 too', async () => {
      const p = await h.provision();
      const audit = record((await h.post(path, { api_key: p.apiKey }, { ip: '2001:db8::7' })).body.audit_info);
      assert.equal(audit.request_ip, '2001:db8::7');
    });

    it('a sandbox key reports the same fields', async () => {
      const p = await h.provision({ key: { sandbox: true } });
      assert.match(p.apiKey, /^hb_test_/);
      const answer = await h.post(path, { api_key: p.apiKey });
      assert.equal(answer.body.result_code, 'TS-1000');
      assert.equal(record(answer.body.key_details).status, 'Active');
    });
  });
});
