/**
 * The per-key request rate counted in Redis, shared by every process that names the same
 * server with `--redis`: the hits of one turn of the event loop (and of the time one call
 * is in flight) counted in one script call (INCRBY, and PEXPIRE when it opens a window), so
 * the client's cost is a call a batch, not a request.
 *
 * Every wait is bounded, so a Redis that is away never holds a request: a command waits
 * at most `commandTimeoutMs`; while the connection is down commands fail at once (no
 * offline queue) and the client reconnects by itself with a growing delay. A failed count
 * lets the request through (fail-open, docs/decisions.md); the outage and the recovery are
 * logged once each.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Counted, RateTally } from '../../ports/rate-counter.js';
import { MicroBatcher } from '../../util/micro-batcher.js';
import { placesOf, sumsByKey } from './rate-batch.js';
import type { RateAdd } from './rate-batch.js';

/**
 * Counts a batch: KEYS are the batch's distinct keys, ARGV[1] the window (ms), ARGV[1 + i]
 * the hits of KEYS[i]. Answers, per key, its count after the batch and the ms left in its
 * window (a key opens its window with its first hit; a key found without an expiry gets one).
 */
const script = `
local window = tonumber(ARGV[1])
local out = {}
for i, key in ipairs(KEYS) do
  local n = tonumber(ARGV[i + 1])
  local current = redis.call('INCRBY', key, n)
  local ttl
  if current == n then
    redis.call('PEXPIRE', key, window)
    ttl = window
  else
    ttl = redis.call('PTTL', key)
    if ttl < 0 then
      redis.call('PEXPIRE', key, window)
      ttl = window
    end
  end
  out[2 * i - 1] = current
  out[2 * i] = ttl
end
return out
`;

export interface RedisRateOptions {
  /** Time limit of one count; past it the request goes through uncounted. */
  commandTimeoutMs: number;
  /** Time limit of one connection attempt. */
  connectTimeoutMs: number;
  /** Largest delay between two reconnection attempts. */
  maxReconnectDelayMs: number;
}

export const defaultRedisRateOptions: RedisRateOptions = {
  commandTimeoutMs: 250,
  connectTimeoutMs: 1000,
  maxReconnectDelayMs: 2000,
};

type Counting = Redis & { habercirate(keys: number, ...args: (string | number)[]): Promise<number[]> };

export class RedisRateCounter implements RateTally {
  readonly name = 'redis';
  private readonly client: Counting;
  /** The hits of a turn, by window length. */
  private readonly batchers = new Map<number, MicroBatcher<RateAdd, Counted>>();
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
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 10), options.maxReconnectDelayMs),
      keyPrefix: 'haberci:rate:',
    });
    // The number of keys varies with the batch: it is the call's first argument.
    client.defineCommand('habercirate', { lua: script });
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
    this.log.warn(
      { err: { message: error.message } },
      'redis: unreachable; the per-key rate is not enforced (requests go through uncounted) until it is back',
    );
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

  add(key: string, windowMs: number, n: number): Promise<Counted> {
    let batcher = this.batchers.get(windowMs);
    if (!batcher) {
      batcher = new MicroBatcher((adds: RateAdd[]) => this.count(adds, windowMs), 1000);
      this.batchers.set(windowMs, batcher);
    }
    return batcher.add({ key, n });
  }

  /** One call for a batch; each addition gets its own place in its key's window, in arrival order. */
  private async count(adds: readonly RateAdd[], windowMs: number): Promise<Counted[]> {
    const sums = sumsByKey(adds);
    const distinct = [...sums.keys()];
    const answer = await this.client.habercirate(
      distinct.length,
      ...distinct,
      windowMs,
      ...distinct.map((k) => sums.get(k) ?? 0),
    );
    const after = new Map(
      distinct.map((k, i) => [k, { current: Number(answer[2 * i]), ttlMs: Number(answer[2 * i + 1]) }]),
    );
    return placesOf(adds, sums, after, windowMs);
  }

  async close(): Promise<void> {
    this.client.disconnect();
    return Promise.resolve();
  }
}
