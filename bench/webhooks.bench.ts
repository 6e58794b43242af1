/**
 * Issue 6: signed webhook deliveries per second end to end, from the store through the
 * webhook courier to a local receiver that always answers 200. The events are written as
 * the pipeline writes them (sms.sent of recorded submits) before the clock starts; the
 * figure covers claiming, signing, sending and recording every attempt. The receiver
 * runs in a worker thread (its own event loop), verifies each signature and counts every
 * event_id, so "each event delivered exactly once" is checked, not assumed.
 *
 * In `npm run bench` (`--only webhooks`): SQLite (and PostgreSQL when HABERCI_BENCH_DATABASE is
 * set), beside Kannel's dlr-url callbacks per second (w100-imm, prompt and 5-10 s receipts).
 * Target: at least 3,000 deliveries a second, every event delivered exactly once.
 *
 * Run alone: `node dist/bench/webhooks.bench.js [events] [concurrency] [postgres://...]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { openAppContainer } from '../src/main.js';
import type { AppContainer } from '../src/main.js';
import type { StoreLocation } from '../src/adapters/store/index.js';
import { HttpWebhookSender } from '../src/adapters/webhooks/http-webhook-sender.js';
import { systemClock } from '../src/ports/clock.js';
import { defaultKeySettings } from '../src/services/admin.js';
import { WebhookDelivery } from '../src/services/webhook-delivery.js';
import { WebhookCourier } from '../src/jobs/webhook-courier.js';
import type { BenchOptions, BenchOutput, Figure } from './lib/bench.js';
import { figure, judged } from './lib/bench.js';
import { kannelMissing, runKannel } from './lib/kannel.js';
import { settle } from './lib/machine.js';
import { benchDatabaseUrl } from './lib/settings.js';
import { must } from '../src/cli/must.js';

export interface WebhookDeliveryBenchOptions {
  events: number;
  concurrency: number;
  /** A postgres:// URL (its own schema is created and dropped); SQLite in a temporary file otherwise. */
  database?: string;
}

export interface WebhookDeliveryFigures {
  store: 'sqlite' | 'postgres';
  events: number;
  concurrency: number;
  seconds: number;
  deliveriesPerSecond: number;
  /** Requests the receiver got, distinct event_ids among them, and bad signatures. */
  received: number;
  distinct: number;
  badSignatures: number;
  /** Events the store records as delivered with exactly one attempt. */
  deliveredOnce: number;
  exactlyOnce: boolean;
}

const secret = 'bench-webhook-secret';

/** The receiver thread: answers 200, checks signatures, counts event_ids. */
const receiverSource = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const { createHmac } = require('node:crypto');
const seen = new Set();
let received = 0, bad = 0;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    received++;
    const expected = 'sha256=' + createHmac('sha256', ${JSON.stringify(secret)}).update(body).digest('hex');
    if (req.headers['x-service-signature'] !== expected) bad++;
    seen.add(JSON.parse(body.toString('utf8')).event_id);
    res.writeHead(200, { 'Content-Length': '0' }).end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => {
  if (m === 'count') parentPort.postMessage({ received, distinct: seen.size, bad });
  if (m === 'close') { server.closeAllConnections(); server.close(() => parentPort.postMessage({ closed: true })); }
});
`;

interface Counts {
  received: number;
  distinct: number;
  bad: number;
}

function ask<T>(worker: Worker, message: string, key: string): Promise<T> {
  return new Promise((resolve) => {
    const listen = (m: Record<string, unknown>) => {
      if (!(key in m)) return;
      worker.off('message', listen);
      resolve(m as T);
    };
    worker.on('message', listen);
    if (message !== '') worker.postMessage(message);
  });
}

async function location(database: string | undefined): Promise<{ where: StoreLocation; cleanup: () => Promise<void> }> {
  if (database === undefined || database === '') {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-bench-hooks-'));
    return {
      where: { dialect: 'sqlite', file: join(dir, 'haberci.sqlite') },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const { default: pg } = await import('pg');
  const schema = `bench_hooks_${Date.now().toString(36)}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await admin(`CREATE SCHEMA ${schema}`);
  return {
    where: { dialect: 'postgres', url: database, schema },
    cleanup: () => admin(`DROP SCHEMA ${schema} CASCADE`),
  };
}

/** `events` sms.sent events of one key whose webhook is the receiver, written by the outbox. */
async function seedEvents(runtime: AppContainer, url: string, events: number): Promise<number> {
  const account = await must(
    runtime.admin.createAccount({
      name: 'Bench',
      balanceMain: 0,
      balanceInternational: 0,
      perMinuteLimit: 0,
      otpBrand: '',
      ipAllow: [],
      globalSending: false,
    }),
  );
  const key = await must(
    runtime.admin.createKey(account.id, {
      ...defaultKeySettings,
      webhookUrl: url,
      webhookSecret: secret,
    }),
  );
  const [sendId = 0, ...ids] = await runtime.store.messages.allocateIds(events + 1);
  const now = runtime.clock.now();
  await runtime.store.messages.insertSends([
    {
      id: sendId,
      send: {
        accountId: account.id,
        keyId: key.id,
        kind: 'sms',
        sender: 'BENCH',
        text: 'bench',
        lang: 0,
        contentType: 0,
        scheduledAt: null,
        sandbox: false,
        totalNumbers: events,
        invalidNumbers: 0,
        blockedNumbers: 0,
        smsCost: events,
        createdAt: now,
        priority: 0,
        pendingRecipients: null,
      },
    },
  ]);
  const send = {
    id: sendId,
    accountId: account.id,
    keyId: key.id,
    sandbox: false,
    createdAt: now,
    dueAt: now,
    priority: 0,
  };
  await runtime.store.messages.insertMessagesOf([
    {
      send: send,
      ids: ids,
      messages: ids.map((id) => ({
        recipient: `90532${String(id).padStart(7, '0')}`,
        text: null,
        smsCount: 1,
        operator: 'TURKCELL',
      })),
    },
  ]);
  for (;;) {
    const claimed = await runtime.store.queue.claimDue(now, 1000, now + 600_000);
    if (claimed.length === 0) break;
    await runtime.store.queue.markSentMany(
      claimed.map((m) => ({ messageId: m.id, carrier: 'bench', carrierMessageIds: [`b-${m.id}`] })),
      now,
    );
  }
  return key.id;
}

