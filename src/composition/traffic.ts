/**
 * The provider console's traffic per minute: each thread that sees messages (the HTTP
 * thread accepts them, the dispatch thread submits and settles them) counts its own and
 * writes a row a minute under its own name.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { TrafficCounter } from '../services/traffic-counter.js';
import type { AppContainer } from './container.js';

/** How long the rows are kept: the console shows up to a week. */
const keepMinutes = 7 * 24 * 60;

/** The name a thread's traffic rows are written under: its host, process and thread, and a random tag of this start. */
function trafficSource(thread: 'http' | 'dispatch'): string {
  return `${hostname().slice(0, 40)}/${process.pid}/${thread}/${randomBytes(3).toString('hex')}`;
}

/** This thread's traffic counter, not yet started; it writes every `flushMs` (--traffic-flush-ms). */
export function trafficCounter(
  container: AppContainer,
  thread: 'http' | 'dispatch',
  flushMs: number,
  logger: Logger,
): TrafficCounter {
  return new TrafficCounter(
    container.store.monitoring,
    trafficSource(thread),
    Date.now,
    { flushMs, keepMinutes },
    (error) => logger.warn({ err: error }, 'traffic counts not written'),
  );
}
