/**
 * API keys, webhook secrets and OTP codes never appear in the server's output (design.md,
 * habit 15), at log level trace, while the server sends with a key, sends OTPs through
 * /otp/send and /otp/detailed, answers refusals and fails a webhook's deliveries.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import { answer, startReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'haberci-secrets-'));
const store = ['--data', dir];
const mobile = '905321234567';

/** `code` as a whole number in `text`, not as part of a longer one (a timestamp, say). */
function containsNumber(text: string, code: number): boolean {
  return new RegExp(`(?<![0-9])${code}(?![0-9])`).test(text);
}

describe('secrets in the logs', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('never show a key, a webhook secret or an OTP code', async () => {
    const receiver = await startReceiver(answer(500));
    const secret = `whsec_${randomBytes(12).toString('hex')}`;
    const secondSecret = `whsec_${randomBytes(12).toString('hex')}`;
    const hook = ['--webhook-url', `${receiver.url}/hook`, '--webhook-secret', secret, '--webhook-attempts', '1'];
    await admin(['store', 'init', ...store]);
    const sender = await provisionSender(store, 'Logs', 1000, hook).catch(async (error: unknown) => {
      await receiver.close();
      throw error;
    });
    const limited = await admin([
      'key',
      'create',
      '--account',
      sender.accountId,
      '--permissions',
      'check_balance',
      ...store,
    ]);
    const limitedKey = String(limited.api_key);
    const unknownKey = `hb_${randomBytes(24).toString('hex')}`;
    // A request body's text: the access log names the request, never its body.
    const bodyText = `Hello ${randomBytes(8).toString('hex')}`;
    const server = await startServer([
      ...store,
      '--log-level',
      'trace',
      '--sim-delay-ms',
      '0',
      '--demo',
      'false',
      '--webhook-allow-private',
      'true',
    ]);
    const codes: number[] = [];
    try {
      const post = (path: string, body: Record<string, unknown>): ReturnType<typeof postJson> =>
        postJson(`${server.url}${path}`, body);
      assert.equal((await post('/auth/post/check/', { api_key: sender.apiKey })).body.result_code, 'TS-1000');
      assert.equal(
        (await post('/sms/send', { api_key: sender.apiKey, sentto: mobile, title: 'ACME', text: bodyText })).body
          .result_code,
        'TS-1024',
      );
      for (const [path, body] of [
        ['/otp/send', { mobile, digits: 6 }],
        ['/otp/detailed', { mobile, title: 'ACME', text: 'Code TS-CODE', digits: 6 }],
      ] as const) {
        const sent = await post(path, { api_key: sender.apiKey, ...body });
        assert.equal(sent.body.result_code, 'TS-1024', JSON.stringify(sent.body));
        codes.push(Number(sent.body.otp_code));
      }
      // Refusals: a bad field, a permission off, an unknown key, a body that is not JSON.
      assert.equal(
        (await post('/sms/send', { api_key: sender.apiKey, sentto: mobile, title: 'ACME' })).body.result_code,
        'TS-1026',
      );
      assert.equal((await post('/otp/send', { api_key: limitedKey, mobile })).body.result_code, 'TS-1036');
      assert.equal((await post('/balance/', { api_key: unknownKey })).body.result_code, 'TS-1031');
      const broken = await fetch(`${server.url}/otp/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"api_key":"${sender.apiKey}",`,
      });
      assert.equal(broken.status, 400);
      await admin(['key', 'update', '--id', sender.keyId, '--webhook-secret', secondSecret, ...store]);
      // Control: the failed webhook deliveries are logged, so the paths that use the secret did log.
      await waitFor(
        'a webhook event to fail after its last attempt',
        () => server.output().includes('webhooks: event failed after its last attempt'),
        { timeoutMs: 15_000, intervalMs: 20 },
      );
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await receiver.close();
    }
    const output = server.output();
    assert.ok(receiver.requests.length > 0, 'the webhook was called');
    // Control: every API request above has its access line, so the access log did run.
    const access = output.split('\n').filter((line) => line.includes('"msg":"api request"'));
    assert.equal(access.length, 8, `the access lines:\n${access.join('\n')}`);
    for (const [what, value] of [
      ['the API key', sender.apiKey],
      ['the key without the permission', limitedKey],
      ['the unknown key', unknownKey],
      ['the webhook secret', secret],
      ['a request body', bodyText],
      ['the new webhook secret', secondSecret],
    ] as const) {
      assert.equal(output.includes(value), false, `${what} is in the output:\n${output}`);
    }
    assert.equal(codes.length, 2);
    for (const code of codes)
      assert.equal(containsNumber(output, code), false, `OTP code ${code} is in the output:\n${output}`);
  });
});
