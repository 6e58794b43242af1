import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { HttpWebhookSender } from '../../../src/adapters/webhooks/http-webhook-sender.js';
import type { Resolver } from '../../../src/adapters/webhooks/guarded-lookup.js';
import { buildAttempt } from '../../../src/domain/webhook.js';
import { answer, startReceiver } from '../../helpers/webhook-receiver.js';
import type { ReceiverHandler } from '../../helpers/webhook-receiver.js';

const open = new HttpWebhookSender({ allowPrivate: true });
const guarded = new HttpWebhookSender({ allowPrivate: false });
after(() => {
  open.close();
  guarded.close();
});

const event = { eventId: 'evt_1', eventType: 'sms.delivered', smsId: 42 } as const;
const attempt = buildAttempt(event, Date.UTC(2025, 0, 2, 3, 4, 5), 'receiver-secret');
const request = (url: string, timeoutMs = 5_000) => ({ url, body: attempt.body, headers: attempt.headers, timeoutMs });

async function withReceiver<T>(
  handler: ReceiverHandler,
  run: (r: Awaited<ReturnType<typeof startReceiver>>) => Promise<T>,
): Promise<T> {
  const receiver = await startReceiver(handler);
  try {
    return await run(receiver);
  } finally {
    await receiver.close();
  }
}

