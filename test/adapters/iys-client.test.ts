/**
 * haberci's İYS client against `haberci iys-sim`'s simulator and against servers that
 * misbehave: a token asked for again after a 401, refused credentials, a record refused by
 * İYS (failed, with its reason), a time-out, an answer over the bound, an outage, and the
 * changes after a cursor. No error ever holds the password.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { IysSimulator } from '../../src/adapters/iys/iys-simulator.js';
import { IysClient } from '../../src/adapters/iys/iys-client.js';
import type { IysClientOptions } from '../../src/adapters/iys/iys-client.js';
import { IysUnavailable } from '../../src/ports/iys-api.js';
import type { Consent } from '../../src/domain/iys.js';
import { parseConsentDate } from '../../src/domain/iys.js';

const password = 'Client-Secret-pw-9';
const onay = (recipient: string, date = '2026-01-01 10:00:00'): Consent => ({
  recipient,
  recipientType: 'BIREYSEL',
  status: 'ONAY',
  source: 'HS_WEB',
  consentDate: parseConsentDate(date) ?? 0,
});

async function rejection(p: Promise<unknown>): Promise<IysUnavailable> {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof IysUnavailable, String(error));
    assert.equal(error.message.includes(password), false, 'no password in the error');
    return error;
  }
  assert.fail('expected IysUnavailable');
}

describe('İYS client', () => {
  let sim: IysSimulator;
  const client = (extra: Partial<IysClientOptions> = {}): IysClient =>
    new IysClient({
      url: `http://127.0.0.1:${sim.port}/`,
      iysCode: '700001',
      brandCode: '700002',
      username: 'api-user',
      password: () => password,
      timeoutMs: 3000,
      ...extra,
    });

  before(async () => {
    sim = new IysSimulator({ port: 0, username: 'api-user', password, tokenTtlSeconds: 1 });
    await sim.start();
  });
  after(() => sim.stop());

  it('asks for a new token when İYS answers 401 to one it thinks still good', async () => {
    // The client's clock stands still: it keeps the token; the simulator's expires in 1 s.
    const c = client({ now: () => 0 });
    assert.deepEqual(await c.add([onay('905321119001')]), [{ ok: true }]);
    const tokens = sim.stats.tokens;
    await new Promise((r) => setTimeout(r, 1100));
    assert.deepEqual(await c.add([onay('905321119002')]), [{ ok: true }]);
    assert.equal(sim.stats.tokens, tokens + 1);
  });

  it('says refused credentials without the password', async () => {
    const error = await rejection(client({ password: () => 'wrong-password' }).add([onay('905321119003')]));
    assert.match(error.message, /credentials \(401\)/);
  });

  it('gives a result per record of a batch: İYS refuses one (a consent date in the future) and takes the others', async () => {
    const future = { ...onay('905321119004'), consentDate: Date.now() + 86_400_000 };
    const results = await client().add([onay('905321119005'), future, onay('905321119006')]);
    assert.equal(results[0]?.ok, true);
    assert.equal(results[2]?.ok, true);
    assert.deepEqual(results[1], { ok: false, error: 'H100: consentDate is in the future' });
    const single = await client().add([future]);
    assert.deepEqual(single, [{ ok: false, error: '400 H100: consentDate is in the future' }]);
  });

  it('is unavailable during an outage, then answers', async () => {
    sim.outage(60_000);
    const error = await rejection(client().add([onay('905321119007')]));
    assert.match(error.message, /503/);
    sim.outage(0);
    assert.deepEqual(await client().add([onay('905321119007')]), [{ ok: true }]);
  });

  it('pulls the changes made on İYS after a cursor, page by page', async () => {
    for (const n of ['905321119010', '905321119011', '905321119012'])
      sim.change('700001', '700002', {
        recipient: n,
        recipientType: 'BIREYSEL',
        status: 'RET',
        source: 'IYS',
        consentDate: '2026-05-01 09:00:00',
        type: 'MESAJ',
      });
    const c = client();
    const first = await c.changes(null, 2);
    assert.deepEqual(
      first.consents.map((x) => [x.recipient, x.status, x.source]),
      [
        ['905321119010', 'RET', 'IYS'],
        ['905321119011', 'RET', 'IYS'],
      ],
    );
    const second = await c.changes(first.after, 2);
    assert.deepEqual(
      second.consents.map((x) => x.recipient),
      ['905321119012'],
    );
    const third = await c.changes(second.after, 2);
    assert.equal(third.consents.length, 0);
    assert.equal(third.after, second.after);
  });

  describe('against a server that misbehaves', () => {
    let server: Server;
    let mode: 'silent' | 'huge' = 'silent';
    before(async () => {
      server = createServer((req, res) => {
        if (mode === 'huge') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ access_token: 'x'.repeat(4096) }));
        }
        // silent: never answers.
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });
    const against = (extra: Partial<IysClientOptions>): IysClient =>
      new IysClient({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        iysCode: '1',
        brandCode: '2',
        username: 'u',
        password: () => password,
        timeoutMs: 3000,
        ...extra,
      });

    it('gives up on a request past its time limit', async () => {
      mode = 'silent';
      const error = await rejection(against({ timeoutMs: 200 }).add([onay('905321119020')]));
      assert.match(error.message, /no answer within 200 ms/);
    });

    it('reads no more of an answer than its bound', async () => {
      mode = 'huge';
      const error = await rejection(against({ maxBodyBytes: 1024 }).add([onay('905321119021')]));
      assert.match(error.message, /more than 1024 bytes/);
    });
  });
});
