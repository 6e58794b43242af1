/**
 * Input a store cannot hold as sent is refused in the request, with one answer on every
 * store dialect and never a 500: a NUL or an unpaired UTF-16 surrogate in a text field that
 * is written (PostgreSQL refuses the NUL and turns the surrogate into U+FFFD), and a group
 * id beyond the 32-bit id column, which names no group (docs/decisions.md, "Input the
 * store cannot hold"). The refusals write nothing and log nothing.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { harnessFor } from '../helpers/harness.js';
import type { Answer } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';

/** The refused characters, each with the words the answer's message names it by. */
const unstorable = [
  { label: 'a NUL', char: '\u0000', named: /contains a NUL character/ },
  { label: 'a lone high surrogate', char: '\ud800', named: /contains an unpaired UTF-16 surrogate/ },
  { label: 'a lone low surrogate', char: '\udc00', named: /contains an unpaired UTF-16 surrogate/ },
];

interface Case {
  endpoint: string;
  field: string;
  code: string;
  body(apiKey: string, bad: string): Record<string, unknown>;
}

/** Every request text field that is written to the store, with the code its bad values get. */
const cases: Case[] = [
  {
    endpoint: '/sms/send',
    field: 'sentto',
    code: 'TS-1025',
    body: (k, bad) => ({ api_key: k, sentto: `905321234567,9053212${bad}34568`, title: 'ACME', text: 'Hello' }),
  },
  {
    endpoint: '/sms/send',
    field: 'title',
    code: 'TS-1029',
    body: (k, bad) => ({ api_key: k, sentto: '905321234567', title: `AC${bad}ME`, text: 'Hello' }),
  },
  {
    endpoint: '/sms/send',
    field: 'text',
    code: 'TS-1026',
    body: (k, bad) => ({ api_key: k, sentto: '905321234567', title: 'ACME', text: `Hel${bad}lo` }),
  },
  {
    endpoint: '/sms/send',
    field: 'idempotency_key',
    code: 'TS-1033',
    body: (k, bad) => ({
      api_key: k,
      sentto: '905321234567',
      title: 'ACME',
      text: 'Hello',
      idempotency_key: `key-${bad}`,
    }),
  },
  {
    endpoint: '/group/send',
    field: 'title',
    code: 'TS-1029',
    body: (k, bad) => ({ api_key: k, sentto: ['905321234567'], title: `AC${bad}ME`, text: 'Hello' }),
  },
  {
    endpoint: '/group/send',
    field: 'text',
    code: 'TS-1033',
    body: (k, bad) => ({ api_key: k, sentto: ['905321234567'], title: 'ACME', text: `Hel${bad}lo` }),
  },
  {
    endpoint: '/group/send',
    field: 'sentto',
    code: 'TS-1026',
    body: (k, bad) => ({ api_key: k, sentto: ['905321234567', `9053212${bad}34568`], title: 'ACME', text: 'Hello' }),
  },
  {
    endpoint: '/group/sendMixed',
    field: 'title',
    code: 'TS-1029',
    body: (k, bad) => ({ api_key: k, sentto: ['905321234567'], title: `AC${bad}ME`, text: ['Hello'] }),
  },
  {
    endpoint: '/group/sendMixed',
    field: 'text',
    code: 'TS-1033',
    body: (k, bad) => ({
      api_key: k,
      sentto: ['905321234567', '905321234568'],
      title: 'ACME',
      text: ['Hello', `Hel${bad}lo`],
    }),
  },
  {
    endpoint: '/group/sendMixed',
    field: 'sentto',
    code: 'TS-1026',
    body: (k, bad) => ({ api_key: k, sentto: [`9053212${bad}34568`], title: 'ACME', text: ['Hello'] }),
  },
  {
    endpoint: '/otp/detailed',
    field: 'title',
    code: 'TS-1029',
    body: (k, bad) => ({ api_key: k, mobile: '905321234567', title: `AC${bad}ME`, text: 'Code TS-CODE' }),
  },
  {
    endpoint: '/otp/detailed',
    field: 'text',
    code: 'TS-1026',
    body: (k, bad) => ({ api_key: k, mobile: '905321234567', title: 'ACME', text: `Code${bad} TS-CODE` }),
  },
  {
    endpoint: '/groups/create',
    field: 'name',
    code: 'TS-1033',
    body: (k, bad) => ({ api_key: k, name: `Cust${bad}omers` }),
  },
  {
    endpoint: '/groups/edit',
    field: 'name',
    code: 'TS-1033',
    body: (k, bad) => ({ api_key: k, group_id: 1, name: `Cust${bad}omers` }),
  },
];

