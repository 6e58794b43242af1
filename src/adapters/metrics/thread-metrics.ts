import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { IntervalHistogram } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type {
  CarrierMetrics,
  ConnectionMetrics,
  MessageMetrics,
  MessageOutcome,
  WebhookMetrics,
  WebhookOutcome,
} from '../../ports/metrics.js';
import { messageOutcomes } from '../../ports/metrics.js';

/** The thread a registry counts for: a label of the metrics every thread has (event-loop lag, write-lock wait). */
export type ThreadName = 'http' | 'dispatch' | 'webhooks';

/** A registry's metrics as plain data, as one thread hands them to another (getMetricsAsJSON). */
export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/** Write-lock waits: from a free lock (microseconds) to a long background yield. */
const lockBuckets = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];
/** Submit to receipt: the simulator's hundreds of milliseconds to an operator's hours. */
const receiptBuckets = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400];
/** A webhook attempt, name lookup to response headers. */
const webhookBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The metrics one thread counts, in a prom-client registry of its own: every thread has its
 * event-loop lag and its store write-lock waits; the dispatch thread counts messages
 * submitted and settled and its SMPP connections; the webhook thread its attempts; the HTTP
 * thread the messages accepted. A job thread hands `json()` to the HTTP thread, which
 * merges it into the one exposition of the process (PrometheusMetrics).
 *
 * Labelled children are found once, so an increment is the only work on the hot path.
 */
export class ThreadMetrics implements MessageMetrics, CarrierMetrics, WebhookMetrics {
  readonly registry = new Registry();
  private readonly byOutcome: Record<MessageOutcome, Counter.Internal>;
  private readonly lockWait: Histogram.Internal<'thread'>;
  private readonly webhookAttempts: Record<WebhookOutcome, Counter.Internal>;
  private readonly webhookDuration: Histogram;
  private readonly smppBound: Gauge<'carrier' | 'connection'>;
  private readonly smppHeld: Gauge<'carrier' | 'connection'>;
  private readonly smppSubmits: Counter<'carrier' | 'connection'>;
  private readonly smppRefusals: Counter<'carrier' | 'connection' | 'status'>;
  private readonly smppLag: Histogram<'carrier' | 'connection'>;
  private readonly windows: { labels: [string, string]; read: () => number }[] = [];
  private readonly loopDelay: IntervalHistogram;