export async function benchWebhookDelivery(options: WebhookDeliveryBenchOptions): Promise<WebhookDeliveryFigures> {
  const receiver = new Worker(receiverSource, { eval: true });
  const { port } = await ask<{ port: number }>(receiver, '', 'port');
  const store = await location(options.database);
  const runtime = await openAppContainer(store.where, systemClock);
  const sender = new HttpWebhookSender({ allowPrivate: true });
  try {
    const keyId = await seedEvents(runtime, `http://127.0.0.1:${port}/hook`, options.events);
    const delivery = new WebhookDelivery(sender, systemClock, { timeoutMs: 10_000, backoff: {} });
    const courier = new WebhookCourier({
      store: runtime.store.events,
      delivery,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      options: { concurrency: options.concurrency, batchSize: Math.min(500, options.concurrency * 2), idleMs: 5 },
    });
    const started = performance.now();
    courier.start();
    let counts: Counts = { received: 0, distinct: 0, bad: 0 };
    while (counts.distinct < options.events) {
      await new Promise((r) => setTimeout(r, 20));
      counts = await ask<Counts>(receiver, 'count', 'received');
    }
    // Stopping waits until the attempts in flight are recorded: the clock covers recording.
    await courier.stop();
    const seconds = (performance.now() - started) / 1000;
    counts = await ask<Counts>(receiver, 'count', 'received');
    const records = await runtime.store.events.recentForKey(keyId, options.events + 1);
    const deliveredOnce = records.filter(
      (r) => r.state === 'delivered' && r.log.length === 1 && r.log[0]?.httpStatus === 200,
    ).length;
    return {
      store: store.where.dialect,
      events: options.events,
      concurrency: options.concurrency,
      seconds: Math.round(seconds * 1000) / 1000,
      deliveriesPerSecond: Math.round(options.events / seconds),
      received: counts.received,
      distinct: counts.distinct,
      badSignatures: counts.bad,
      deliveredOnce,
      exactlyOnce:
        counts.received === options.events &&
        counts.distinct === options.events &&
        deliveredOnce === options.events &&
        records.length === options.events,
    };
  } finally {
    sender.close();
    await runtime.close();
    await store.cleanup();
    await ask(receiver, 'close', 'closed');
    await receiver.terminate();
  }
}

/** Webhook attempts in flight: the server's default (`--webhook-concurrency`). */
const serverConcurrency = 64;

/** Kannel's dlr-url runs for context: prompt receipts, and receipts 5-10 s late. */
const kannelCallbackRuns = [
  { profile: 'w100-imm', dlrMinMs: 0, dlrMaxMs: 50 },
  { profile: 'w100-imm', dlrMinMs: 5000, dlrMaxMs: 10_000 },
] as const;

export async function benchWebhooks(options: BenchOptions): Promise<BenchOutput> {
  const figures: Figure[] = [];
  const faults: string[] = [];
  const databases: (string | undefined)[] = [undefined];
  if (benchDatabaseUrl() !== '') databases.push(benchDatabaseUrl());
  for (const database of databases) {
    await settle(options.quietWaitSeconds);
    process.stderr.write(
      `[webhooks] ${database === undefined ? 'sqlite' : 'postgres'}: ${options.messages} events, ${serverConcurrency} in flight\n`,
    );
    const f = await benchWebhookDelivery({ events: options.messages, concurrency: serverConcurrency, database });
    figures.push(
      judged(
        figure(
          'webhooks',
          `haberci ${f.store}`,
          'deliveries from the store',
          f.deliveriesPerSecond,
          'events/s',
          `${f.events} events in ${f.seconds} s; received ${f.received}, distinct ${f.distinct}, bad signatures ${f.badSignatures}, delivered once in the store ${f.deliveredOnce}`,
        ),
        '>= 3,000/s, each exactly once',
        (v) => v >= 3000 && f.exactlyOnce,
      ),
    );
    if (!f.exactlyOnce) faults.push(`webhooks ${f.store}: not exactly once (${JSON.stringify(f)})`);
  }
  const missing = kannelMissing();
  if (!options.kannel || missing !== null) return { results: [], figures, faults };
  for (const k of kannelCallbackRuns) {
    const run = await runKannel(
      {
        profile: k.profile,
        requests: options.messages,
        connections: options.connections,
        dlrMinMs: k.dlrMinMs,
        dlrMaxMs: k.dlrMaxMs,
      },
      options.quietWaitSeconds,
    );
    figures.push(
      figure(
        'webhooks',
        `kannel ${run.profile}`,
        'dlr-url callbacks e2e',
        run.callbackPerSecond,
        'msg/s',
        `${run.callbacks} callbacks, receipts ${run.dlrDelayMs} after submit; HTTP accept to last callback`,
      ),
    );
  }
  return { results: [], figures, faults };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [events = '20000', concurrency = '64', database] = process.argv.slice(2);
  const figures = await benchWebhookDelivery({ events: Number(events), concurrency: Number(concurrency), database });
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  if (!figures.exactlyOnce) process.exitCode = 1;
}
