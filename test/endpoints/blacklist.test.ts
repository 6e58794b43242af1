/**
 * /blacklist/post/add and /blacklist/post/status against the spec, on every store dialect:
 * the status envelope, every accepted number form converted to 905XXXXXXXXX and compared by
 * its last ten digits, landline and foreign numbers refused, per account, not applied to
 * API sends, and the rows of the two error tables that are theirs alone (the key, state,
 * address, permission and body rows, TS-1031 401 and TS-1050 403 among them, are tested
 * from the endpoint table in test/http/endpoint-table, wrong paths in test/http).
 */
import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BlocklistService } from '../../src/services/blocklist-service.js';
import type { DirectoryStore } from '../../src/ports/directory-store.js';
import { defaultNow, harnessFor } from '../helpers/harness.js';
import type { Answer } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { valueOf } from '../helpers/results.js';

const add = '/blacklist/post/add';
const status = '/blacklist/post/status';
const number = '905321234567';

/** Every form the spec lists for one number, with separators as people type them. */
const forms = [
  '905321234567',
  '+90 532 123 45 67',
  '+905321234567',
  '0090 532 123 45 67',
  '00905321234567',
  '05321234567',
  '0532 123 45 67',
  '(0532) 123-45-67',
  '5321234567',
  '532 123 4567',
];

function assertFailure(answer: Answer, code: string, httpStatus: number): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.status, httpStatus, answer.raw);
  assert.equal(answer.body.status, 'error');
  assert.equal('result' in answer.body, false);
  assert.equal(typeof answer.body.result_message, 'string');
  assert.equal('is_blocked' in answer.body, false);
}

