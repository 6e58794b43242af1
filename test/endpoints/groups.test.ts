/**
 * The group endpoints (/groups/create, /groups/edit, /groups/delete, /groups/list) with the
 * request fields, codes and statuses docs/api.md documents, on every store dialect: names
 * unique per account (a duplicate is a failed result with HTTP 200, also under a race),
 * groups private to their account. The permission and key rows are tested from the
 * endpoint table (test/http/endpoint-table).
 */
import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultNow, harnessFor } from '../helpers/harness.js';
import type { Answer } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';

function assertFailure(answer: Answer, code: string, status: number): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.status, status, answer.raw);
  assert.equal(answer.body.result, false);
  assert.equal(typeof answer.body.result_message, 'string');
}

function assertOk(answer: Answer): Answer {
  assert.equal(answer.status, 200, answer.raw);
  assert.equal(answer.body.result, true, answer.raw);
  assert.equal(answer.body.result_code, 'TS-1064');
  assert.equal(typeof answer.body.result_message, 'string');
  return answer;
}

interface GroupBody {
  id: number;
  name: string;
  created_at: string;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `groups (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    beforeEach(() => h.clock.set(defaultNow));

    async function create(apiKey: string, name: unknown): Promise<Answer> {
      return h.post('/groups/create', { api_key: apiKey, name });
    }

    async function createdId(apiKey: string, name: string): Promise<number> {
      return (assertOk(await create(apiKey, name)).body.group as GroupBody).id;
    }

    describe('/groups/create', () => {
      it('answers TS-1064 with group{id, name, created_at}, the name trimmed', async () => {
        const p = await h.provision();
        const answer = assertOk(await create(p.apiKey, '  Customers  '));
        const group = answer.body.group as GroupBody;
        assert.equal(typeof group.id, 'number');
        assert.equal(group.name, 'Customers');
        assert.equal(group.created_at, '2026-03-15 12:00:00');
      });

      it('refuses a name the account already has with a failed result and HTTP 200; other accounts and other spellings are free', async () => {
        const p = await h.provision();
        await createdId(p.apiKey, 'VIP');
        for (const again of ['VIP', ' VIP ']) {
          const answer = await create(p.apiKey, again);
          assertFailure(answer, 'TS-1033', 200);
          assert.match(String(answer.body.result_message), /already exists/);
          assert.equal('group' in answer.body, false);
        }
        await createdId(p.apiKey, 'vip');
        const other = await h.provision();
        await createdId(other.apiKey, 'VIP');
      });

      it('creates one group when requests with one name race', async () => {
        const p = await h.provision();
        const answers = await Promise.all(Array.from({ length: 12 }, () => create(p.apiKey, 'Race')));
        assert.equal(answers.filter((a) => a.body.result === true).length, 1);
        for (const a of answers.filter((x) => x.body.result !== true)) assertFailure(a, 'TS-1033', 200);
        const list = assertOk(await h.post('/groups/list', { api_key: p.apiKey }));
        assert.equal(list.body.groups_count, 1);
      });

      it('TS-1033 (HTTP 400): name missing, blank, not a string or over 100 characters', async () => {
        const p = await h.provision();
        for (const name of [undefined, '', '   ', 42, ['a'], 'n'.repeat(101)])
          assertFailure(await create(p.apiKey, name), 'TS-1033', 400);
        assertOk(await create(p.apiKey, 'n'.repeat(100)));
      });

      it('takes a form body', async () => {
        const p = await h.provision();
        const answer = await h.post('/groups/create', undefined, {
          raw: `api_key=${encodeURIComponent(p.apiKey)}&name=${encodeURIComponent('Müşteriler')}`,
          contentType: 'application/x-www-form-urlencoded',
        });
        assert.equal((assertOk(answer).body.group as GroupBody).name, 'Müşteriler');
      });
    });

    describe('/groups/edit', () => {
      it('renames the group and answers new_name', async () => {
        const p = await h.provision();
        const id = await createdId(p.apiKey, 'Old');
        const answer = assertOk(await h.post('/groups/edit', { api_key: p.apiKey, group_id: id, name: ' New ' }));
        assert.equal(answer.body.new_name, 'New');
        const list = assertOk(await h.post('/groups/list', { api_key: p.apiKey }));
        assert.deepEqual(
          (list.body.groups as GroupBody[]).map((g) => g.name),
          ['New'],
        );
        // group_id as a form would send it, and a rename to the current name.
        assert.equal(
          assertOk(await h.post('/groups/edit', { api_key: p.apiKey, group_id: String(id), name: 'New' })).body
            .new_name,
          'New',
        );
      });

      it('refuses the name of another group of the account with HTTP 200', async () => {
        const p = await h.provision();
        await createdId(p.apiKey, 'Taken');
        const id = await createdId(p.apiKey, 'Mine');
        const answer = await h.post('/groups/edit', { api_key: p.apiKey, group_id: id, name: 'Taken' });
        assertFailure(answer, 'TS-1033', 200);
        assert.equal('new_name' in answer.body, false);
      });

      it('TS-1029 (HTTP 200): no such group, or another account\u2019s, which is left as it was', async () => {
        const p = await h.provision();
        const other = await h.provision();
        const theirs = await createdId(other.apiKey, 'Theirs');
        assertFailure(
          await h.post('/groups/edit', { api_key: p.apiKey, group_id: theirs, name: 'Stolen' }),
          'TS-1029',
          200,
        );
        assertFailure(
          await h.post('/groups/edit', { api_key: p.apiKey, group_id: 999_999, name: 'X' }),
          'TS-1029',
          200,
        );
        const list = assertOk(await h.post('/groups/list', { api_key: other.apiKey }));
        assert.equal((list.body.groups as GroupBody[])[0]?.name, 'Theirs');
      });

      it('TS-1029 (HTTP 400): group_id missing or not a positive integer; TS-1033: name invalid', async () => {
        const p = await h.provision();
        const id = await createdId(p.apiKey, 'G');
        for (const groupId of [undefined, 0, -3, 'abc', 1.5, null]) {
          assertFailure(
            await h.post('/groups/edit', { api_key: p.apiKey, group_id: groupId, name: 'X' }),
            'TS-1029',
            400,
          );
        }
        assertFailure(await h.post('/groups/edit', { api_key: p.apiKey, group_id: id }), 'TS-1033', 400);
        assertFailure(await h.post('/groups/edit', { api_key: p.apiKey, group_id: id, name: ' ' }), 'TS-1033', 400);
      });
    });

    describe('/groups/delete', () => {
      it('deletes the group with its contacts; answers TS-1064 with no other field', async () => {
        const p = await h.provision();
        const id = await createdId(p.apiKey, 'Gone');
        assertOk(await h.post('/contacts/add', { api_key: p.apiKey, group_id: id, mobile: '05321234567' }));
        const answer = assertOk(await h.post('/groups/delete', { api_key: p.apiKey, group_id: id }));
        assert.deepEqual(Object.keys(answer.body).sort(), ['result', 'result_code', 'result_message']);
        assertFailure(
          await h.post('/contacts/add', { api_key: p.apiKey, group_id: id, mobile: '05321234567' }),
          'TS-1029',
          200,
        );
        assertFailure(await h.post('/groups/delete', { api_key: p.apiKey, group_id: id }), 'TS-1029', 200);
        // The name is free again, and the new group starts empty.
        const again = await createdId(p.apiKey, 'Gone');
        const added = assertOk(
          await h.post('/contacts/add', { api_key: p.apiKey, group_id: again, mobile: '05321234567' }),
        );
        assert.equal(added.body.total_added, 1);
      });

      it('TS-1029: another account\u2019s group (HTTP 200, kept) or a bad group_id (HTTP 400)', async () => {
        const p = await h.provision();
        const other = await h.provision();
        const theirs = await createdId(other.apiKey, 'Keep');
        assertFailure(await h.post('/groups/delete', { api_key: p.apiKey, group_id: theirs }), 'TS-1029', 200);
        assert.equal(assertOk(await h.post('/groups/list', { api_key: other.apiKey })).body.groups_count, 1);
        assertFailure(await h.post('/groups/delete', { api_key: p.apiKey }), 'TS-1029', 400);
        assertFailure(await h.post('/groups/delete', { api_key: p.apiKey, group_id: 'x' }), 'TS-1029', 400);
      });
    });

    describe('/groups/list', () => {
      it('lists the account\u2019s own groups, newest first, as {id, name, date}', async () => {
        const p = await h.provision();
        const empty = assertOk(await h.post('/groups/list', { api_key: p.apiKey }));
        assert.equal(empty.body.groups_count, 0);
        assert.deepEqual(empty.body.groups, []);
        const first = await createdId(p.apiKey, 'First');
        h.clock.advance(86_400_000 + 61_000);
        const second = await createdId(p.apiKey, 'Second');
        await createdId((await h.provision()).apiKey, 'Not mine');
        const answer = assertOk(await h.post('/groups/list', { api_key: p.apiKey }));
        assert.equal(answer.body.groups_count, 2);
        assert.deepEqual(answer.body.groups, [
          { id: second, name: 'Second', date: '2026-03-16 12:01:01' },
          { id: first, name: 'First', date: '2026-03-15 12:00:00' },
        ]);
      });
    });
  });
}
