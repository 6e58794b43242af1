/**
 * The typed client (`haberci/client`, resolved through package.json's exports map as an
 * installed package would be) against a running server: one test per endpoint, each
 * answer also checked against the OpenAPI document, then rate-limit retries and time-outs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo, Server, Socket } from 'node:net';
import type * as ClientModule from '../../src/client/index.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { checkAgainstContract } from '../helpers/contract-check.js';

// A specifier TypeScript does not resolve at build time: the package's own exports map.
const clientModule = 'haberci/client';
const { HaberciClient, HaberciRequestError } = (await import(clientModule)) as typeof ClientModule;
type Client = ClientModule.HaberciClient;

async function serving(requestsPerSecond: number): Promise<{ h: Harness; baseUrl: string }> {
  const h = await createHarness(undefined, { requestsPerSecond });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;
  return { h, baseUrl: `http://127.0.0.1:${port}` };
}

/** The answer matches the document for its path and status (the suite's response check). */
function conforms(path: string, answer: { status: number; body: unknown }): void {
  checkAgainstContract('POST', path, answer.status, JSON.stringify(answer.body));
}

describe('HaberciClient against a running server', () => {
  let h: Harness;
  let client: Client;
  before(async () => {
    const s = await serving(100);
    h = s.h;
    const p = await h.provision({ key: { sandbox: true } });
    client = new HaberciClient({ baseUrl: s.baseUrl, apiKey: p.apiKey, timeoutMs: 10_000 });
  });
  after(async () => h.close());

  it('authCheck: the key and account summary, with the rate-limit headers surfaced', async () => {
    const a = await client.authCheck();
    conforms('/auth/post/check/', a);
    assert.equal(a.body.result_code, 'TS-1000');
    if (a.body.result_code === 'TS-1000') assert.equal(a.body.key_details.permissions.check_balance, true);
    assert.equal(a.rateLimit?.limit, 100);
    assert.equal(typeof a.rateLimit?.remaining, 'number');
  });

  it('balance: balance_main', async () => {
    const a = await client.balance();
    conforms('/balance/', a);
    assert.equal(a.body.result_code, 'TS-1040');
    if (a.body.result_code === 'TS-1040') assert.equal(a.body.balance_main, 1000);
  });

  it('senderIds: the approved sender IDs', async () => {
    const a = await client.senderIds();
    conforms('/senderid/check', a);
    assert.equal(a.body.result_code, 'TS-1040');
    if (a.body.result_code === 'TS-1040')
      assert.deepEqual(
        a.body.sender_ids.map((s) => s.title),
        ['ACME'],
      );
  });

  let smsId = 0;
  it('smsSend: accepted, then smsStatus reads the message', async () => {
    const a = await client.smsSend({ sentto: '905321234567', title: 'ACME', text: 'Hello' });
    conforms('/sms/send', a);
    assert.equal(a.body.result_code, 'TS-1024');
    if (a.body.result_code === 'TS-1024') smsId = a.body.sms_id;
    assert.ok(smsId > 0);
  });

  it('smsStatus: TS-1022 or TS-1064 with the status record; a refusal is typed by its code', async () => {
    const a = await client.smsStatus({ sms_id: smsId });
    conforms('/sms/status', a);
    assert.ok(a.body.result_code === 'TS-1022' || a.body.result_code === 'TS-1064', JSON.stringify(a.body));
    const refused = await client.smsStatus({ sms_id: 0 });
    conforms('/sms/status', refused);
    assert.deepEqual([refused.status, refused.body.result_code, refused.body.result], [403, 'TS-1052', false]);
  });

  it('otpSend: a code', async () => {
    const a = await client.otpSend({ mobile: '05321234567', digits: 6 });
    conforms('/otp/send', a);
    assert.equal(a.body.result_code, 'TS-1024');
    if (a.body.result_code === 'TS-1024') assert.equal(String(a.body.otp_code).length, 6);
  });

  it('otpDetailed: a code in our own text', async () => {
    const a = await client.otpDetailed({ mobile: '905321234567', title: 'ACME', text: 'Code TS-CODE' });
    conforms('/otp/detailed', a);
    assert.equal(a.body.result_code, 'TS-1024');
    if (a.body.result_code === 'TS-1024') assert.equal(a.body.sandbox, true);
  });

  it('otpVerify: the code just sent, then the same again', async () => {
    const sent = await client.otpSend({ mobile: '05321234567' });
    assert.equal(sent.body.result_code, 'TS-1024');
    if (sent.body.result_code !== 'TS-1024') return;
    const a = await client.otpVerify({ sms_id: sent.body.sms_id, code: sent.body.otp_code });
    conforms('/otp/verify', a);
    assert.deepEqual([a.body.result_code, a.body.result && a.body.verified], ['TS-1064', true]);
    const again = await client.otpVerify({ sms_id: sent.body.sms_id, code: sent.body.otp_code });
    conforms('/otp/verify', again);
    assert.deepEqual([again.body.result_code, again.body.result && again.body.verified], ['TS-1092', false]);
  });

  it('groupPause, groupResume, groupCancel and smsCancel: a scheduled send held, let go, then called back', async () => {
    const sent = await client.groupSend({
      title: 'ACME',
      sentto: ['905321234567', '905321234568'],
      text: 'Later',
      scheduled_sms: 1,
      scheduled_date: '2030-01-01',
      scheduled_time: '10:00',
    });
    assert.equal(sent.body.result_code, 'TS-1024');
    if (sent.body.result_code !== 'TS-1024') return;
    const rapor_id = sent.body.rapor_id;
    const paused = await client.groupPause({ rapor_id });
    conforms('/group/pause', paused);
    assert.deepEqual([paused.body.result_code, paused.body.result && paused.body.state], ['TS-1064', 'paused']);
    const resumed = await client.groupResume({ rapor_id });
    conforms('/group/resume', resumed);
    assert.deepEqual([resumed.body.result && resumed.body.state], ['running']);
    const cancelled = await client.groupCancel({ rapor_id });
    conforms('/group/cancel', cancelled);
    assert.deepEqual(cancelled.body.result ? [cancelled.body.cancelled, cancelled.body.refunded] : [], [2, 2]);
    const none = await client.smsCancel({ sms_id: rapor_id });
    conforms('/sms/cancel', none);
    assert.equal(none.body.result_code, 'TS-1020');
  });

  let groupId = 0;
  it('groupsCreate: a group', async () => {
    const a = await client.groupsCreate({ name: 'Customers' });
    conforms('/groups/create', a);
    assert.equal(a.body.result_code, 'TS-1064');
    if (a.body.result_code === 'TS-1064' && a.body.result) groupId = a.body.group.id;
    assert.ok(groupId > 0);
  });

  it('groupsEdit: the new name', async () => {
    const a = await client.groupsEdit({ group_id: groupId, name: 'Clients' });
    conforms('/groups/edit', a);
    assert.equal(a.body.result_code === 'TS-1064' && a.body.result ? a.body.new_name : null, 'Clients');
  });

  it('templatesCreate, templatesList, templatesDelete; contactsAdd with fields; groupSend with template_id', async () => {
    const created = await client.templatesCreate({ name: 'Hello', text: 'Hi {{name}}' });
    conforms('/templates/create', created);
    const id = created.body.result_code === 'TS-1064' && created.body.result ? created.body.template_id : 0;
    assert.ok(id > 0, JSON.stringify(created.body));
    const fielded = await client.contactsAdd({
      group_id: groupId,
      contacts: [{ mobile: '905321234599', fields: { name: 'Ayşe' } }],
    });
    conforms('/contacts/add', fielded);
    const sent = await client.groupSend({ title: 'ACME', sentto: ['905321234599'], template_id: id });
    conforms('/group/send', sent);
    assert.equal(sent.body.result_code, 'TS-1024', JSON.stringify(sent.body));
    const listed = await client.templatesList();
    conforms('/templates/list', listed);
    assert.equal(listed.body.result_code === 'TS-1064' && listed.body.result ? listed.body.templates_count : null, 1);
    const removed = await client.templatesDelete({ template_id: id });
    conforms('/templates/delete', removed);
    assert.equal(removed.body.result_code, 'TS-1064');
  });

  it('contactsAdd: numbers into the group', async () => {
    const a = await client.contactsAdd({ group_id: groupId, mobile: ['905321234567', '905321234568'] });
    conforms('/contacts/add', a);
    assert.equal(a.body.result_code === 'TS-1064' && a.body.result ? a.body.total_added : null, 2);
  });

  it('groupsList: the group', async () => {
    const a = await client.groupsList();
    conforms('/groups/list', a);
    assert.equal(a.body.result_code === 'TS-1064' && a.body.result ? a.body.groups_count : null, 1);
  });

  it('groupsDelete: the group is gone', async () => {
    const a = await client.groupsDelete({ group_id: groupId });
    conforms('/groups/delete', a);
    assert.equal(a.body.result_code, 'TS-1064');
    const again = await client.groupsDelete({ group_id: groupId });
    conforms('/groups/delete', again);
    assert.deepEqual([again.status, again.body.result_code, again.body.result], [200, 'TS-1029', false]);
  });

  it('blacklistAdd: the number is listed', async () => {
    const added = await client.blacklistAdd({ number: '05321234567' });
    conforms('/blacklist/post/add', added);
    assert.equal(added.body.result_code, 'TS-1141');
  });

  it('blacklistStatus: listed, in either form of the number', async () => {
    const status = await client.blacklistStatus({ number: '905321234567' });
    conforms('/blacklist/post/status', status);
    assert.equal(status.body.result_code, 'TS-1143');
    if (status.body.result_code === 'TS-1143') assert.equal(status.body.is_blocked, true);
  });

  let raporId = 0;
  it('groupSend: a queued bulk send', async () => {
    const a = await client.groupSend({ title: 'ACME', sentto: ['905321234567', '905321234568'], text: 'Hello' });
    conforms('/group/send', a);
    if (a.body.result_code === 'TS-1024') raporId = a.body.rapor_id;
    assert.ok(raporId > 0, JSON.stringify(a.body));
  });

  it('groupSendMixed: one text per number', async () => {
    const a = await client.groupSendMixed({ title: 'ACME', sentto: ['905321234567'], text: ['Hi'] });
    conforms('/group/sendMixed', a);
    assert.equal(a.body.result_code === 'TS-1024' ? a.body.total_numbers : null, 1);
  });

  it('reportsBasic: the counters of the bulk send', async () => {
    const a = await client.reportsBasic({ raporid: raporId });
    conforms('/reports/basic', a);
    assert.equal(a.body.result_code === 'TS-1064' && a.body.status === 'success' ? a.body.total_numbers : null, 2);
  });

  it('reportsDetailed: its rows', async () => {
    const a = await client.reportsDetailed({ raporid: raporId });
    conforms('/reports/detailed', a);
    assert.equal(
      a.body.result_code === 'TS-1064' && a.body.status === 'success' ? a.body.pagination.current_page : null,
      1,
    );
  });
});

