/**
 * Every endpoint's HTTP status for each result code, checked against the spec's per-endpoint
 * error table (test/fixtures/spec-error-statuses.ts, transcribed from the spec) rather than
 * against the endpoint table itself: a status changed in src/endpoints fails here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { endpoints } from '../../src/endpoints/index.js';
import { statusOf } from '../../src/http/envelope.js';
import type { ResultCode } from '../../src/domain/result-codes.js';
import { isResultCode } from '../../src/domain/result-codes.js';
import { specStatuses } from '../fixtures/spec-error-statuses.js';
import type { SpecCondition } from '../fixtures/spec-error-statuses.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

/** The failure variant the implementation gives each of the spec's conditions (recipient-limit has none). */
const variantOf: Record<Exclude<SpecCondition, 'wrong-path'>, string | undefined> = {
  'key-missing': 'key-missing',
  'key-malformed': 'key-malformed',
  'key-unknown': 'key-unknown',
  body: 'body',
  'not-found': 'not-found',
  'per-minute': 'per-minute',
  'recipient-limit': undefined,
};

describe("the spec's per-endpoint error table", () => {
  it('has a row for every endpoint of the endpoint table', () => {
    assert.deepEqual(
      endpoints.map((e) => e.path).filter((path) => specStatuses[path] === undefined),
      [],
    );
  });

  for (const endpoint of endpoints) {
    it(`${endpoint.path}: the endpoint table gives each code the spec's status`, () => {
      const wrong: string[] = [];
      for (const row of specStatuses[endpoint.path] ?? []) {
        assert.ok(isResultCode(row.code), `${row.code} is in the code catalogue`);
        const code: ResultCode = row.code;
        for (const condition of row.when ?? [undefined]) {
          if (condition === 'wrong-path') continue;
          const actual = statusOf(endpoint, code, condition === undefined ? undefined : variantOf[condition], false);
          if (actual !== row.status)
            wrong.push(
              `${code}${condition === undefined ? '' : ` (${condition})`}: ${actual}, the spec says ${row.status}`,
            );
        }
      }
      assert.deepEqual(wrong, []);
    });
  }
});

describe("the spec's per-endpoint error table: wrong paths", () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());

  for (const [path, rows] of Object.entries(specStatuses)) {
    for (const row of rows.filter((r) => r.when?.includes('wrong-path') === true)) {
      it(`a path under ${path} that does not exist answers ${row.code} with HTTP ${row.status}`, async () => {
        const answer = await h.post(`${path}/extra`, { api_key: 'k'.repeat(40) });
        assert.equal(answer.body.result_code, row.code, answer.raw);
        assert.equal(answer.status, row.status, answer.raw);
      });
    }
  }
});
