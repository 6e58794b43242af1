/**
 * The suite's response check (test/helpers/contract-check.ts, run by the harness on every
 * answer): it accepts a real answer and refuses one whose declared field was renamed,
 * retyped, left out or joined by an undeclared one, and a status the document does not give.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkAgainstContract } from '../helpers/contract-check.js';

const ok = { result: true, result_code: 'TS-1040', result_message: 'Query successful', balance_main: 5 };
const check = (status: number, body: unknown): void =>
  checkAgainstContract('POST', '/balance/', status, JSON.stringify(body));

describe('the response check', () => {
  it('accepts an answer that matches the document', () => {
    check(200, ok);
    check(403, { result: false, result_code: 'TS-1065', result_message: 'Permission off' });
    checkAgainstContract('GET', '/balance/', 405, 'not checked: not an API answer');
  });

  it('refuses a renamed, retyped, missing or undeclared field', () => {
    const { balance_main: _, ...without } = ok;
    assert.throws(() => check(200, { ...without, balance: 5 }), /does not match/);
    assert.throws(() => check(200, { ...ok, balance_main: '5' }), /does not match/);
    assert.throws(() => check(200, without), /does not match/);
    assert.throws(() => check(200, { ...ok, extra: 1 }), /does not match/);
  });

  it('refuses a code the status does not give, and a status the endpoint does not answer', () => {
    assert.throws(() => check(403, { result: false, result_code: 'TS-1050', result_message: 'x' }), /does not match/);
    assert.throws(() => check(418, ok), /does not declare/);
    assert.throws(() => checkAgainstContract('POST', '/balance/', 200, 'not json'), /not JSON/);
  });
});