describe('HaberciClient: rate limits and time-outs', () => {
  let h: Harness;
  let baseUrl = '';
  let apiKey = '';
  before(async () => {
    const s = await serving(1);
    h = s.h;
    baseUrl = s.baseUrl;
    apiKey = (await h.provision()).apiKey;
  });
  after(async () => h.close());

  /**
   * Uses up the key's one request of the current second, then makes `call` at once. The
   * window may end between the two (the call then succeeds at its first attempt): the
   * scenario is tried again, a few times at most.
   */
  async function refusedFirst<T extends { attempts: number }>(call: () => Promise<T>): Promise<T> {
    const probe = new HaberciClient({ baseUrl, apiKey, rateLimitRetries: 0 });
    let last: T | null = null;
    for (let i = 0; i < 5 && (last === null || last.attempts === 1); i += 1) {
      while ((await probe.balance()).status !== 429);
      last = await call();
    }
    if (last === null) throw new Error('unreachable');
    return last;
  }

  it('waits as Retry-After says and tries a refused query again', async () => {
    const client = new HaberciClient({ baseUrl, apiKey });
    const a = await refusedFirst(() => client.balance());
    assert.deepEqual([a.status, a.body.result_code, a.attempts], [200, 'TS-1040', 2]);
  });

  it('retries a send refused by the rate limit when it has an idempotency_key', async () => {
    const client = new HaberciClient({ baseUrl, apiKey });
    const keyed = await refusedFirst(() =>
      client.smsSend({ sentto: '905321234567', title: 'ACME', text: 'Hello', idempotency_key: 'order-1' }),
    );
    conforms('/sms/send', keyed);
    assert.deepEqual([keyed.body.result_code, keyed.attempts], ['TS-1024', 2]);
  });

  it('does not retry a send without idempotency_key, even with a Retry-After', async () => {
    const limited = await h.provision({ account: { perMinuteLimit: 1 } });
    const client = new HaberciClient({ baseUrl, apiKey: limited.apiKey, maxRetryAfterSeconds: 3600 });
    const send = () => client.smsSend({ sentto: '905321234567', title: 'ACME', text: 'Hello' });
    const first = await send();
    assert.equal(first.body.result_code, 'TS-1024');
    // Refused by the per-minute limit (Retry-After 60) or, within the same second, by the
    // key's request rate (Retry-After 1): either way a send without a key is not repeated.
    const plain = await send();
    conforms('/sms/send', plain);
    assert.deepEqual([plain.status, plain.body.result_code, plain.attempts], [429, 'TS-1060', 1]);
    assert.ok((plain.retryAfterSeconds ?? 0) >= 1);
  });

  it('retries an answer of 503 with Retry-After (nothing of the request was done)', async () => {
    let asked = 0;
    const flaky = createHttpServer((request, response) => {
      asked += 1;
      request.resume();
      response.setHeader('content-type', 'application/json');
      if (asked === 1) {
        response.writeHead(503, { 'retry-after': '0' });
        response.end(JSON.stringify({ result: false, result_code: 'SRV-ERR', result_message: 'busy' }));
      } else {
        response.end(JSON.stringify({ result: true, result_code: 'TS-1040', result_message: 'ok', balance_main: 7 }));
      }
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const { port } = flaky.address() as AddressInfo;
    try {
      const client = new HaberciClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey });
      const answer = await client.balance();
      assert.deepEqual([answer.status, answer.body.result_code, answer.attempts, asked], [200, 'TS-1040', 2, 2]);
      const once = new HaberciClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey, rateLimitRetries: 0 });
      asked = 0;
      assert.deepEqual([(await once.balance()).status, asked], [503, 1]);
    } finally {
      await new Promise<void>((resolve) => flaky.close(() => resolve()));
    }
  });

  it('gives up when the server does not answer within the time-out', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const client = new HaberciClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey, timeoutMs: 200 });
      await assert.rejects(client.balance(), (e: unknown) => e instanceof HaberciRequestError && e.kind === 'timeout');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
