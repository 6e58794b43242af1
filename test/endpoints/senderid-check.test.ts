/**
 * POST /senderid/check against the spec: the sender ID records, newest first, approved
 * only, and every row of its error table with the codes and statuses written out.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allPermissions } from '../../src/domain/permissions.js';
import { createHarness, defaultNow } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';

const path = '/senderid/check';

function assertFailure(answer: Answer, code: string, status: number): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.status, status, answer.raw);
  assert.equal(answer.body.result, false);
  assert.equal(typeof answer.body.result_message, 'string');
  assert.equal('sender_ids' in answer.body, false);
}

interface SenderIdRecord {
  id: number;
  title: string;
  status: number;
}

function senderIds(answer: Answer): SenderIdRecord[] {
  assert.ok(Array.isArray(answer.body.sender_ids), answer.raw);
  return answer.body.sender_ids as SenderIdRecord[];
}

describe('POST /senderid/check', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());
  beforeEach(() => h.clock.set(defaultNow));

  describe('HTTP 400', () => {
    it('TS-1050: api_key missing', async () => {
      assertFailure(await h.post(path, {}), 'TS-1050', 400);
      assertFailure(await h.post(path, { api_key: '' }), 'TS-1050', 400);
    });

    it('TS-1031: key under 30 characters', async () => {
      assertFailure(await h.post(path, { api_key: 'k' }), 'TS-1031', 400);
      assertFailure(await h.post(path, { api_key: 'k'.repeat(29) }), 'TS-1031', 400);
    });

    it('TS-1033: body invalid', async () => {
      assertFailure(await h.post(path, undefined, { raw: 'not json' }), 'TS-1033', 400);
      assertFailure(await h.post(path, 'a string'), 'TS-1033', 400);
    });
  });

  describe('HTTP 403', () => {
    it('TS-1031: key not found', async () => {
      assertFailure(await h.post(path, { api_key: 'k'.repeat(30) }), 'TS-1031', 403);
    });

    it('TS-1038: check_senderid off', async () => {
      const p = await h.provision({ key: { permissions: { ...allPermissions(true), check_senderid: false } } });
      assertFailure(await h.post(path, { api_key: p.apiKey }), 'TS-1038', 403);
    });

    it('TS-1030: account suspended', async () => {
      const p = await h.provision();
      await h.runtime.admin.updateAccount(p.accountId, { status: 'Suspended' }, {});
      assertFailure(await h.post(path, { api_key: p.apiKey }), 'TS-1030', 403);
    });

    it('TS-1035: key paused, revoked or expired', async () => {
      const paused = await h.provision();
      await h.runtime.admin.changeKeyState(paused.keyId, 'pause');
      assertFailure(await h.post(path, { api_key: paused.apiKey }), 'TS-1035', 403);
      const revoked = await h.provision();
      await h.runtime.admin.changeKeyState(revoked.keyId, 'revoke');
      assertFailure(await h.post(path, { api_key: revoked.apiKey }), 'TS-1035', 403);
      const expired = await h.provision({ key: { expiresOn: '2026-03-14' } });
      assertFailure(await h.post(path, { api_key: expired.apiKey }), 'TS-1035', 403);
    });

    it('TS-1066: address not allowed', async () => {
      const p = await h.provision({ account: { ipAllow: ['10.0.0.0/8'] } });
      assertFailure(await h.post(path, { api_key: p.apiKey }, { ip: '11.0.0.1' }), 'TS-1066', 403);
    });
  });

  describe('HTTP 429', () => {
    it('TS-1068, TS-1069, TS-1073: request limits', async () => {
      for (const [limit, code] of [
        ['hourlyLimit', 'TS-1068'],
        ['dailyLimit', 'TS-1069'],
        ['monthlyLimit', 'TS-1073'],
      ] as const) {
        const p = await h.provision({ key: { [limit]: 1 } });
        assert.equal((await h.post(path, { api_key: p.apiKey })).body.result_code, 'TS-1040');
        assertFailure(await h.post(path, { api_key: p.apiKey }), code, 429);
      }
    });
  });

  describe('HTTP 200 TS-1040', () => {
    it('lists approved sender IDs newest first, with id, title and status 1', async () => {
      const p = await h.provision({ senderIds: [] });
      const added: { id: number; title: string }[] = [];
      for (const [title, status] of [
        ['OLDEST', 'approved'],
        ['WAITING', 'pending'],
        ['MIDDLE', 'approved'],
        ['REFUSED', 'rejected'],
        ['NEWEST', 'approved'],
      ] as const) {
        h.clock.advance(60_000);
        const s = await h.runtime.admin.addSenderId(p.accountId, title, status);
        if (status === 'approved') added.push({ id: s.id, title });
      }
      const answer = await h.post(path, { api_key: p.apiKey });
      assert.equal(answer.status, 200);
      assert.equal(answer.body.result, true);
      assert.equal(answer.body.result_code, 'TS-1040');
      assert.equal(typeof answer.body.result_message, 'string');
      assert.equal(answer.body.sender_ids_count, 3);
      const list = senderIds(answer);
      assert.deepEqual(
        list.map((s) => s.title),
        ['NEWEST', 'MIDDLE', 'OLDEST'],
      );
      assert.deepEqual(
        list.map((s) => s.id),
        added.map((s) => s.id).reverse(),
      );
      for (const s of list) {
        assert.ok(Number.isInteger(s.id));
        assert.equal(s.status, 1);
        assert.equal(typeof s.title, 'string');
      }
    });

    it('sender IDs added in the same instant are listed newest first by their record', async () => {
      const p = await h.provision({ senderIds: [{ title: 'FIRST' }, { title: 'SECOND' }, { title: 'THIRD' }] });
      const list = senderIds(await h.post(path, { api_key: p.apiKey }));
      assert.deepEqual(
        list.map((s) => s.title),
        ['THIRD', 'SECOND', 'FIRST'],
      );
    });

    it('with none approved the array is empty and the count 0', async () => {
      const p = await h.provision({ senderIds: [{ title: 'WAITING', status: 'pending' }, { title: 'REFUSED', status: 'rejected' }] });
      const answer = await h.post(path, { api_key: p.apiKey });
      assert.equal(answer.body.result_code, 'TS-1040');
      assert.equal(answer.body.sender_ids_count, 0);
      assert.deepEqual(answer.body.sender_ids, []);
    });

    it('an account with no sender IDs at all gets an empty array', async () => {
      const p = await h.provision({ senderIds: [] });
      const answer = await h.post(path, { api_key: p.apiKey });
      assert.equal(answer.body.sender_ids_count, 0);
      assert.deepEqual(answer.body.sender_ids, []);
    });

    it("lists only the caller's account sender IDs", async () => {
      const a = await h.provision({ senderIds: [{ title: 'ALPHA' }] });
      const b = await h.provision({ senderIds: [{ title: 'BRAVO' }, { title: 'BRAVO2' }] });
      assert.deepEqual(
        senderIds(await h.post(path, { api_key: a.apiKey })).map((s) => s.title),
        ['ALPHA'],
      );
      const answerB = await h.post(path, { api_key: b.apiKey });
      assert.equal(answerB.body.sender_ids_count, 2);
      assert.deepEqual(
        senderIds(answerB).map((s) => s.title),
        ['BRAVO2', 'BRAVO'],
      );
    });

    it('titles are returned exactly as stored, case and Turkish letters kept', async () => {
      const p = await h.provision({ senderIds: [{ title: 'ÇağrıMrk' }] });
      assert.deepEqual(
        senderIds(await h.post(path, { api_key: p.apiKey })).map((s) => s.title),
        ['ÇağrıMrk'],
      );
    });
  });
});
