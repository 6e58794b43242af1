import type { Backlog } from './metrics.js';

/**
 * The operations' reads of the store (store.monitoring): the queues' depths for a metrics
 * scrape. Each count is capped (`backlogCap`) so a scrape stays cheap however deep a queue is.
 */
export interface MonitoringStore extends TrafficStore {
  backlog(now: number): Promise<Backlog>;
}

/** The most a backlog count reads: a deeper queue reads as this many. */
export const backlogCap = 1_000_000;

/** Messages by step in one minute (`minute`: Unix minutes, epoch ms / 60,000). */
export interface TrafficMinute {
  minute: number;
  accepted: number;
  submitted: number;
  delivered: number;
  failed: number;
  expired: number;
}

/** One webhook attempt, as the provider console ranks receivers and keys (never a secret). */
export interface AttemptSample {
  /** The URL attempted (the console shows its host only). */
  url: string | null;
  durationMs: number;
  startedAt: number;
  /** The receiver answered 2xx. */
  ok: boolean;
  keyId: number;
  accountId: number;
}

/** The provider console's reads and the traffic counters' writes (store.monitoring). */
export interface TrafficStore {
  /** Adds one source's (a thread of a process) counts, a row per minute; a minute written twice adds up. */
  addTraffic(source: string, minutes: readonly TrafficMinute[]): Promise<void>;
  /** Every source's counts summed per minute, from `fromMinute` on, oldest first. */
  traffic(fromMinute: number): Promise<TrafficMinute[]>;
  /** Drops the rows of minutes before `minute`. */
  forgetTrafficBefore(minute: number): Promise<void>;
  /** Webhook attempts started at or after `since`, newest first, `limit` at most. */
  attemptsSince(since: number, limit: number): Promise<AttemptSample[]>;
}
