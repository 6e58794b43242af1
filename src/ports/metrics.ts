/**
 * What the program counts, in its own words; an adapter (adapters/metrics/, Prometheus)
 * turns it into metrics. Each surface or job gets the part it counts: the API its requests
 * today; the job threads' parts (submits, receipts, webhook attempts) are to come beside it.
 */

/** The API's requests: one call per answered request. */
export interface ApiMetrics {
  /**
   * `endpoint`: a path of the endpoint table or `other` (never a raw URL: the label set stays
   * bounded); `resultCode`: the answer's result_code, or `none`.
   */
  request(endpoint: string, resultCode: string, seconds: number): void;
}

/** Counts nothing (no operations listener). */
export const noApiMetrics: ApiMetrics = { request: () => undefined };
