/**
 * The part of autocannon 8's programmatic API the benchmarks use. The package ships no
 * types; these are transcribed from its README ("API" and "results" sections).
 */
declare module 'autocannon' {
  export interface Options {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Concurrent connections; default 10. */
    connections?: number;
    /** Requests in flight per connection; default 1. */
    pipelining?: number;
    /** Seconds; default 10. */
    duration?: number;
    /** Seconds to wait for a response; default 10. */
    timeout?: number;
    /** A response whose body differs is counted in `mismatches`. */
    expectBody?: string;
    title?: string;
    /** Requests to make in all; overrides `duration`. */
    amount?: number;
    /** Requests per second over all connections; no limit by default. */
    overallRate?: number;
    /** The requests each connection cycles through, with per-request hooks. */
    requests?: RequestSpec[];
  }

  export interface RequestSpec {
    method?: Options['method'];
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Changes the request before it is sent (a body of its own per request). */
    setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec;
    /** Called with each response to this request. */
    onResponse?: (
      status: number,
      body: string,
      context: Record<string, unknown>,
      headers: Record<string, string>,
    ) => void;
  }

  /** A histogram summary: `average` is the mean; percentiles as `p50`, `p99`... */
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    title?: string;
    url: string;
    /** Requests per second, one sample a second. */
    requests: Histogram;
    /** Milliseconds from request to response. */
    latency: Histogram;
    throughput: Histogram;
    /** Seconds. */
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    connections: number;
    pipelining: number;
    start: Date;
    finish: Date;
    statusCodeStats: Record<string, { count: number }>;
  }

  /** An event emitter that is also a promise of the result when no callback is given. */
  export interface Instance extends PromiseLike<Result> {
    stop(): void;
  }

  export default function autocannon(options: Options): Instance;
}
