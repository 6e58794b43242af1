import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ApiMetrics, Backlog, SmppServerMetrics } from '../../ports/metrics.js';
import { ThreadMetrics } from './thread-metrics.js';
import type { MetricsJson } from './thread-metrics.js';

/** Buckets of the API's request durations, in seconds: sub-millisecond answers to slow sends. */
const durationBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Where a scrape finds what the HTTP thread does not count itself. */
export interface ScrapeSources {
  /** The job threads' registries as plain data (ThreadMetrics.json()), asked for at each scrape. */
  threads?: () => Promise<MetricsJson[]>;
  /** The queues' depths, read from the store at each scrape. */
  backlog?: () => Promise<Backlog>;
  now?: () => number;
}

/**
 * The metrics of one process in a prom-client registry of its own (not the library's
 * global one): Node's default metrics, the API's requests, the HTTP thread's own
 * ThreadMetrics (`thread`: messages accepted, its event-loop lag and write-lock waits) and,
 * at each scrape, the backlog read from the store and the job threads' registries, merged
 * (summed by name and labels, as prom-client's AggregatorRegistry does for a cluster).
 * `exposition()` is what the operations listener answers at GET /metrics.
 */
export class PrometheusMetrics implements ApiMetrics {
  private readonly registry = new Registry();
  /** What the HTTP thread counts beside the API: messages accepted, event-loop lag, write-lock waits. */
  readonly thread = new ThreadMetrics('http');
  private sources: ScrapeSources = {};
  private readonly backlog: Record<
    Exclude<keyof Backlog, 'lanes' | 'accounts'> | 'webhookOldestAge' | 'laneDue' | 'laneOldestAge' | 'accountDue',
    Gauge
  >;
  private readonly requests: Counter<'endpoint' | 'result_code'>;
  private readonly durations: Histogram<'endpoint'>;
  /** The labelled children, found once: no label hashing per request. */
  private readonly counted = new Map<string, Map<string, Counter.Internal>>();
  private readonly timed = new Map<string, Histogram.Internal<'endpoint'>>();

