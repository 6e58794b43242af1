/**
 * Start-up warm-up of the request path. A fresh process runs its first few thousand
 * requests in V8's interpreter and baseline tiers while the optimizing compiler works on
 * the same cores; measured under load, that start costs a quarter of the accept rate and
 * 6-10 ms of p99 (docs/benchmarks.md, fifth session). So before `serve` opens its port it
 * sends itself `requests` /sms/send and /balance/ requests, over loopback HTTP to a second
 * instance of the same application on a throwaway SQLite store in a temporary folder,
 * which is deleted afterwards. The real store, its accounts and the delivery threads are
 * not touched; only the compiled code remains.
 */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { createHttp, createLogger, openRuntime } from '../main.js';
import { defaultKeySettings } from '../services/admin.js';
import { ThreadWriteLock } from '../adapters/store/thread-write-lock.js';
import { sqliteFileIn } from '../adapters/store/database.js';
import { DispatchWindow } from '../jobs/dispatch-window.js';
import { defaultDispatcherOptions } from '../jobs/dispatcher.js';

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
  const send = (fields: Record<string, unknown>) => ({ path: '/sms/send', body: JSON.stringify({ api_key: apiKey, title: 'WARMUP', ...fields }) });
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
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

export async function warmUp(config: Config, requests: number): Promise<WarmUpResult> {
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), 'haberci-warm-up-'));
  try {
    const runtime = await openRuntime({ dialect: 'sqlite', file: sqliteFileIn(dir), threadLock: { buffer: new ThreadWriteLock().buffer, as: { role: 'foreground' } } });
    try {
      const account = await runtime.admin.createAccount({ name: 'Warm-up', balanceMain: 100 * requests, balanceInternational: 0, perMinuteLimit: 0, otpBrand: 'Haberci', ipAllow: [], globalSending: false });
      await runtime.admin.addSenderId(account.id, 'WARMUP', 'approved');
      const key = await runtime.admin.createKey(account.id, defaultKeySettings);
      // Accepted sends are handed on as in `serve`, to a window of their own, and dropped.
      const window = new DispatchWindow(defaultDispatcherOptions.maxInFlight);
      runtime.services.sends.handOffTo({ leaseMs: config.leaseMs, reserve: (n) => window.reserve(n), release: (n) => window.release(n), hand: (messages) => window.release(messages.length) });
      const app = await createHttp(runtime, { ...config, requestsPerSecond: 0, trustedProxies: [] }, createLogger('silent'));
      try {
        await app.listen({ port: 0, host: '127.0.0.1' });
        const address = app.server.address();
        const port = typeof address === 'object' && address !== null ? address.port : 0;
        const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
        const shapes = bodies(key.api_key);
        let next = 0;
        let unexpected = 0;
        const lane = async (): Promise<void> => {
          while (next < requests) {
            const shape = shapes[next++ % shapes.length];
            if (!shape) return;
            if ((await post(agent, port, shape.path, shape.body)) !== 200) unexpected++;
          }
        };
        await Promise.all(Array.from({ length: connections }, lane));
        agent.destroy();
        return { requests, unexpected, ms: Math.round(performance.now() - started) };
      } finally {
        await app.close();
      }
    } finally {
      await runtime.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