  constructor(readonly thread: ThreadName) {
    const registers = [this.registry];
    const messages = new Counter({
      name: 'haberci_messages_total',
      help: 'Messages (one recipient of a send) by step: accepted, submitted, delivered, failed, expired',
      labelNames: ['outcome'],
      registers,
    });
    this.byOutcome = Object.fromEntries(messageOutcomes.map((o) => [o, messages.labels(o)])) as Record<
      MessageOutcome,
      Counter.Internal
    >;
    const lock = new Histogram({
      name: 'haberci_store_write_lock_wait_seconds',
      help: "Time a thread waited for SQLite's write lock shared by the threads of the process",
      labelNames: ['thread'],
      buckets: lockBuckets,
      registers,
    });
    this.lockWait = lock.labels(thread);
    const attempts = new Counter({
      name: 'haberci_webhook_attempts_total',
      help: 'Webhook attempts by outcome: delivered, retrying (another attempt is due), failed (the last attempt failed)',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookAttempts = {
      delivered: attempts.labels('delivered'),
      retrying: attempts.labels('retrying'),
      failed: attempts.labels('failed'),
    };
    this.webhookDuration = new Histogram({
      name: 'haberci_webhook_attempt_duration_seconds',
      help: 'Duration of a webhook attempt, from name lookup to the response',
      buckets: webhookBuckets,
      registers,
    });
    const connection = ['carrier', 'connection'] as const;
    this.smppBound = new Gauge({
      name: 'haberci_smpp_connection_bound',
      help: 'An SMPP connection is bound and takes submits (1) or not (0)',
      labelNames: connection,
      registers,
    });
    this.smppHeld = new Gauge({
      name: 'haberci_smpp_connection_bind_held',
      help: "This process holds one of the places of an SMPP connection's binds in the cluster (1) or not (0)",
      labelNames: connection,
      registers,
    });
    const windows = this.windows;
    new Gauge({
      name: 'haberci_smpp_window_in_use',
      help: 'Submits of an SMPP connection awaiting their response (its window in use)',
      labelNames: connection,
      registers,
      collect() {
        for (const w of windows) this.labels(...w.labels).set(w.read());
      },
    });
    this.smppSubmits = new Counter({
      name: 'haberci_smpp_submits_total',
      help: 'submit_sm answered OK, by SMPP connection',
      labelNames: connection,
      registers,
    });
    this.smppRefusals = new Counter({
      name: 'haberci_smpp_refusals_total',
      help: 'submit_sm refused by the SMSC, by SMPP connection and command status',
      labelNames: [...connection, 'status'],
      registers,
    });
    this.smppLag = new Histogram({
      name: 'haberci_smpp_receipt_lag_seconds',
      help: "Time from a part's submit_sm_resp to its delivery receipt, by SMPP connection",
      labelNames: connection,
      buckets: receiptBuckets,
      registers,
    });
    this.loopDelay = monitorEventLoopDelay({ resolution: 10 });
    this.loopDelay.enable();
    const delay = this.loopDelay;
    const lagMax = new Gauge({
      name: 'haberci_event_loop_lag_max_seconds',
      help: 'The longest event-loop delay of a thread since the last scrape',
      labelNames: ['thread'],
      registers,
    });
    new Gauge({
      name: 'haberci_event_loop_lag_p99_seconds',
      help: "The 99th percentile of a thread's event-loop delay since the last scrape",
      labelNames: ['thread'],
      registers,
      collect() {
        // The monitor counts from its timer's resolution; an idle loop reads about 0.01 s.
        const p99 = delay.count > 0 ? delay.percentile(99) / 1e9 : 0;
        const max = delay.count > 0 ? delay.max / 1e9 : 0;
        this.labels(thread).set(p99);
        lagMax.labels(thread).set(max);
        delay.reset();
      },
    });
  }

  messages(outcome: MessageOutcome, count: number): void {
    this.byOutcome[outcome].inc(count);
  }

  /** The waits of this thread's ThreadWriteLock (SQLite), in seconds. */
  writeLockWait(seconds: number): void {
    this.lockWait.observe(seconds);
  }

  attempt(outcome: WebhookOutcome, seconds: number): void {
    this.webhookAttempts[outcome].inc();
    this.webhookDuration.observe(seconds);
  }

  connection(name: string, index: number, windowInUse: () => number): ConnectionMetrics {
    const labels: [string, string] = [name, String(index)];
    this.windows.push({ labels, read: windowInUse });
    const bound = this.smppBound.labels(...labels);
    bound.set(0);
    const submits = this.smppSubmits.labels(...labels);
    submits.inc(0);
    const lag = this.smppLag.labels(...labels);
    const refusals = new Map<string, Counter.Internal>();
    const refusalsOf = this.smppRefusals;
    return {
      bound: (isBound) => bound.set(isBound ? 1 : 0),
      submitted: () => submits.inc(),
      refused: (status) => {
        let counter = refusals.get(status);
        if (counter === undefined) {
          counter = refusalsOf.labels(...labels, status);
          refusals.set(status, counter);
        }
        counter.inc();
      },
      receiptLag: (seconds) => lag.observe(seconds),
      held: (isHeld) => this.smppHeld.labels(...labels).set(isHeld ? 1 : 0),
    };
  }

  /** This registry as plain data, for the HTTP thread's exposition. */
  json(): Promise<MetricsJson> {
    return this.registry.getMetricsAsJSON();
  }

  /** Stops the event-loop monitor. */
  close(): void {
    this.loopDelay.disable();
  }
}
