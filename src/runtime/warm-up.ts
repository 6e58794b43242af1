/**
 * Start-up warm-up of the request path. A fresh process runs its first few thousand
 * requests in V8's interpreter and baseline tiers while the optimizing compiler works on the
 * same cores; measured under load, that start costs a tenth to a quarter of the accept rate
 * and some milliseconds of p99 (docs/benchmarks.md; docs/decisions.md, "Runtime re-cut").
 * So before `serve` opens its port it sends itself `requests` /sms/send and /balance/
 * requests, over loopback HTTP to a second instance of the same application on a throwaway
 * SQLite store in a temporary folder, which is deleted afterwards. Nothing is dispatched:
 * the accepted messages are handed off to a window of the warm-up's own and dropped with the
 * store. The real store and its accounts are not touched; only the compiled code remains.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config.js';
import {
  createHttp,
  createLogger,
  defaultKeySettings,
  dispatchWindow,
  handOffSends,
  openAppContainer,
  warmUpLocation,
} from '../main.js';
import type { AdminResult, AppContainer } from '../main.js';

export interface WarmUpResult {
  requests: number;
  /** Answers other than 200: a sign the warm-up exercised another path than intended. */
  unexpected: number;
  ms: number;
}

/** Requests in flight at once: enough to batch sends as real traffic does. */
const connections = 16;

/** Bodies of several shapes, so the compiled code is not specialised to one. */
function bodies(apiKey: string): { path: string; body: string }[] {
  const send = (fields: Record<string, unknown>) => ({
    path: '/sms/send',
    body: JSON.stringify({ api_key: apiKey, title: 'WARMUP', ...fields }),
  });
  return [
    send({ sentto: '905321234567', text: 'Warm-up message 1234567890', sms_lang: 0 }),
    send({ sentto: '05331234567', text: 'Isınma mesajı: ğüşıöç', sms_lang: 1 }),
    send({ sentto: '905421234567,905051234567', text: 'Warm-up message for two numbers', sms_lang: 0 }),
    send({ mobile: '+90 532 765 43 21', text: 'Warm-up ünicode ✓', sms_lang: 2 }),
    send({ sentto: '905321234568', text: 'x'.repeat(200), sms_lang: 0, content_type: 1 }),
    { path: '/balance/', body: JSON.stringify({ api_key: apiKey }) },
  ];
}

function post(agent: http.Agent, port: number, path: string, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/** The warm-up's throwaway store, with an account, a sender ID and a key. prepare() sets it up, run() sends the requests, close() removes it. */
export class WarmUp {
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly container: AppContainer,
    private readonly apiKey: string,
  ) {}

  static async prepare(): Promise<WarmUp> {
    const dir = await mkdtemp(join(tmpdir(), 'haberci-warm-up-'));
    let container: AppContainer | null = null;
    try {
      // The store's code as `serve` runs it: the write lock shared between threads.
      container = await openAppContainer(warmUpLocation(dir));
      const account = made(
        await container.admin.createAccount({
          name: 'Warm-up',
          balanceMain: 1_000_000_000,
          balanceInternational: 0,
          perMinuteLimit: 0,
          otpBrand: 'Haberci',
          ipAllow: [],
          globalSending: false,
        }),
      );
      made(await container.admin.addSenderId(account.id, 'WARMUP', 'approved'));
      const key = made(await container.admin.createKey(account.id, defaultKeySettings));
      return new WarmUp(dir, container, key.api_key);
    } catch (error) {
      await container?.close();
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Sends `requests` requests, `connections` at a time. */
  async run(config: Config, requests: number): Promise<WarmUpResult> {
    const started = performance.now();
    const { container } = this;
    // Accepted sends are handed off as in `serve` (so that code is compiled too), to a window
    // of the warm-up's own, and dropped.
    const window = dispatchWindow();
    handOffSends(container, window, config.leaseMs, (messages) => window.release(messages.length));
    const app = await createHttp({
      container,
      config: { ...config, requestsPerSecond: 0, trustedProxies: [] },
      logger: createLogger('silent'),
    });
    let unexpected = 0;
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as AddressInfo).port;
      const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
      const shapes = bodies(this.apiKey);
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < requests) {
          const shape = shapes[next++ % shapes.length];
          if (!shape) return;
          if ((await post(agent, port, shape.path, shape.body)) !== 200) unexpected++;
        }
      };
      await Promise.all(Array.from({ length: connections }, lane));
      agent.destroy();
    } finally {
      await app.close();
    }
    return { requests, unexpected, ms: Math.round(performance.now() - started) };
  }

  /** Removes the store (once; later calls do nothing). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.container.close();
    } finally {
      await rm(this.dir, { recursive: true, force: true });
    }
  }
}

/** A step of the warm-up's set-up cannot fail on its own fresh store: a failure ends the warm-up with its message. */
function made<T>(result: AdminResult<T>): T {
  if (!result.ok) throw new Error(`the warm-up store cannot be set up: ${result.message}`);
  return result.value;
}
