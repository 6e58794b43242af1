/**
 * The provider console's live pages: each carrier connection's state now, and the
 * traffic of the last hours (messages by step per minute, the backlog, the slowest webhook
 * receivers and the keys whose webhooks fail). Reads the store's monitoring part and asks
 * the dispatch thread for its connections; shows a receiver by its host only.
 */
import type { ConnectionState } from '../../../ports/carrier.js';
import type { SmppSessionState } from '../../../ports/smpp-binds.js';
import type { Backlog } from '../../../ports/metrics.js';
import type { AttemptSample, MonitoringStore, TrafficMinute } from '../../../ports/monitoring-store.js';
import { minuteMs } from '../../traffic-counter.js';

export interface ConnectionView extends ConnectionState {
  /** Submits per second since the previous look (null on the first). */
  submitRate: number | null;
}

export interface SmppSessionView extends SmppSessionState {
  /** submit_sm a second since the previous look (null on the first look at the session). */
  submitRate: number | null;
}

export interface ReceiverView {
  host: string;
  attempts: number;
  p95Ms: number;
  lastMs: number;
  failed: number;
}

export interface FailingKeyView {
  keyId: number;
  accountId: number;
  attempts: number;
  failed: number;
}

export interface TrafficView {
  /** One entry per minute of the window, oldest first (Unix seconds), zeros where nothing was counted. */
  minutes: { at: number[]; accepted: number[]; submitted: number[]; delivered: number[]; failed: number[] };
  totals: Omit<TrafficMinute, 'minute'>;
  backlog: Backlog;
  slowestReceivers: ReceiverView[];
  failingKeys: FailingKeyView[];
}

/** The attempts a traffic page ranks at most (the newest of the last hour). */
const attemptsRead = 5_000;

export function hostOf(url: string | null): string {
  if (url === null) return '-';
  try {
    return new URL(url).host;
  } catch {
    return '-';
  }
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

export class ProviderLive {
  private lastLook: { at: number; submits: Map<string, number> } | null = null;
  private lastSmppLook: { at: number; submits: Map<string, number> } | null = null;
  /** The SMPP server's bound sessions, once it is open (null: no SMPP server in this process). */
  private smppSource: (() => Promise<SmppSessionState[]>) | null = null;

  constructor(
    private readonly store: MonitoringStore,
    /** The dispatch thread's live carrier connections (empty: the simulator, or no dispatch thread). */
    private readonly connections: () => Promise<ConnectionState[]>,
    private readonly now: () => number,
  ) {}

  /** The lanes' backlog (due now, and since when the oldest waits), read from the store. */
  async lanes(): Promise<NonNullable<Backlog['lanes']> | null> {
    return (await this.store.backlog(this.now())).lanes ?? null;
  }

  async carriers(): Promise<ConnectionView[]> {
    const states = await this.connections();
    const now = this.now();
    const last = this.lastLook;
    this.lastLook = { at: now, submits: new Map(states.map((s) => [s.name, s.submits])) };
    return states.map((s) => {
      const before = last?.submits.get(s.name);
      const seconds = last === null ? 0 : (now - last.at) / 1000;
      return {
        ...s,
        submitRate: before === undefined || seconds <= 0 ? null : Math.max(0, s.submits - before) / seconds,
      };
    });
  }

  /** The SMPP server for customers, opened after the HTTP side: its sessions show from then on. */
  showSmppSessions(source: () => Promise<SmppSessionState[]>): void {
    this.smppSource = source;
  }

  /** The cluster's bound SMPP sessions (this process's with their counts); null when this process runs no SMPP server. */
  async smppSessions(): Promise<SmppSessionView[] | null> {
    if (!this.smppSource) return null;
    const states = await this.smppSource();
    const now = this.now();
    const last = this.lastSmppLook;
    const keyOf = (s: SmppSessionState): string => `${s.systemId}|${s.peer}|${s.since}`;
    const counted = states.flatMap((s) => (s.submits === null ? [] : [[keyOf(s), s.submits] as const]));
    this.lastSmppLook = { at: now, submits: new Map(counted) };
    return states.map((s) => {
      const before = last?.submits.get(keyOf(s));
      const seconds = last === null ? 0 : (now - last.at) / 1000;
      return {
        ...s,
        submitRate:
          before === undefined || s.submits === null || seconds <= 0 ? null : Math.max(0, s.submits - before) / seconds,
      };
    });
  }

  async traffic(hours: number): Promise<TrafficView> {
    const now = this.now();
    const last = Math.floor(now / minuteMs);
    const first = last - hours * 60 + 1;
    const [rows, backlog, attempts] = await Promise.all([
      this.store.traffic(first),
      this.store.backlog(now),
      this.store.attemptsSince(now - 3600_000, attemptsRead),
    ]);
    const byMinute = new Map(rows.map((r) => [r.minute, r]));
    const minutes: TrafficView['minutes'] = { at: [], accepted: [], submitted: [], delivered: [], failed: [] };
    const totals = { accepted: 0, submitted: 0, delivered: 0, failed: 0, expired: 0 };
    for (let m = first; m <= last; m++) {
      const r = byMinute.get(m);
      minutes.at.push(m * 60);
      minutes.accepted.push(r?.accepted ?? 0);
      minutes.submitted.push(r?.submitted ?? 0);
      minutes.delivered.push(r?.delivered ?? 0);
      // Expired is a failure to the customer: the chart shows them together.
      minutes.failed.push((r?.failed ?? 0) + (r?.expired ?? 0));
      if (r) for (const k of ['accepted', 'submitted', 'delivered', 'failed', 'expired'] as const) totals[k] += r[k];
    }
    return { minutes, totals, backlog, slowestReceivers: slowest(attempts), failingKeys: failing(attempts) };
  }
}

function slowest(attempts: readonly AttemptSample[]): ReceiverView[] {
  const byHost = new Map<string, { durations: number[]; lastMs: number; failed: number }>();
  // Newest first: the first seen of a host is its last attempt.
  for (const a of attempts) {
    const host = hostOf(a.url);
    let entry = byHost.get(host);
    if (!entry) {
      entry = { durations: [], lastMs: a.durationMs, failed: 0 };
      byHost.set(host, entry);
    }
    entry.durations.push(a.durationMs);
    if (!a.ok) entry.failed += 1;
  }
  return [...byHost.entries()]
    .map(([host, e]) => ({
      host,
      attempts: e.durations.length,
      p95Ms: percentile(
        [...e.durations].sort((x, y) => x - y),
        95,
      ),
      lastMs: e.lastMs,
      failed: e.failed,
    }))
    .sort((a, b) => b.p95Ms - a.p95Ms)
    .slice(0, 10);
}

function failing(attempts: readonly AttemptSample[]): FailingKeyView[] {
  const byKey = new Map<number, FailingKeyView>();
  for (const a of attempts) {
    let entry = byKey.get(a.keyId);
    if (!entry) {
      entry = { keyId: a.keyId, accountId: a.accountId, attempts: 0, failed: 0 };
      byKey.set(a.keyId, entry);
    }
    entry.attempts += 1;
    if (!a.ok) entry.failed += 1;
  }
  return [...byKey.values()]
    .filter((k) => k.failed > 0)
    .sort((a, b) => b.failed - a.failed)
    .slice(0, 10);
}
