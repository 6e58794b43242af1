/**
 * Result messages name the field and the problem: one code stands for several mistakes in
 * the spec's catalogue, so the code alone (kept as the spec gives it) says too little.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Harness, Provisioned } from '../helpers/harness.js';

describe('result messages that fit the case', () => {
  let h: Harness;
  let p: Provisioned;
  before(async () => {
    h = await createHarness();
    p = await h.provision();
  });
  after(async () => h.close());

  it('a group send whose sentto is a string says sentto must be an array, with the spec code', async () => {
    const answer = await h.post('/group/send', { api_key: p.apiKey, title: 'ACME', sentto: '05321234567', text: 'hi' });
    assert.equal(answer.body.result_code, 'TS-1026');
    assert.match(String(answer.body.result_message), /sentto must be a JSON array/);
    assert.doesNotMatch(String(answer.body.result_message), /Text empty/);
  });

  it('a numeric api_key says api_key must be a string', async () => {
    const answer = await h.post('/balance/', { api_key: 1234567890123 });
    assert.equal(answer.body.result_code, 'TS-1025');
    assert.match(String(answer.body.result_message), /api_key must be a string/);
  });

  it('a key of the wrong length says how long it must be', async () => {
    const answer = await h.post('/balance/', { api_key: 'x'.repeat(25) });
    assert.equal(answer.body.result_code, 'TS-1025');
    assert.match(String(answer.body.result_message), /api_key must be 30 to 128 characters long/);
  });

  it('a JSON body sent without Content-Type: application/json says so', async () => {
    const answer = await h.post('/balance/', undefined, {
      raw: JSON.stringify({ api_key: p.apiKey }),
      contentType: 'application/x-www-form-urlencoded',
    });
    assert.equal(answer.body.result_code, 'TS-1050');
    assert.match(String(answer.body.result_message), /Content-Type: application\/json/);
  });

  it('a missing field is named as missing, a wrong type as the type it must be', async () => {
    const missing = await h.post('/sms/status', { api_key: p.apiKey });
    assert.equal(missing.body.result_code, 'TS-1052');
    const wrong = await h.post('/group/sendMixed', {
      api_key: p.apiKey,
      title: 'ACME',
      sentto: ['05321234567'],
      text: 'hi',
    });
    assert.equal(wrong.body.result_code, 'TS-1033');
    assert.match(String(wrong.body.result_message), /text must be a JSON array/);
  });
});
