import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';

function shownKey(body: string): string {
  const key = /id="new-key"[^>]*value="([^"]+)"/.exec(body)?.[1] ?? /value="([^"]+)"[^>]*id="new-key"/.exec(body)?.[1];
  assert.ok(key, 'the page shows the new key');
  return key;
}

describe('panel API keys', () => {
  let h: PanelHarness;
  let receiver: Receiver;
  let a: PanelBrowser;
  let accountA = 0;
  before(async () => {
    // Sessions that outlast the clock's jumps (a rotation's 24 hours).
    h = await createPanelHarness(undefined, { idleMs: 1e12, absoluteMs: 1e12 });
    receiver = await startReceiver();
    const made = await h.account('Keys A');
    accountA = made.accountId;
    a = h.browser();
    await a.signIn(made.email, made.password);
  });
  after(async () => {
    await receiver.close();
    await h.close();
  });

  const balance = async (apiKey: string): Promise<string> => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/balance/',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ api_key: apiKey }),
    });
    return String((JSON.parse(response.body) as { result_code: string }).result_code);
  };

  const createKey = async (
    form: Record<string, string | readonly string[]> = {},
  ): Promise<{ id: number; apiKey: string; body: string }> => {
    await a.get('/panel/keys/new');
    const answer = await a.post('/panel/keys', { permissions: ['check_balance', 'send_single_sms'], ...form });
    assert.equal(answer.status, 200, answer.body);
    const id = Number(/href="\/panel\/keys\/(\d+)"/.exec(answer.body)?.[1]);
    return { id, apiKey: shownKey(answer.body), body: answer.body };
  };

  it('creates a key, shows it once with a copy button and a warning, and the key works on /balance/', async () => {
    const made = await createKey({ hourly_limit: '10', ip_allow: '127.0.0.1, 10.0.0.0/8', expires: '2030-01-31' });
    assert.match(made.body, /You will not see this again/);
    assert.match(
      made.body,
      /<button type="button" class="secondary" data-copy-target="new-key" data-copied="Copied">Copy key<\/button>/,
    );
    const unused = await a.get('/panel/keys');
    assert.match(
      unused.body,
      new RegExp(
        `Key ${made.id} [^]*?<td data-label="Last used">Never</td><td data-label="Actions"><a href="/panel/keys/${made.id}"`,
      ),
    );
    assert.equal(await balance(made.apiKey), 'TS-1040');
    await h.runtime.lastUsed.flush();
    const list = await a.get('/panel/keys');
    assert.match(
      list.body,
      new RegExp(
        `<td data-label="Last used">15 Mar 2026, 12:00</td><td data-label="Actions"><a href="/panel/keys/${made.id}"`,
      ),
      'last used: the time of the /balance/ call',
    );
    assert.match(list.body, new RegExp(`Key ${made.id} \\(hb_live_[^)]{4}…\\)`));
    assert.match(list.body, /Send SMS, Check balance/);
    assert.match(list.body, /Hourly: 10, daily: none, monthly: none/);
    assert.match(list.body, /127\.0\.0\.1, 10\.0\.0\.0\/8/);
    assert.match(list.body, /2030-01-31/);
    // The key is never shown again.
    assert.doesNotMatch(list.body, new RegExp(made.apiKey));
    assert.doesNotMatch((await a.get(`/panel/keys/${made.id}`)).body, new RegExp(made.apiKey));
  });

  it('refuses a key with bad fields, each error next to its field, and creates nothing', async () => {
    const before = (await h.runtime.store.users.keyIdsOf(accountA)).length;
    await a.get('/panel/keys/new');
    const answer = await a.post('/panel/keys', {
      permissions: [],
      hourly_limit: '-3',
      ip_allow: 'not-an-ip',
      expires: '2030-02-30',
    });
    assert.equal(answer.status, 400);
    assert.match(answer.body, /id="key-permissions-error"[^>]*>Error: Choose at least one permission\./);
    assert.match(answer.body, /id="key-hourly-error"[^>]*>Error: Enter a whole number, 0 or more\./);
    assert.match(answer.body, /id="key-ipAllow-error"[^>]*>Error: Not an IP address or CIDR range: not-an-ip/);
    assert.match(answer.body, /id="key-expires-error"[^>]*>Error: Enter a real date/);
    assert.match(answer.body, /aria-describedby="key-hourly-hint key-hourly-error"/);
    assert.equal((await h.runtime.store.users.keyIdsOf(accountA)).length, before);
  });

  it('changes a key\u2019s permissions and limits', async () => {
    const made = await createKey();
    await a.get(`/panel/keys/${made.id}`);
    const saved = await a.post(`/panel/keys/${made.id}/settings`, {
      permissions: ['send_single_sms'],
      daily_limit: '5',
      ip_allow: '',
      expires: '',
    });
    assert.equal(saved.status, 303);
    const key = await h.runtime.store.keys.getKey(made.id);
    assert.equal(key?.permissions.check_balance, false);
    assert.equal(key?.permissions.send_single_sms, true);
    assert.equal(key?.dailyLimit, 5);
    assert.equal(await balance(made.apiKey), 'TS-1065');
    assert.match((await a.get(saved.location ?? '')).body, /Settings saved\./);
  });

  it('pauses a key (the API refuses it), reactivates it, and revokes it after a confirmation page', async () => {
    const made = await createKey();
    await a.get(`/panel/keys/${made.id}`);
    assert.equal((await a.post(`/panel/keys/${made.id}/pause`)).status, 303);
    assert.equal(await balance(made.apiKey), 'TS-1035');
    assert.match((await a.get(`/panel/keys/${made.id}`)).body, /<dd class="state">Paused<\/dd>/);
    assert.equal((await a.post(`/panel/keys/${made.id}/reactivate`)).status, 303);
    assert.equal(await balance(made.apiKey), 'TS-1040');
    const confirm = await a.get(`/panel/keys/${made.id}/revoke`);
    assert.match(confirm.body, /Yes, revoke this key/);
    assert.equal(await balance(made.apiKey), 'TS-1040', 'the confirmation page changes nothing');
    assert.equal((await a.post(`/panel/keys/${made.id}/revoke`)).status, 303);
    assert.equal(await balance(made.apiKey), 'TS-1035');
    // A revoked key cannot come back.
    const again = await a.post(`/panel/keys/${made.id}/reactivate`);
    assert.equal(again.status, 200);
    assert.match(again.body, /That cannot be done to this key in its current state\./);
    assert.equal(await balance(made.apiKey), 'TS-1035');
  });

  it('rotates with keep-old (both keys work) and without (only the new one)', async () => {
    const first = await createKey();
    await a.get(`/panel/keys/${first.id}`);
    const kept = await a.post(`/panel/keys/${first.id}/rotate`, { keep_old: '1' });
    assert.equal(kept.status, 200);
    assert.match(kept.body, /The old key keeps working until/);
    const second = shownKey(kept.body);
    assert.equal(await balance(first.apiKey), 'TS-1040');
    assert.equal(await balance(second), 'TS-1040');
    h.clock.advance(24 * 3600_000 + 1000);
    assert.equal(await balance(first.apiKey), 'TS-1035');
    const secondId = Number(/href="\/panel\/keys\/(\d+)"/.exec(kept.body)?.[1]);
    await a.get(`/panel/keys/${secondId}`);
    const replaced = await a.post(`/panel/keys/${secondId}/rotate`, {});
    assert.match(replaced.body, /The old key no longer works\./);
    assert.equal(await balance(second), 'TS-1035');
    assert.equal(await balance(shownKey(replaced.body)), 'TS-1040');
  });

  it('sets a webhook, sends a test event to it, shows the attempt in the delivery log and delivers it again', async () => {
    const made = await createKey();
    await a.get(`/panel/keys/${made.id}`);
    const saved = await a.post(`/panel/keys/${made.id}/webhook`, {
      webhook_url: `${receiver.url}/hook`,
      webhook_secret: 'Sekr3t-Value-XYZ',
      webhook_attempts: '3',
      webhook_events: ['sms.delivered', 'sms.failed'],
    });
    assert.equal(saved.status, 303);
    const key = await h.runtime.store.keys.getKey(made.id);
    assert.equal(key?.webhookUrl, `${receiver.url}/hook`);
    assert.equal(key?.webhookSecret, 'Sekr3t-Value-XYZ');
    assert.deepEqual(key?.webhookEvents, ['sms.delivered', 'sms.failed']);
    assert.equal(key?.webhookAttempts, 3);
    const count = receiver.requests.length;
    const tested = await a.post(`/panel/keys/${made.id}/webhook/test`);
    assert.equal(tested.status, 303);
    assert.equal(receiver.requests.length, count + 1);
    assert.match(receiver.requests[count]?.body ?? '', /"event_type":"key\.test"/);
    assert.match(String(receiver.requests[count]?.headers['x-service-signature']), /^sha256=/);
    const page = await a.get(tested.location ?? '');
    assert.match(page.body, /Test event delivered \(HTTP 200\)\./);
    assert.match(page.body, /<code>key\.test<\/code><\/td><td>HTTP 200<\/td><td>\d+ ms<\/td><td>Delivered<\/td>/);
    const event = /\/webhook\/deliveries\/(\d+)\/redeliver/.exec(page.body)?.[1];
    assert.ok(event);
    const again = await a.post(`/panel/keys/${made.id}/webhook/deliveries/${event}/redeliver`);
    assert.equal(again.status, 303);
    assert.equal(receiver.requests.length, count + 2);
    assert.match((await a.get(again.location ?? '')).body, /Delivered again\./);
    // The secret is kept when the field is left empty, and never shown.
    await a.post(`/panel/keys/${made.id}/webhook`, {
      webhook_url: `${receiver.url}/other`,
      webhook_events: ['sms.sent', 'sms.delivered', 'sms.failed', 'sms.cancelled', 'sms.received', 'sms.clicked'],
    });
    const after = await h.runtime.store.keys.getKey(made.id);
    assert.equal(after?.webhookSecret, 'Sekr3t-Value-XYZ');
    assert.equal(after?.webhookEvents, null);
    assert.doesNotMatch((await a.get(`/panel/keys/${made.id}`)).body, /Sekr3t-Value-XYZ/);
  });

  it('shows a key past its expiry date as Expired, offers no rotation, and a new date brings it back', async () => {
    const made = await createKey({ expires: '2026-03-15' });
    h.clock.advance(24 * 3600_000 * 3);
    let page = await a.get(`/panel/keys/${made.id}`);
    assert.match(page.body, /<dd class="state">Expired<\/dd>/);
    assert.doesNotMatch(page.body, /Rotate key<\/button>/);
    assert.equal(await balance(made.apiKey), 'TS-1035');
    await a.post(`/panel/keys/${made.id}/settings`, { permissions: ['check_balance'], expires: '2031-01-01' });
    page = await a.get(`/panel/keys/${made.id}`);
    assert.match(page.body, /<dd class="state">Active<\/dd>/);
    assert.equal(await balance(made.apiKey), 'TS-1040');
  });

  it('refuses a webhook URL that is not http(s), next to the field', async () => {
    const made = await createKey();
    await a.get(`/panel/keys/${made.id}`);
    const answer = await a.post(`/panel/keys/${made.id}/webhook`, {
      webhook_url: 'ftp://example.com/x',
      webhook_attempts: '99',
    });
    assert.equal(answer.status, 400);
    assert.match(answer.body, /id="webhook-url-error"[^>]*>Error: Enter an http:\/\/ or https:\/\/ URL\./);
    assert.match(answer.body, /id="webhook-attempts-error"[^>]*>Error: Enter a whole number from 1 to 50\./);
    assert.match(answer.body, /name="webhook_attempts"[^>]*value="99"/);
    assert.equal((await h.runtime.store.keys.getKey(made.id))?.webhookUrl, null);
  });
});
