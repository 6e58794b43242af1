/**
 * POST /contacts/add with the request fields docs/api.md documents, on every store dialect:
 * numbers normalised like recipients, de-duplicated per group, invalid ones counted in
 * total_failed, groups private to their account.
 */
import { beforeEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultNow, harnessFor } from '../helpers/harness.js';
import type { Answer } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';

const path = '/contacts/add';

function assertFailure(answer: Answer, code: string, status: number): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.status, status, answer.raw);
  assert.equal(answer.body.result, false);
  assert.equal(typeof answer.body.result_message, 'string');
  assert.equal('total_added' in answer.body, false);
}

function counts(answer: Answer): {
  group_id: unknown;
  total_sent: unknown;
  total_added: unknown;
  total_failed: unknown;
  mobile: unknown;
} {
  assert.equal(answer.status, 200, answer.raw);
  assert.equal(answer.body.result, true, answer.raw);
  assert.equal(answer.body.result_code, 'TS-1064');
  const { group_id, total_sent, total_added, total_failed, mobile } = answer.body;
  return { group_id, total_sent, total_added, total_failed, mobile };
}

for (const dialect of testDialects()) {
  describeOn(dialect, `POST /contacts/add (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    beforeEach(() => h.clock.set(defaultNow));

    async function group(apiKey: string, name = 'G'): Promise<number> {
      const answer = await h.post('/groups/create', { api_key: apiKey, name });
      return (answer.body.group as { id: number }).id;
    }

    it('splits a string on commas, semicolons and line breaks and normalises every form', async () => {
      const p = await h.provision();
      const id = await group(p.apiKey);
      const answer = await h.post(path, {
        api_key: p.apiKey,
        group_id: id,
        mobile: '05321234567, 5331234567;+90 (534) 123-45-67\n00905351234567\r\n 0532 123 45 67 ,,',
      });
      assert.deepEqual(counts(answer), {
        group_id: id,
        total_sent: 5,
        total_added: 4,
        total_failed: 0,
        mobile: '905321234567,905331234567,905341234567,905351234567',
      });
    });

    it('takes a JSON array (strings or numbers), and `numbers` for `mobile`; invalid entries are counted in total_failed', async () => {
      const p = await h.provision();
      const id = await group(p.apiKey);
      const answer = await h.post(path, {
        api_key: p.apiKey,
        group_id: id,
        mobile: ['05321234567', 905331234567, 'abc', '123', '9053212345', null, '4915112345678'],
      });
      assert.deepEqual(counts(answer), {
        group_id: id,
        total_sent: 7,
        total_added: 3,
        total_failed: 4,
        mobile: '905321234567,905331234567,4915112345678',
      });
      const alias = await h.post(path, { api_key: p.apiKey, group_id: id, numbers: ['05341234567'] });
      assert.equal(counts(alias).total_added, 1);
    });

    it('adds a number once per group: repeats and numbers already in the group are neither added nor failed', async () => {
      const p = await h.provision();
      const id = await group(p.apiKey, 'A');
      counts(await h.post(path, { api_key: p.apiKey, group_id: id, mobile: '05321234567' }));
      const again = await h.post(path, {
        api_key: p.apiKey,
        group_id: id,
        mobile: ['905321234567', '5321234567', '05331234567', 'x'],
      });
      assert.deepEqual(counts(again), {
        group_id: id,
        total_sent: 4,
        total_added: 1,
        total_failed: 1,
        mobile: '905321234567,905331234567',
      });
      // Another group is another list.
      const other = await group(p.apiKey, 'B');
      assert.equal(
        counts(await h.post(path, { api_key: p.apiKey, group_id: other, mobile: '05321234567' })).total_added,
        1,
      );
    });

    it('answers success with nothing added when every entry is invalid', async () => {
      const p = await h.provision();
      const id = await group(p.apiKey);
      assert.deepEqual(counts(await h.post(path, { api_key: p.apiKey, group_id: id, mobile: 'abcdefg,1234' })), {
        group_id: id,
        total_sent: 2,
        total_added: 0,
        total_failed: 2,
        mobile: '',
      });
    });

    it('TS-1029 (HTTP 200): no such group or another account\u2019s; (HTTP 400) group_id missing or invalid', async () => {
      const p = await h.provision();
      const theirs = await group((await h.provision()).apiKey);
      assertFailure(await h.post(path, { api_key: p.apiKey, group_id: theirs, mobile: '05321234567' }), 'TS-1029', 200);
      assertFailure(
        await h.post(path, { api_key: p.apiKey, group_id: 987_654, mobile: '05321234567' }),
        'TS-1029',
        200,
      );
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile: '05321234567' }), 'TS-1029', 400);
      assertFailure(await h.post(path, { api_key: p.apiKey, group_id: -1, mobile: '05321234567' }), 'TS-1029', 400);
    });

    it('TS-1025 (HTTP 400): mobile missing, empty or of another type', async () => {
      const p = await h.provision();
      const id = await group(p.apiKey);
      for (const mobile of [undefined, '', ' ,; \n', [], [' '], { a: 1 }, true]) {
        assertFailure(await h.post(path, { api_key: p.apiKey, group_id: id, mobile }), 'TS-1025', 400);
      }
    });

    it('TS-1060 (HTTP 400): more than 50,000 numbers in one request; nothing added', async () => {
      const p = await h.provision();
      const id = await group(p.apiKey);
      const many = Array.from({ length: 50_001 }, (_, i) => `53${String(i).padStart(8, '0')}`).join(',');
      const answer = await h.post(path, { api_key: p.apiKey, group_id: id, mobile: many });
      assertFailure(answer, 'TS-1060', 400);
      assert.match(String(answer.body.result_message), /50000/);
      assert.equal(
        counts(await h.post(path, { api_key: p.apiKey, group_id: id, mobile: '5300000000' })).total_added,
        1,
      );
    });
  });
}
