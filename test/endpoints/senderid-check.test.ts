/**
 * POST /senderid/check against the spec: the sender ID records, newest first, approved
 * only. Its error table (key, state, address, permission, body, limits) is tested from the
 * endpoint table (test/http/endpoint-table).
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, defaultNow } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';
import { valueOf } from '../helpers/results.js';

const path = '/senderid/check';

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
        const s = await valueOf(h.runtime.admin.addSenderId(p.accountId, title, status));
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
      const p = await h.provision({
        senderIds: [
          { title: 'WAITING', status: 'pending' },
          { title: 'REFUSED', status: 'rejected' },
        ],
      });
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
