/**
 * Start-up warm-up. A fresh process runs its first few thousand requests, and its job
 * threads their first few thousand messages, in V8's interpreter and baseline tiers while
 * the optimizing compiler works on the same cores; measured under load, that start costs a
 * quarter of the accept rate and 10-15 ms of p99 (docs/benchmarks.md, fifth and sixth
 * sessions). So before `serve` opens its port it sends itself `requests` /sms/send and
 * /balance/ requests, over loopback HTTP to a second instance of the same application on a
 * throwaway SQLite store in a temporary folder, which is deleted afterwards. The job
 * threads run on that store meanwhile (JobThreadStart.warmUp): they dispatch the warm-up's
 * messages, store their receipts and deliver their webhooks to a receiver of the warm-up's
 * own, then move to the real store. The warm-up never uses the configured carrier: with
 * SMPP connections configured it sends to an SMSC simulator of its own on loopback, else
 * to the built-in simulator. The real store and its accounts are not touched; only the
 * compiled code remains.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { createHttp, createLogger, openAppContainer } from '../main.js';
import type { AppContainer } from '../main.js';
import { defaultKeySettings } from '../services/admin.js';
import { ThreadWriteLock } from '../adapters/store/thread-write-lock.js';
import { sqliteFileIn } from '../adapters/store/database.js';
import type { StoreLocation } from '../adapters/store/database.js';
import { SmscSimulator } from '../adapters/carriers/smpp/smsc-simulator.js';
import type { SmppCarrierConfigInput } from '../adapters/carriers/smpp/smpp-config.js';
import { DispatchWindow } from '../jobs/dispatch-window.js';
import { defaultDispatcherOptions } from '../jobs/dispatcher.js';
import type { JobThreadWarmUp } from './thread-protocol.js';
import type { JobThreads } from './job-threads.js';
import { windowHandoff } from './window-handoff.js';

export interface WarmUpResult {
  requests: number;
  /** Answers other than 200: a sign the warm-up exercised another path than intended. */
  unexpected: number;
  ms: number;
  /** With job threads: messages accepted, and sms.delivered webhooks received for them. */
  threads: { carrier: 'simulator' | 'smpp'; messages: number; webhooks: number; ms: number } | null;
}

/** Requests in flight at once: enough to batch sends as real traffic does. */
const connections = 16;

/** How long the warm-up waits for its messages' webhooks before the threads go live anyway. */
const threadsLimitMs = 15_000;