  /** The SMPP server for customers' counts (src/smpp-server/). */
  readonly smppServer: SmppServerMetrics;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.smppServer = smppServerMetrics([this.registry]);
    this.requests = new Counter({
      name: 'haberci_api_requests_total',
      help: 'API requests answered, by endpoint (a path of the endpoint table, or other) and result_code',
      labelNames: ['endpoint', 'result_code'],
      registers: [this.registry],
    });
    this.durations = new Histogram({
      name: 'haberci_api_request_duration_seconds',
      help: 'Time from a request arriving to its answer sent, by endpoint',
      labelNames: ['endpoint'],
      buckets: durationBuckets,
      registers: [this.registry],
    });
    const registers = [this.registry];
    this.backlog = {
      dispatchDue: new Gauge({
        name: 'haberci_dispatch_backlog',
        help: 'Messages queued and due now, waiting for a dispatcher (read from the store at the scrape, capped)',
        registers,
      }),
      scheduled: new Gauge({
        name: 'haberci_scheduled_messages',
        help: 'Messages queued for later: scheduled sends and retries (read from the store at the scrape, capped)',
        registers,
      }),
      webhookPending: new Gauge({
        name: 'haberci_webhook_backlog',
        help: 'Webhook events waiting for an attempt (read from the store at the scrape, capped)',
        registers,
      }),
      webhookOldestAt: new Gauge({
        name: 'haberci_webhook_oldest_pending_timestamp_seconds',
        help: 'When the oldest pending webhook event was written (Unix time; 0 when none is)',
        registers,
      }),
      webhookOldestAge: new Gauge({
        name: 'haberci_webhook_oldest_pending_age_seconds',
        help: 'Age of the oldest pending webhook event (0 when none is)',
        registers,
      }),
      laneDue: new Gauge({
        name: 'haberci_lane_backlog',
        help: 'Messages queued and due now in each lane (interactive, bulk), waiting for a dispatcher (read from the store at the scrape, capped)',
        labelNames: ['lane'],
        registers,
      }),
      laneOldestAge: new Gauge({
        name: 'haberci_lane_oldest_waiting_age_seconds',
        help: 'How long the longest-waiting due message of each lane has waited since it came due (0 when none waits)',
        labelNames: ['lane'],
        registers,
      }),
      accountDue: new Gauge({
        name: 'haberci_account_backlog',
        help: 'Messages queued and due now per account, the 50 accounts with the most (read from the store at the scrape, capped)',
        labelNames: ['account'],
        registers,
      }),
      otpHeldPrefixes: new Gauge({
        name: 'haberci_otp_held_prefixes',
        help: 'Destination prefixes the OTP conversion watch holds for a key now: suspected SMS pumping (read from the store at the scrape)',
        registers,
      }),
    };
  }

  /** Where scrapes read the job threads' metrics and the backlog from (serve sets them once its threads run). */
  readFrom(sources: ScrapeSources): void {
    this.sources = sources;
  }

  request(endpoint: string, resultCode: string, seconds: number): void {
    let byCode = this.counted.get(endpoint);
    if (byCode === undefined) {
      byCode = new Map();
      this.counted.set(endpoint, byCode);
    }
    let counter = byCode.get(resultCode);
    if (counter === undefined) {
      counter = this.requests.labels(endpoint, resultCode);
      byCode.set(resultCode, counter);
    }
    counter.inc();
    let histogram = this.timed.get(endpoint);
    if (histogram === undefined) {
      histogram = this.durations.labels(endpoint);
      this.timed.set(endpoint, histogram);
    }
    histogram.observe(seconds);
  }

  /** The registry in Prometheus's text format, with its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    const { threads, backlog, now = Date.now } = this.sources;
    const [others, depths] = await Promise.all([
      threads ? threads() : Promise.resolve([]),
      backlog ? backlog().catch(() => null) : Promise.resolve(null),
    ]);
    if (depths !== null) {
      this.backlog.dispatchDue.set(depths.dispatchDue);
      this.backlog.scheduled.set(depths.scheduled);
      this.backlog.webhookPending.set(depths.webhookPending);
      this.backlog.otpHeldPrefixes.set(depths.otpHeldPrefixes);
      this.backlog.webhookOldestAt.set(depths.webhookOldestAt === null ? 0 : depths.webhookOldestAt / 1000);
      this.backlog.webhookOldestAge.set(
        depths.webhookOldestAt === null ? 0 : Math.max(0, (now() - depths.webhookOldestAt) / 1000),
      );
      for (const [lane, depth] of Object.entries(depths.lanes ?? {})) {
        this.backlog.laneDue.labels(lane).set(depth.due);
        this.backlog.laneOldestAge
          .labels(lane)
          .set(depth.oldestDueAt === null ? 0 : Math.max(0, (now() - depth.oldestDueAt) / 1000));
      }
      // An account whose queue drained leaves the metric.
      this.backlog.accountDue.reset();
      for (const a of depths.accounts ?? []) this.backlog.accountDue.labels(String(a.accountId)).set(a.due);
    }
    const merged = AggregatorRegistry.aggregate([
      await this.registry.getMetricsAsJSON(),
      await this.thread.json(),
      ...others,
    ]);
    return { contentType: this.registry.contentType, text: await merged.metrics() };
  }
}

function smppServerMetrics(registers: Registry[]): SmppServerMetrics {
  const binds = new Counter({
    name: 'haberci_smpp_server_binds_total',
    help: 'Binds of customers to the SMPP server, by outcome: bound, or the refusal\u2019s command status name',
    labelNames: ['outcome'],
    registers,
  });
  const submits = new Counter({
    name: 'haberci_smpp_server_submits_total',
    help: 'submit_sm of customers answered, by command status name (ESME_ROK: accepted)',
    labelNames: ['status'],
    registers,
  });
  const receipts = new Counter({
    name: 'haberci_smpp_server_receipts_total',
    help: 'Receipts (deliver_sm) acknowledged by customers',
    registers,
  });
  const sessions = new Gauge({
    name: 'haberci_smpp_server_sessions',
    help: 'Customer SMPP sessions bound to this process',
    registers,
  });
  return {
    bind: (outcome) => binds.inc({ outcome }),
    submit: (status) => submits.inc({ status }),
    receiptAcknowledged: (count) => receipts.inc(count),
    sessions: (bound) => sessions.set(bound),
  };
}
