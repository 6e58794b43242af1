/**
 * The per-key request rate counted in Redis, shared by every process that names the same
 * server with `--redis`: one script call a request (INCR, and PEXPIRE when it opens a
 * window), the calls of one turn of the event loop written together (auto-pipelining).
 *
 * Every wait is bounded, so a Redis that is away never holds a request: a command waits
 * at most `commandTimeoutMs`; while the connection is down commands fail at once (no
 * offline queue) and the client reconnects by itself with a growing delay. A failed count
 * lets the request through (fail-open, docs/decisions.md); the outage and the recovery are
 * logged once each.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RateCounter } from '../../ports/rate-counter.js';

const script = `
local current = redis.call('INCR', KEYS[1])
local ttl
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
else
  ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    ttl = tonumber(ARGV[1])
  end
end
return {current, ttl}
`;

export interface RedisRateOptions {
  /** Time limit of one count; past it the request goes through uncounted. */
  commandTimeoutMs: number;
  /** Time limit of one connection attempt. */
  connectTimeoutMs: number;
  /** Largest delay between two reconnection attempts. */
  maxReconnectDelayMs: number;
}

export const defaultRedisRateOptions: RedisRateOptions = { commandTimeoutMs: 250, connectTimeoutMs: 1000, maxReconnectDelayMs: 2000 };

type Counting = Redis & { habercirate(key: string, windowMs: number): Promise<[number, number]> };

export class RedisRateCounter implements RateCounter {
  readonly name = 'redis';
  private readonly client: Counting;
  /** Whether the last thing heard was an outage (logged once, until the connection is back). */
  private down = false;

  constructor(
    url: string,
    private readonly log: Logger,
    options: RedisRateOptions = defaultRedisRateOptions,
  ) {
    const client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: options.connectTimeoutMs,
      commandTimeout: options.commandTimeoutMs,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 10), options.maxReconnectDelayMs),
      keyPrefix: 'haberci:rate:',
    });
    client.defineCommand('habercirate', { numberOfKeys: 1, lua: script });
    this.client = client as Counting;
    client.on('error', (error: Error) => this.outage(error));
    client.on('ready', () => {
      if (this.down) this.log.info('redis: connected again; the per-key rate is counted there again');
      this.down = false;
    });
  }

  private outage(error: Error): void {
    if (this.down) return;
    this.down = true;
    this.log.warn({ err: { message: error.message } }, 'redis: unreachable; the per-key rate is not enforced (requests go through uncounted) until it is back');
  }

  /**
   * Connects, waiting at most `waitMs`: a Redis that is not there yet is reported and
   * connected to in the background (requests are not rate-limited until then).
   */
  async connect(waitMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const connecting = this.client.connect().then(
      () => true,
      (error: unknown) => {
        this.outage(error instanceof Error ? error : new Error(String(error)));
        return false;
      },
    );
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)));
    const connected = await Promise.race([connecting, late]);
    clearTimeout(timer);
    if (!connected) this.outage(new Error(`no connection within ${waitMs} ms`));
    return connected;
  }

  async hit(key: string, windowMs: number): Promise<{ current: number; ttlMs: number }> {
    const [current, ttlMs] = await this.client.habercirate(key, windowMs);
    return { current, ttlMs };
  }

  async close(): Promise<void> {
    this.client.disconnect();
    return Promise.resolve();
  }
}