describe('HttpWebhookSender responses', () => {
  it('acknowledges a 2xx and delivers the exact body with its headers', async () => {
    await withReceiver(answer(204), async (r) => {
      const outcome = await open.send(request(`${r.url}/hook`));
      assert.deepEqual({ ...outcome, durationMs: 0 }, { ok: true, status: 204, error: null, durationMs: 0 });
      assert.equal(r.requests.length, 1);
      const got = r.requests[0];
      assert.equal(got?.method, 'POST');
      assert.equal(got?.path, '/hook');
      assert.equal(got?.body, attempt.body);
      assert.equal(got?.headers['content-type'], 'application/json');
      assert.equal(got?.headers['user-agent'], 'haberci-webhooks/1');
      assert.equal(got?.headers['x-service-timestamp'], '2025-01-02T03:04:05.000Z');
    });
  });

  it('sends a signature the receiver verifies with the secret', async () => {
    await withReceiver(answer(200), async (r) => {
      await open.send(request(r.url));
      const got = r.requests[0];
      const header = String(got?.headers['x-service-signature']);
      const expected =
        'sha256=' +
        createHmac('sha256', 'receiver-secret')
          .update(got?.body ?? '')
          .digest('hex');
      assert.equal(header.length, expected.length);
      assert.ok(timingSafeEqual(Buffer.from(header), Buffer.from(expected)));
    });
  });

  it('reports a 500 as a failure with its status', async () => {
    await withReceiver(answer(500, {}, 'oops'), async (r) => {
      const outcome = await open.send(request(r.url));
      assert.equal(outcome.ok, false);
      assert.equal(outcome.status, 500);
      assert.equal(outcome.error, null);
    });
  });

  it('never follows a redirect: 302 is a failure and Location is not fetched', async () => {
    await withReceiver(answer(302, { Location: '/elsewhere' }), async (r) => {
      const outcome = await open.send(request(`${r.url}/hook`));
      assert.equal(outcome.ok, false);
      assert.equal(outcome.status, 302);
      assert.deepEqual(
        r.requests.map((q) => q.path),
        ['/hook'],
      );
    });
  });

  it('records a receiver that never answers as a timeout', async () => {
    await withReceiver(
      () => undefined,
      async (r) => {
        const outcome = await open.send(request(r.url, 200));
        assert.deepEqual(
          { ok: outcome.ok, status: outcome.status, error: outcome.error },
          { ok: false, status: null, error: 'timeout' },
        );
        assert.ok(outcome.durationMs >= 150 && outcome.durationMs < 10_000, `durationMs ${outcome.durationMs}`);
        assert.equal(r.requests.length, 1);
      },
    );
  });

  it('acknowledges a 2xx whose body never ends, and cuts that connection at the timeout', async () => {
    let cut: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (cut = resolve));
    const stall: ReceiverHandler = (_req, res) => {
      res.on('close', () => cut());
      res.writeHead(200, { 'Content-Length': '1000' });
      res.write('partial');
    };
    await withReceiver(stall, async (r) => {
      const outcome = await open.send(request(r.url, 300));
      assert.equal(outcome.ok, true);
      assert.equal(outcome.status, 200);
      await closed;
    });
  });

  it('reads a large response only up to the bound, then drops the connection', async () => {
    const total = 64 * 1024 * 1024;
    let report: (r: { finished: boolean; sent: number }) => void = () => undefined;
    const done = new Promise<{ finished: boolean; sent: number }>((resolve) => (report = resolve));
    const flood: ReceiverHandler = (_req, res) => {
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      res.on('close', () => report({ finished: res.writableFinished, sent }));
      res.writeHead(200, { 'Content-Length': String(total) });
      const pump = (): void => {
        while (sent < total && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    };
    await withReceiver(flood, async (r) => {
      const outcome = await open.send(request(r.url));
      assert.equal(outcome.ok, true);
      const seen = await done;
      assert.equal(seen.finished, false);
      assert.ok(seen.sent < total, `receiver wrote ${seen.sent} of ${total}`);
    });
  });

  it('reuses one kept-alive connection for consecutive sends', async () => {
    await withReceiver(answer(200, {}, 'ok'), async (r) => {
      await open.send(request(r.url));
      // The pool takes a connection back once its response has ended, a turn of the event
      // loop after the status line that settles the attempt.
      await new Promise((resolve) => setImmediate(resolve));
      await open.send(request(r.url));
      assert.equal(r.requests.length, 2);
      assert.equal(r.requests[0]?.remotePort, r.requests[1]?.remotePort);
    });
  });
});

describe('HttpWebhookSender failures before any response', () => {
  it('refuses loopback literals when private destinations are not allowed', async () => {
    await withReceiver(answer(200), async (r) => {
      for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
        const outcome = await guarded.send(request(`http://${host}:${r.port}/hook`));
        assert.equal(outcome.ok, false, host);
        assert.equal(outcome.status, null, host);
        assert.match(outcome.error ?? '', /^refused destination: .*loopback/, host);
      }
      assert.equal(r.requests.length, 0);
    });
  });

  it('refuses a host name that resolves to loopback (localhost)', async () => {
    await withReceiver(answer(200), async (r) => {
      const outcome = await guarded.send(request(`http://localhost:${r.port}/hook`));
      assert.equal(outcome.ok, false);
      assert.match(outcome.error ?? '', /^refused destination: localhost is .* \(loopback\)/);
      assert.equal(r.requests.length, 0);
    });
  });

  it('checks the address at connect time through the resolver', async () => {
    const asked: string[] = [];
    const resolver: Resolver = async (hostname) => {
      asked.push(hostname);
      return [{ address: '10.0.0.5', family: 4 }];
    };
    const sender = new HttpWebhookSender({ allowPrivate: false, resolver });
    try {
      const outcome = await sender.send(request('https://hooks.example.test/in'));
      assert.equal(outcome.error, 'refused destination: hooks.example.test is 10.0.0.5 (private)');
      assert.deepEqual(asked, ['hooks.example.test']);
    } finally {
      sender.close();
    }
  });

  it('refuses URLs that are not http or https without a request', async () => {
    for (const [url, error] of [
      ['ftp://example.com/x', 'unsupported scheme ftp:'],
      ['file:///etc/passwd', 'unsupported scheme file:'],
      ['gopher://127.0.0.1:70/_x', 'unsupported scheme gopher:'],
      ['not a url', 'invalid url'],
    ] as const) {
      const outcome = await open.send(request(url));
      assert.deepEqual(
        { ok: outcome.ok, status: outcome.status, error: outcome.error },
        { ok: false, status: null, error },
        url,
      );
    }
  });

  it('turns connection and TLS errors and bad headers into outcomes', async () => {
    await withReceiver(answer(200), async (r) => {
      const tls = await open.send(request(`https://127.0.0.1:${r.port}/`));
      assert.equal(tls.ok, false);
      assert.equal(tls.status, null);
      assert.notEqual(tls.error, null);
      const badHeader = await open.send({ ...request(r.url), headers: { 'X-Bad': 'a\nb' } });
      assert.equal(badHeader.ok, false);
      assert.notEqual(badHeader.error, null);
    });
  });

  let deadUrl = '';
  before(async () => {
    const r = await startReceiver();
    deadUrl = r.url;
    await r.close();
  });

  it('reports a closed port as a connection error', async () => {
    const outcome = await open.send(request(deadUrl));
    assert.equal(outcome.ok, false);
    assert.match(outcome.error ?? '', /ECONNREFUSED/);
  });
});
