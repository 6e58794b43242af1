/**
 * A PostgreSQL LISTEN on a connection of its own, that comes back by itself: the wakes of job
 * threads (wake-channel.ts) and the lookup caches' change signal (lookup-changes.ts) are built
 * on it. Payloads are `schema:topic`; the listener hands on only those of its store's schema,
 * so stores in other schemas of the same database (tests, a second installation) do not
 * hear each other.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import type { StoreLocation } from '../store-location.js';
import { postgresClientConfig } from './client-config.js';

export interface ListenerOptions {
  /** First delay before connecting again after the connection dropped; doubled each failed try. */
  retryMs: number;
  /** Longest delay between two tries. */
  maxRetryMs: number;
  /** Time limit of one connection attempt. */
  connectTimeoutMs: number;
}

export const defaultListenerOptions: ListenerOptions = { retryMs: 100, maxRetryMs: 5000, connectTimeoutMs: 5000 };

/** What a listener tells its owner. */
export interface ListenerEvents {
  /** A notification on the channel for this store's schema: its topic (the payload after `schema:`). */
  heard(topic: string): void;
  /** Listening; `again` when after a lost connection (notifications sent meanwhile were lost). */
  up(again: boolean): void;
  /** The connection was lost (or a try failed): notifications are not heard until `up`. */
  down(): void;
}

export class PgListener {
  private client: pg.Client | null = null;
  private readonly dead = new WeakSet<pg.Client>();
  private stopped = false;
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  private listening: Promise<void> | null = null;

  constructor(
    private readonly location: Extract<StoreLocation, { dialect: 'postgres' }>,
    private readonly channel: string,
    private readonly events: ListenerEvents,
    /** Names the listener in its log lines (`wake listener`, `lookup cache listener`). */
    private readonly name: string,
    private readonly log: Logger,
    private readonly options: ListenerOptions = defaultListenerOptions,
  ) {}

  /** Starts listening; resolves once listening or after the first failed try (it keeps trying). */
  start(): Promise<void> {
    this.listening ??= this.connect();
    return this.listening;
  }

  private async connect(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    const client = new pg.Client({
      ...postgresClientConfig(this.location),
      connectionTimeoutMillis: this.options.connectTimeoutMs,
      keepAlive: true,
    });
    let prefix: string | null = null;
    client.on('error', (error: Error) => this.broken(client, error));
    client.on('end', () => this.broken(client, new Error('the connection ended')));
    client.on('notification', (n) => {
      if (prefix === null || n.channel !== this.channel || !n.payload?.startsWith(prefix)) return;
      this.events.heard(n.payload.slice(prefix.length));
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string | null }>('select current_schema() as schema');
      prefix = `${rows[0]?.schema ?? 'public'}:`;
      await client.query(`listen ${this.channel}`);
    } catch (error) {
      this.broken(client, error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.stopped || this.dead.has(client)) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    const again = this.failures > 0;
    if (again) this.log.info(`${this.name}: connected again`);
    this.failures = 0;
    this.events.up(again);
  }

  private broken(client: pg.Client, error: Error): void {
    if (this.dead.has(client)) return;
    this.dead.add(client);
    if (this.client === client) this.client = null;
    client.end().catch(() => undefined);
    if (this.stopped) return;
    this.events.down();
    if (this.failures === 0) this.log.warn({ err: { message: error.message } }, `${this.name}: connection lost`);
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