/** Bodies of several shapes, so the compiled code is not specialised to one. */
function bodies(apiKey: string): { path: string; body: string; recipients: number }[] {
  const send = (recipients: number, fields: Record<string, unknown>) => ({ path: '/sms/send', recipients, body: JSON.stringify({ api_key: apiKey, title: 'WARMUP', ...fields }) });
  return [
    send(1, { sentto: '905321234567', text: 'Warm-up message 1234567890', sms_lang: 0 }),
    send(1, { sentto: '05331234567', text: 'Isınma mesajı: ğüşıöç', sms_lang: 1 }),
    send(2, { sentto: '905421234567,905051234567', text: 'Warm-up message for two numbers', sms_lang: 0 }),
    send(1, { mobile: '+90 532 765 43 21', text: 'Warm-up ünicode ✓', sms_lang: 2 }),
    send(1, { sentto: '905321234568', text: 'x'.repeat(200), sms_lang: 0, content_type: 1 }),
    { path: '/balance/', recipients: 0, body: JSON.stringify({ api_key: apiKey }) },
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

/** Answers every webhook 200 and counts the sms.delivered ones. */
class Receiver {
  delivered = 0;
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (Buffer.concat(chunks).includes('"event_type":"sms.delivered"')) this.delivered++;
      res.writeHead(200).end();
    });
  });

  async start(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The warm-up's throwaway store (with an account, a sender ID and a key whose webhook goes
 * to the warm-up's receiver), and for SMPP its SMSC simulator. prepare() sets it up, the
 * job threads start on `jobThreads`, run() sends the requests, close() removes it all.
 */
export class WarmUp {
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly container: AppContainer,
    private readonly location: StoreLocation,
    private readonly apiKey: string,
    private readonly receiver: Receiver,
    private readonly smsc: SmscSimulator | null,
    private readonly smppConfig: string,
    private readonly window: DispatchWindow,
  ) {}

  static async prepare(config: Config): Promise<WarmUp> {
    const dir = await mkdtemp(join(tmpdir(), 'haberci-warm-up-'));
    const opened: { container?: AppContainer; receiver?: Receiver; smsc?: SmscSimulator } = {};
    try {
      const location: StoreLocation = {
        dialect: 'sqlite',
        file: sqliteFileIn(dir),
        threadLock: { buffer: new ThreadWriteLock().buffer, as: { role: 'foreground' } },
        checkpoints: config.worker ? 'manual' : 'auto',
      };
      const container = (opened.container = await openAppContainer(location));
      const receiver = (opened.receiver = new Receiver());
      const receiverPort = await receiver.start();
      let smppConfig = '';
      if (config.worker && config.smppConfig !== '') {
        const smsc = (opened.smsc = new SmscSimulator({ port: 0, receiptDelayMs: { min: 0, max: 0 }, throttleShare: 0, dropEvery: 0 }));
        const port = await smsc.start();
        const carrier: SmppCarrierConfigInput = {
          connections: [{ name: 'warm-up', host: '127.0.0.1', port, systemId: 'warm-up', password: 'warm-up', windowSize: 100, maxSubmitsPerSecond: 100_000 }],
          defaultRoute: 'warm-up',
        };
        smppConfig = join(dir, 'smpp.json');
        await writeFile(smppConfig, JSON.stringify(carrier));
      }
      const account = await container.admin.createAccount({ name: 'Warm-up', balanceMain: 1_000_000_000, balanceInternational: 0, perMinuteLimit: 0, otpBrand: 'Haberci', ipAllow: [], globalSending: false });
      await container.admin.addSenderId(account.id, 'WARMUP', 'approved');
      const key = await container.admin.createKey(account.id, {
        ...defaultKeySettings,
        webhookUrl: `http://127.0.0.1:${receiverPort}/hook`,
        webhookSecret: randomBytes(16).toString('hex'),
      });
      const window = new DispatchWindow(defaultDispatcherOptions.maxInFlight);
      return new WarmUp(dir, container, location, key.api_key, receiver, opened.smsc ?? null, smppConfig, window);
    } catch (error) {
      await opened.smsc?.stop();
      await opened.receiver?.close();
      await opened.container?.close();
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** What a job thread is started with to run its job on this store first. */
  get jobThreads(): JobThreadWarmUp {
    return {
      location: this.location,
      config: { smppConfig: this.smppConfig, simDelayMs: 0, webhookAllowPrivate: true },
      dispatchWindow: this.window.buffer,
    };
  }

  /**
   * Sends `requests` requests and, when the job threads run on this store (`threads`), waits
   * until the webhooks of every accepted message have arrived, for at most 15 s.
   */
  async run(config: Config, requests: number, threads: JobThreads | null): Promise<WarmUpResult> {
    const started = performance.now();
    const { container, window } = this;
    // Accepted sends are handed off to the dispatch thread, already leased to it, as in
    // `serve`; without one, to a window of their own, and dropped.
    if (threads) threads.connect(container, window, config.leaseMs);
    else container.services.sends.handOffTo(windowHandoff(window, config.leaseMs, (messages) => window.release(messages.length)));
    const app = await createHttp(container, { ...config, requestsPerSecond: 0, trustedProxies: [] }, createLogger('silent'));
    let unexpected = 0;
    let messages = 0;
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
          if ((await post(agent, port, shape.path, shape.body)) === 200) messages += shape.recipients;
          else unexpected++;
        }
      };
      await Promise.all(Array.from({ length: connections }, lane));
      agent.destroy();
    } finally {
      await app.close();
    }
    const accepted = performance.now();
    const result: WarmUpResult = { requests, unexpected, ms: Math.round(accepted - started), threads: null };
    if (threads === null) return result;
    const deadline = accepted + threadsLimitMs;
    while (this.receiver.delivered < messages && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return { ...result, threads: { carrier: this.smsc ? 'smpp' : 'simulator', messages, webhooks: this.receiver.delivered, ms: Math.round(performance.now() - accepted) } };
  }

  /** Removes the store, the receiver and the simulator (once; later calls do nothing). Call after the job threads left the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.smsc?.stop();
      await this.receiver.close();
      await this.container.close();
    } finally {
      await rm(this.dir, { recursive: true, force: true });
    }
  }
}