function codeOf(answer: Answer): unknown {
  return answer.body.result_code;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `input the store cannot hold (${dialect.name})`, () => {
    const logged: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
    const h = harnessFor(dialect, { logger });

    for (const { label, char, named } of unstorable) {
      it(`refuses ${label} in every written text field with the field's code and HTTP 400, writing and logging nothing`, async () => {
        const p = await h.provision();
        const before = (await h.post('/balance/', { api_key: p.apiKey })).raw;
        logged.length = 0;
        for (const c of cases) {
          const answer = await h.post(c.endpoint, c.body(p.apiKey, char));
          const where = `${c.endpoint} ${c.field}: ${answer.raw}`;
          assert.equal(answer.status, 400, where);
          assert.equal(codeOf(answer), c.code, where);
          assert.match(String(answer.body.result_message), new RegExp(`^${c.field} ${named.source}`), where);
        }
        // One access line a request (docs/operations.md); nothing else: no error, no stack.
        assert.equal(logged.length, cases.length, logged.join(''));
        assert.deepEqual(
          logged.filter((line) => (JSON.parse(line) as { msg?: unknown }).msg !== 'api request'),
          [],
        );
        assert.equal((await h.post('/balance/', { api_key: p.apiKey })).raw, before, 'nothing was charged');
        const groups = await h.post('/groups/list', { api_key: p.apiKey });
        assert.equal(groups.body.groups_count, 0, groups.raw);
      });
    }

    it('refuses a NUL sent in a form body too', async () => {
      const p = await h.provision();
      const answer = await h.post('/groups/create', undefined, {
        contentType: 'application/x-www-form-urlencoded',
        raw: `api_key=${p.apiKey}&name=Cust%00omers`,
      });
      assert.equal(answer.status, 400, answer.raw);
      assert.equal(answer.body.result_code, 'TS-1033');
      assert.equal(answer.body.result_message, 'name contains a NUL character');
    });

    it('still accepts text with characters outside the Basic Multilingual Plane (surrogate pairs)', async () => {
      const p = await h.provision();
      const sent = await h.post('/sms/send', {
        api_key: p.apiKey,
        sentto: '905321234567',
        title: 'ACME',
        text: 'Merhaba \u{1F600}',
      });
      assert.equal(sent.body.result_code, 'TS-1024', sent.raw);
      const created = await h.post('/groups/create', { api_key: p.apiKey, name: 'Fans \u{1F3B8}' });
      assert.equal(created.body.result_code, 'TS-1064', created.raw);
      assert.equal((created.body.group as { name: string }).name, 'Fans \u{1F3B8}');
    });

    it('answers fields that are never written as they were: numbers that cannot be numbers, dates that cannot be dates', async () => {
      const p = await h.provision();
      const group = await h.post('/groups/create', { api_key: p.apiKey, name: 'G' });
      const groupId = (group.body.group as { id: number }).id;
      for (const { char } of unstorable) {
        const answers: [Answer, string, number][] = [
          [await h.post('/otp/send', { api_key: p.apiKey, mobile: `90532123456${char}7` }), 'TS-1034', 403],
          [
            await h.post('/otp/detailed', {
              api_key: p.apiKey,
              mobile: `90532123456${char}7`,
              title: 'ACME',
              text: 'TS-CODE',
            }),
            'TS-1034',
            400,
          ],
          [await h.post('/blacklist/post/add', { api_key: p.apiKey, number: `90532123456${char}7` }), 'TS-1144', 400],
          [
            await h.post('/blacklist/post/status', { api_key: p.apiKey, number: `90532123456${char}7` }),
            'TS-1144',
            400,
          ],
          [
            await h.post('/sms/send', {
              api_key: p.apiKey,
              sentto: '905321234567',
              title: 'ACME',
              text: 'Hi',
              scheduled_date: `2026-04-0${char}1`,
              scheduled_time: '10:00',
            }),
            'TS-1070',
            400,
          ],
        ];
        for (const [answer, code, status] of answers) {
          assert.equal(codeOf(answer), code, answer.raw);
          assert.equal(answer.status, status, answer.raw);
        }
        // A contact entry that is not a number is counted as failed and never stored.
        const added = await h.post('/contacts/add', {
          api_key: p.apiKey,
          group_id: groupId,
          mobile: ['905321234567', `90532123456${char}8`],
        });
        assert.equal(added.body.result_code, 'TS-1064', added.raw);
        assert.equal(added.body.total_failed, 1);
        assert.equal(added.body.mobile, '905321234567');
      }
    });

    it('answers a group_id beyond the id column as a group the account does not have (TS-1029, HTTP 200)', async () => {
      const p = await h.provision();
      for (const groupId of [2 ** 31, 2 ** 31 - 1 + 2 ** 31, Number.MAX_SAFE_INTEGER, String(2 ** 31)]) {
        const answers = [
          await h.post('/groups/edit', { api_key: p.apiKey, group_id: groupId, name: 'X' }),
          await h.post('/groups/delete', { api_key: p.apiKey, group_id: groupId }),
          await h.post('/contacts/add', { api_key: p.apiKey, group_id: groupId, mobile: ['905321234567'] }),
        ];
        for (const answer of answers) {
          assert.equal(answer.status, 200, answer.raw);
          assert.equal(answer.body.result_code, 'TS-1029', answer.raw);
          assert.equal(answer.body.result_message, 'No group of this account has this group_id');
        }
      }
      // Beyond 2^53 an integer is no longer exact: an invalid group_id, as before.
      const huge = await h.post('/groups/delete', { api_key: p.apiKey, group_id: 2 ** 53 });
      assert.equal(huge.status, 400, huge.raw);
      assert.equal(huge.body.result_code, 'TS-1029');
    });

    it('answers message and report ids as large as a JSON client can send as ids that name nothing', async () => {
      const p = await h.provision();
      for (const id of [2 ** 31, Number.MAX_SAFE_INTEGER]) {
        const status = await h.post('/sms/status', { api_key: p.apiKey, sms_id: id });
        assert.deepEqual([status.status, status.body.result_code], [403, 'TS-1020'], status.raw);
        for (const path of ['/reports/basic', '/reports/detailed']) {
          const report = await h.post(path, { api_key: p.apiKey, raporid: id, page: id });
          assert.deepEqual([report.status, report.body.result_code], [200, 'TS-1029'], report.raw);
        }
      }
    });
  });
}
