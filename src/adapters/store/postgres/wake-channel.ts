/**
 * Wakes between processes on one PostgreSQL store (issue 24): a process that commits work
 * for a job (messages to dispatch, events to send) and has no thread of its own for it says
 * so with NOTIFY; the job threads of every process LISTEN on a connection of their own and
 * claim at once instead of at their next poll. Polling stays the safety net: a wake lost
 * (the listening connection down, a NOTIFY that failed) only delays work to the next poll.
 *
 * One channel for every store in a database; the payload names the store's schema and the
 * job (`public:dispatch`), so stores in other schemas of the same database (tests, a second
 * installation) do not wake each other.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import type { StoreLocation } from '../store-location.js';
import { postgresClientConfig } from './open-postgres.js';

export const wakeChannel = 'haberci_wake';

export type WakeJob = 'dispatch' | 'webhooks';

export interface WakeListenerOptions {
  /** First delay before connecting again after the connection dropped; doubled each failed try. */
  retryMs: number;
  /** Longest delay between two tries. */
  maxRetryMs: number;
  /** Time limit of one connection attempt. */
  connectTimeoutMs: number;
}

export const defaultWakeListenerOptions: WakeListenerOptions = { retryMs: 100, maxRetryMs: 5000, connectTimeoutMs: 5000 };

/**
 * LISTENs for wakes of one job on a connection of its own, and calls `onWake` for each.
 * When the connection drops it connects again with a growing delay, and calls `onWake` once
 * connected (wakes sent while it was away are lost; the job looks in the store at once).
 */
export class PgWakeListener {
  private client: pg.Client | null = null;
  private readonly dead = new WeakSet<pg.Client>();
  private stopped = false;
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  private listening: Promise<void> | null = null;

  constructor(
    private readonly location: Extract<StoreLocation, { dialect: 'postgres' }>,
    private readonly job: WakeJob,
    private readonly onWake: () => void,
    private readonly log: Logger,
    private readonly options: WakeListenerOptions = defaultWakeListenerOptions,
  ) {}

  /** Starts listening; resolves once listening or after the first failed try (it keeps trying). */
  start(): Promise<void> {
    this.listening = this.connect();
    return this.listening;
  }

  /** Whether the listening connection is up (tests). */
  get connected(): boolean {
    return this.client !== null;
  }

  private async connect(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    const client = new pg.Client({ ...postgresClientConfig(this.location), connectionTimeoutMillis: this.options.connectTimeoutMs, keepAlive: true });
    let expected = '';
    client.on('error', (error: Error) => this.broken(client, error));
    client.on('end', () => this.broken(client, new Error('the connection ended')));
    client.on('notification', (n) => {
      if (n.channel === wakeChannel && n.payload === expected) this.onWake();
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
      expected = `${rows[0]?.schema ?? 'public'}:${this.job}`;
      await client.query(`listen ${wakeChannel}`);
    } catch (error) {
      this.broken(client, error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.stopped || this.dead.has(client)) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    if (this.failures > 0) {
      this.log.info({ job: this.job }, 'wake listener: connected again; looking in the store for work that came meanwhile');
      this.onWake();
    }
    this.failures = 0;
  }

  private broken(client: pg.Client, error: Error): void {
    if (this.dead.has(client)) return;
    this.dead.add(client);
    if (this.client === client) this.client = null;
    client.end().catch(() => undefined);
    if (this.stopped) return;
    if (this.failures === 0) this.log.warn({ job: this.job, err: { message: error.message } }, 'wake listener: connection lost; polling until it is back');
    const delay = Math.min(this.options.retryMs * 2 ** this.failures, this.options.maxRetryMs);
    this.failures += 1;
    this.timer = setTimeout(() => void this.connect(), delay);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.listening;
    const client = this.client;
    this.client = null;
    if (client) {
      this.dead.add(client);
      await client.end().catch(() => undefined);
    }
  }
}
