/**
 * The boundary between webhook delivery (which picks events, builds and signs bodies and
 * records attempts) and the network. One call is one HTTP attempt; retries are the
 * caller's business.
 */

export interface WebhookRequest {
  url: string;
  /** The exact bytes that were signed; sent unchanged. */
  body: string;
  headers: Readonly<Record<string, string>>;
  /** Covers the whole attempt: name lookup, connect, TLS, request and response headers. */
  timeoutMs: number;
}

/**
 * What one attempt came to. `ok` only for a 2xx status. `status` is null when no response
 * arrived; `error` is null when one did (a non-2xx status is a failure without error text).
 */
export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookSender {
  /** Never throws and never rejects: every failure is an outcome. */
  send(request: WebhookRequest): Promise<AttemptOutcome>;
  /** Releases pooled connections, so a short-lived process (the admin CLI) can exit. */
  close?(): void;
}