function assertSuccess(answer: Answer, code: string): Answer {
  assert.equal(answer.status, 200, answer.raw);
  assert.equal(answer.body.status, 'success', answer.raw);
  assert.equal(answer.body.result_code, code);
  assert.equal(typeof answer.body.result_message, 'string');
  assert.equal('result' in answer.body, false);
  return answer;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `blocking list (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    beforeEach(() => h.clock.set(defaultNow));

    describe('HTTP 200', () => {
      it('TS-1141 adds a number; TS-1143 then answers with is_blocked, block_date and block_time (HH:MM)', async () => {
        const p = await h.provision();
        h.clock.set(Date.UTC(2026, 2, 15, 6, 5, 59));
        const added = assertSuccess(await h.post(add, { api_key: p.apiKey, number }), 'TS-1141');
        assert.deepEqual(Object.keys(added.body).sort(), ['result_code', 'result_message', 'status']);
        h.clock.set(defaultNow);
        const listed = assertSuccess(await h.post(status, { api_key: p.apiKey, number }), 'TS-1143');
        assert.equal(listed.body.is_blocked, true);
        assert.equal(listed.body.block_date, '2026-03-15');
        assert.equal(listed.body.block_time, '09:05');
      });

      it('TS-1142 for a number not listed: is_blocked false, no date or time', async () => {
        const p = await h.provision();
        const answer = assertSuccess(await h.post(status, { api_key: p.apiKey, number }), 'TS-1142');
        assert.equal(answer.body.is_blocked, false);
        assert.equal('block_date' in answer.body, false);
        assert.equal('block_time' in answer.body, false);
      });

      it('dates an entry in Istanbul time across midnight', async () => {
        const p = await h.provision();
        h.clock.set(Date.UTC(2026, 2, 15, 21, 30, 0));
        assertSuccess(await h.post(add, { api_key: p.apiKey, number }), 'TS-1141');
        const listed = assertSuccess(await h.post(status, { api_key: p.apiKey, number: '05321234567' }), 'TS-1143');
        assert.equal(listed.body.block_date, '2026-03-16');
        assert.equal(listed.body.block_time, '00:30');
      });

      for (const form of forms) {
        it(`accepts ${JSON.stringify(form)} and treats it as every other form of the number`, async () => {
          const p = await h.provision();
          assertSuccess(await h.post(add, { api_key: p.apiKey, number: form }), 'TS-1141');
          for (const other of forms) {
            assertSuccess(await h.post(status, { api_key: p.apiKey, number: other }), 'TS-1143');
            assertFailure(await h.post(add, { api_key: p.apiKey, number: other }), 'TS-1140', 400);
          }
          assertSuccess(await h.post(status, { api_key: p.apiKey, number: '05321234568' }), 'TS-1142');
        });
      }

      it('takes the number as a JSON number and from a form body', async () => {
        const p = await h.provision();
        assertSuccess(await h.post(add, { api_key: p.apiKey, number: 5321234567 }), 'TS-1141');
        const form = await h.post(status, undefined, {
          raw: `api_key=${p.apiKey}&number=%2B90%20532%20123%2045%2067`,
          contentType: 'application/x-www-form-urlencoded',
        });
        assertSuccess(form, 'TS-1143');
      });

      it('keeps one list per account', async () => {
        const a = await h.provision();
        const b = await h.provision();
        assertSuccess(await h.post(add, { api_key: a.apiKey, number }), 'TS-1141');
        assertSuccess(await h.post(status, { api_key: b.apiKey, number }), 'TS-1142');
        assertSuccess(await h.post(add, { api_key: b.apiKey, number }), 'TS-1141');
        // Another key of the same account sees the same list.
        const sameAccount = await valueOf(
          h.runtime.admin.createKey(a.accountId, await valueOf(h.runtime.admin.key(a.keyId))),
        );
        assertSuccess(await h.post(status, { api_key: sameAccount.api_key, number }), 'TS-1143');
      });

      it('is not applied to /sms/send or /otp/send', async () => {
        const p = await h.provision();
        assertSuccess(await h.post(add, { api_key: p.apiKey, number }), 'TS-1141');
        const sms = await h.post('/sms/send', {
          api_key: p.apiKey,
          sentto: '05321234567',
          title: 'ACME',
          text: 'hello',
        });
        assert.equal(sms.body.result_code, 'TS-1024', sms.raw);
        const otp = await h.post('/otp/send', { api_key: p.apiKey, mobile: '05321234567' });
        assert.equal(otp.body.result_code, 'TS-1024', otp.raw);
      });
    });

    describe('HTTP 400', () => {
      it('TS-1144: landline, foreign, wrongly sized or lettered numbers', async () => {
        const p = await h.provision();
        for (const bad of [
          '02121234567',
          '902121234567',
          '+90 212 123 45 67',
          '+4915112345678',
          '4915112345678',
          '0044 7911 123456',
          '053212345678',
          '0532123456',
          '90532123456',
          '0532abc4567',
          '4321234567',
        ]) {
          assertFailure(await h.post(add, { api_key: p.apiKey, number: bad }), 'TS-1144', 400);
          assertFailure(await h.post(status, { api_key: p.apiKey, number: bad }), 'TS-1144', 400);
        }
      });

      it('TS-1025: number missing, of another type or under 7 characters', async () => {
        const p = await h.provision();
        for (const bad of [undefined, '', '532123', { n: 1 }, null]) {
          assertFailure(await h.post(add, { api_key: p.apiKey, number: bad }), 'TS-1025', 400);
          assertFailure(await h.post(status, { api_key: p.apiKey, number: bad }), 'TS-1025', 400);
        }
      });

      it('TS-1033: the entry could not be saved (retry)', async () => {
        const p = await h.provision();
        const failing = {
          blockNumber: async () => Promise.reject(new Error('store down')),
        } as unknown as DirectoryStore;
        const real = h.runtime.services.blocklist;
        h.runtime.services.blocklist = new BlocklistService(failing, h.clock);
        try {
          const answer = await h.post(add, { api_key: p.apiKey, number });
          assertFailure(answer, 'TS-1033', 400);
          assert.match(String(answer.body.result_message), /retry/);
          assert.doesNotMatch(answer.raw, /store down/);
        } finally {
          h.runtime.services.blocklist = real;
        }
        assertSuccess(await h.post(status, { api_key: p.apiKey, number }), 'TS-1142');
      });
    });

    describe('haberci admin blocklist remove (service)', () => {
      it('removes a number given in any form; {"removed": false} when it was not listed', async () => {
        const p = await h.provision();
        assertSuccess(await h.post(add, { api_key: p.apiKey, number: '05321234567' }), 'TS-1141');
        assert.deepEqual(await valueOf(h.runtime.admin.unblockNumber(p.accountId, '+90 532 123 45 67')), {
          removed: true,
        });
        assertSuccess(await h.post(status, { api_key: p.apiKey, number }), 'TS-1142');
        assert.deepEqual(await valueOf(h.runtime.admin.unblockNumber(p.accountId, number)), { removed: false });
        assertSuccess(await h.post(add, { api_key: p.apiKey, number }), 'TS-1141');
      });

      it('touches only the named account, and refuses an unknown account or an invalid number', async () => {
        const a = await h.provision();
        const b = await h.provision();
        assertSuccess(await h.post(add, { api_key: a.apiKey, number }), 'TS-1141');
        assert.deepEqual(await valueOf(h.runtime.admin.unblockNumber(b.accountId, number)), { removed: false });
        assertSuccess(await h.post(status, { api_key: a.apiKey, number }), 'TS-1143');
        await assert.rejects(valueOf(h.runtime.admin.unblockNumber(999_999, number)), /no account/);
        await assert.rejects(
          valueOf(h.runtime.admin.unblockNumber(a.accountId, '02121234567')),
          /not a Türkiye mobile number/,
        );
      });
    });
  });
}
