/**
 * Where `serve` counts the general per-key request rate (docs/decisions.md, "General request
 * rate"): in Redis with `--redis`, in the store on PostgreSQL without it (either way it
 * holds for every process of a cluster), in this process's memory on SQLite (one process).
 * A shared count is taken in leases (rate-leases.ts).
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { RateCounter } from '../ports/rate-counter.js';
import type { SharedRate } from '../ports/shared-rate.js';
import { RateLeases } from '../adapters/rate/rate-leases.js';

/** How often windows long over are deleted from the store's table. */
const sweepEveryMs = 60_000;

/** How long start-up waits for Redis before it goes on without it (the rate goes uncounted until it connects). */
const redisStartWaitMs = 2000;

export async function openRateCounter(
  config: Pick<Config, 'redis' | 'database' | 'requestsPerSecond'>,
  logger: Logger,
  rates: SharedRate,
): Promise<RateCounter | null> {
  if (config.requestsPerSecond === 0) return null;
  if (config.redis !== '') {
    const { RedisRateCounter } = await import('../adapters/rate/redis-rate-counter.js');
    const counter = new RedisRateCounter(config.redis, logger.child({ component: 'rate' }));
    if (await counter.connect(redisStartWaitMs))
      logger.info('per-key request rate counted in Redis: it holds for every process that uses the same Redis');
    return new RateLeases(counter);
  }
  if (config.database === '') return null;
  const counter = rates.counter();
  const sweeps = setInterval(() => {
    counter
      .sweep()
      .catch((error: unknown) =>
        logger.warn({ err: error }, 'rate windows: the sweep of old windows failed; it runs again in a minute'),
      );
  }, sweepEveryMs);
  sweeps.unref();
  logger.info(
    'per-key request rate counted in the PostgreSQL store: it holds for every process on it (--redis moves it to Redis)',
  );
  return new RateLeases({
    name: counter.name,
    add: (key, windowMs, n) => counter.add(key, windowMs, n),
    close: async () => clearInterval(sweeps),
  });
}
