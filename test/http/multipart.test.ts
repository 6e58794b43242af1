/**
 * "Form data is also accepted": multipart/form-data bodies give the same fields as JSON
 * and urlencoded ones, under the same rules and body limits; file parts are dropped.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Harness, Provisioned } from '../helpers/harness.js';

const boundary = '----haberci-test-boundary';

/** A multipart body of text fields (a repeated name is a repeated field) and optional files. */
function multipartBody(fields: [string, string][], files: [string, string][] = []): string {
  const parts = fields.map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  for (const [name, content] of files)
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.txt"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n`,
    );
  return `${parts.join('')}--${boundary}--\r\n`;
}

describe('multipart/form-data bodies', () => {
  let h: Harness;
  let p: Provisioned;
  const post = (path: string, fields: [string, string][], files: [string, string][] = []) =>
    h.post(path, undefined, {
      raw: multipartBody(fields, files),
      contentType: `multipart/form-data; boundary=${boundary}`,
    });
  before(async () => {
    h = await createHarness();
    p = await h.provision();
  });
  after(async () => h.close());

  it('reads the key and answers like a JSON body', async () => {
    const answer = await post('/balance/', [['api_key', p.apiKey]]);
    assert.equal(answer.body.result_code, 'TS-1040', answer.raw);
    assert.equal(answer.body.balance_main, 1000);
  });

  it('sends an SMS with integer fields given as text, under the same rules', async () => {
    const sent = await post('/sms/send', [
      ['api_key', p.apiKey],
      ['sentto', '05321234567'],
      ['title', 'ACME'],
      ['text', 'Merhaba'],
      ['sms_lang', '1'],
    ]);
    assert.equal(sent.body.result_code, 'TS-1024', sent.raw);
    assert.equal(sent.body.sms_lang, 'Turkish');
    const missingTitle = await post('/sms/send', [
      ['api_key', p.apiKey],
      ['sentto', '05321234567'],
      ['text', 'Merhaba'],
    ]);
    assert.equal(missingTitle.body.result_code, 'TS-1051');
  });

  it('takes a repeated field as an array, as a group send needs', async () => {
    const answer = await post('/group/send', [
      ['api_key', p.apiKey],
      ['title', 'ACME'],
      ['text', 'hi'],
      ['sentto', '05321234567'],
      ['sentto', '05321234568'],
    ]);
    assert.equal(answer.body.result_code, 'TS-1024', answer.raw);
    assert.equal(answer.body.total_numbers, 2);
  });

  it('drops file parts: they neither count as fields nor fail the request', async () => {
    const answer = await post(
      '/balance/',
      [['api_key', p.apiKey]],
      [
        ['api_key', 'not-the-key'],
        ['attachment', 'x'.repeat(10_000)],
      ],
    );
    assert.equal(answer.body.result_code, 'TS-1040', answer.raw);
  });

  it('answers a multipart body it cannot read with the invalid-body code, and a cut-off one in the envelope, never a 500', async () => {
    const garbled = await h.post('/sms/send', undefined, { raw: 'garbage', contentType: 'multipart/form-data' });
    assert.equal(garbled.status, 400, garbled.raw);
    assert.equal(garbled.body.result_code, 'TS-1033');
    assert.match(String(garbled.body.result_message), /multipart body cannot be read/);
    // Cut off inside its only part: no field arrived, so the key is missing.
    const cut = await h.post('/sms/send', undefined, {
      raw: `--${boundary}\r\nContent-Disposition: form-data; name="api_key"\r\n\r\n${p.apiKey}`,
      contentType: `multipart/form-data; boundary=${boundary}`,
    });
    assert.equal(cut.body.result_code, 'TS-1050', cut.raw);
  });

  it('holds a multipart body to the endpoint\u2019s limit, answered 413 in the envelope', async () => {
    const answer = await post('/balance/', [
      ['api_key', p.apiKey],
      ['filler', 'x'.repeat(100 * 1024)],
    ]);
    assert.equal(answer.status, 413);
    assert.equal(answer.body.result_code, 'TS-1033');
    assert.match(String(answer.body.result_message), /too large/);
  });
});
