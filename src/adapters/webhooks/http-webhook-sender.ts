/**
 * Webhook attempts over node:http and node:https. Rules, each a reason for a line below:
 * - only http: and https: URLs; anything else fails without a request;
 * - redirects are never followed (a 3xx is a failure with its status), so a receiver
 *   cannot bounce a signed body to a third party or past the address guard;
 * - one timer bounds the whole attempt (lookup, connect, TLS, headers);
 * - the response body is not needed: at most `maxResponseBytes` are read, then the
 *   connection is cut, so a receiver cannot hold memory or a worker slot with a large body;
 * - unless `allowPrivate`, the address guard runs at connect time (guarded lookup) and on
 *   literal IP hosts, which skip lookup.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import type { AttemptOutcome, WebhookRequest, WebhookSender } from '../../ports/webhook-sender.js';
import { refusalReason } from './address-guard.js';
import { guardedLookup, systemResolver } from './guarded-lookup.js';
import type { Resolver } from './guarded-lookup.js';

export interface HttpWebhookSenderOptions {
  /** Turns the address guard off: for on-premise receivers on private networks, and tests. */
  allowPrivate: boolean;
  /** Name resolution behind the guard; the system resolver unless a test injects one. */
  resolver?: Resolver;
  /** Response bytes read before the connection is cut. */
  maxResponseBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

type Finish = (status: number | null, error: string | null) => void;

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class HttpWebhookSender implements WebhookSender {
  // One keep-alive pool per protocol: most events of a key go to the same receiver, so
  // reusing its connection saves a handshake per attempt.
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent = new https.Agent({ keepAlive: true });
  private readonly lookup: LookupFunction | undefined;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: HttpWebhookSenderOptions) {
    this.lookup = options.allowPrivate ? undefined : guardedLookup(options.resolver ?? systemResolver);
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  send(request: WebhookRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    return new Promise((resolve) => {
      const finish: Finish = (status, error) =>
        resolve({
          ok: status !== null && status >= 200 && status < 300,
          status,
          error,
          durationMs: Math.round(performance.now() - started),
        });
      const target = this.checkTarget(request.url);
      if (typeof target === 'string') return finish(null, target);
      try {
        this.attempt(target, request, finish);
      } catch (err) {
        // http.request throws synchronously on, for example, a header with invalid characters.
        finish(null, describeError(err));
      }
    });
  }

  /** Closes pooled connections; sends after this still work on fresh connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /** The URL to request, or why no request is made. */
  private checkTarget(text: string): URL | string {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return 'invalid url';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `unsupported scheme ${url.protocol}`;
    if (url.hostname === '') return 'invalid url';
    if (this.options.allowPrivate) return url;
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    // A literal IP is connected to without lookup, so it is checked here.
    const reason = isIP(host) === 0 ? null : refusalReason(host);
    return reason === null ? url : `refused destination: ${host} (${reason})`;
  }

  private attempt(url: URL, request: WebhookRequest, finish: Finish): void {
    let settled = false;
    const settle: Finish = (status, error) => {
      if (settled) return;
      settled = true;
      finish(status, error);
    };
    const isHttps = url.protocol === 'https:';
    const req = (isHttps ? https : http).request(url, {
      method: 'POST',
      agent: isHttps ? this.httpsAgent : this.httpAgent,
      lookup: this.lookup,
      headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
    });
    // Still armed after the outcome is known, so a body that never ends is cut too.
    const timer = setTimeout(() => {
      settle(null, 'timeout');
      req.destroy(new Error('timeout'));
    }, request.timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      settle(null, describeError(err));
    });
    req.on('response', (res) => {
      // The status line is the acknowledgement; the body only has to be disposed of.
      settle(res.statusCode ?? null, null);
      this.discardBody(res, () => clearTimeout(timer));
    });
    req.end(request.body);
  }

  /** Reads and drops the body (so a keep-alive socket can be reused) up to the bound. */
  private discardBody(res: http.IncomingMessage, done: () => void): void {
    let read = 0;
    res.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > this.maxResponseBytes) res.destroy();
    });
    res.on('error', () => undefined);
    res.on('end', done);
    res.on('close', done);
  }
}
