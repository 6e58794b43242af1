import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ApiMetrics } from '../../ports/metrics.js';

/** Buckets of the API's request durations, in seconds: sub-millisecond answers to slow sends. */
const durationBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The metrics of one process in a prom-client registry of its own (not the library's
 * global one): Node's default metrics, and the API's requests. `exposition()` is what the
 * operations listener answers at GET /metrics.
 */
export class PrometheusMetrics implements ApiMetrics {
  private readonly registry = new Registry();
  private readonly requests: Counter<'endpoint' | 'result_code'>;
  private readonly durations: Histogram<'endpoint'>;
  /** The labelled children, found once: no label hashing per request. */
  private readonly counted = new Map<string, Map<string, Counter.Internal>>();
  private readonly timed = new Map<string, Histogram.Internal<'endpoint'>>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
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
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
