/**
 * The shared tallies (Redis, PostgreSQL) count the additions of one turn of the event loop
 * in one call: a sum per key. Each addition then gets its own place in its key's window, in
 * arrival order, from the count the call answered for the key.
 */
import type { Counted } from '../../ports/rate-counter.js';

/** One addition to a key's window. */
export interface RateAdd {
  key: string;
  n: number;
}

/** The additions' sums by key, keys in first-arrival order. */
export function sumsByKey(adds: readonly RateAdd[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const { key, n } of adds) sums.set(key, (sums.get(key) ?? 0) + n);
  return sums;
}

/** Each addition's count after it, given each key's count after the whole batch (`after`). */
export function placesOf(
  adds: readonly RateAdd[],
  sums: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, Counted>,
  windowMs: number,
): Counted[] {
  const before = new Map<string, number>();
  return adds.map(({ key, n }) => {
    const sum = sums.get(key) ?? n;
    const counted = after.get(key) ?? { current: sum, ttlMs: windowMs };
    const earlier = before.get(key) ?? 0;
    before.set(key, earlier + n);
    return { current: counted.current - sum + earlier + n, ttlMs: Math.max(0, counted.ttlMs) };
  });
}
