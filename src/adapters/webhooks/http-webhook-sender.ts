/**
 * Webhook attempts over undici (Node's own HTTP/1.1 client project): its connection pool
 * costs about a third less CPU an attempt than node:http's agent (docs/decisions.md).
 * Rules, each a reason for a line below:
 * - only http: and https: URLs; anything else fails without a request;
 * - redirects are never followed (a 3xx is a failure with its status), so a receiver
 *   cannot bounce a signed body to a third party or past the address guard;
 * - one timer bounds the whole attempt (lookup, connect, TLS, headers);
 * - the response body is not needed: at most `maxResponseBytes` are read, then the
 *   connection is cut, so a receiver cannot hold memory or a worker slot with a large body;
 * - unless `allowPrivate`, the address guard runs at connect time (guarded lookup) and on
 *   literal IP hosts, which skip lookup.
 */
import { isIP } from 'node:net';
import { createRequire } from 'node:module';
import type { Agent, Dispatcher } from 'undici';
import type * as Undici from 'undici';
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

// undici is loaded with the first pool, not with the module: every thread and command loads
// the composition root, and only the webhook thread sends (loading it cost 0.15 s of CPU).
const load = createRequire(import.meta.url);
let undici: typeof Undici | null = null;

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class HttpWebhookSender implements WebhookSender {
  // One keep-alive pool per origin: most events of a key go to the same receiver, so
  // reusing its connections saves a handshake per attempt. No redirects (undici's default).
  // Made at the first attempt (and again after close()).
  private agent: Agent | null = null;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: HttpWebhookSenderOptions) {
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
      this.attempt(target, request, finish);
    });
  }

  /** Closes pooled connections; sends after this still work on fresh connections. */
  close(): void {
    const old = this.agent;
    this.agent = null;
    void old?.destroy().catch(() => undefined);
  }

  private pool(): Agent {
    if (this.agent !== null) return this.agent;
    undici ??= load('undici') as typeof Undici;
    const lookup = this.options.allowPrivate ? undefined : guardedLookup(this.options.resolver ?? systemResolver);
    this.agent = new undici.Agent({ connect: lookup ? { lookup } : {} });
    return this.agent;
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
    // undici's handler interface (no response stream, no promise): the leanest of its APIs.
    let abort: ((error?: Error) => void) | undefined;
    let read = 0;
    // Still armed after the outcome is known, so a body that never ends is cut too. Before
    // a connection takes the request there is no abort yet: the attempt is settled all the
    // same, and undici's connect timeout (10 s) ends the queued request.
    const timer = setTimeout(() => {
      settle(null, 'timeout');
      abort?.(new Error('timeout'));
    }, request.timeoutMs);
    const handler: Dispatcher.DispatchHandlers = {
      onConnect: (cut) => {
        abort = cut;
      },
      onError: (error) => {
        clearTimeout(timer);
        settle(null, describeError(error));
      },
      onHeaders: (statusCode) => {
        // 1xx answers are interim; the final status line is the acknowledgement.
        if (statusCode >= 200) settle(statusCode, null);
        return true;
      },
      // The body is not needed: it is read and dropped up to the bound, then the connection is cut.
      onData: (chunk) => {
        read += chunk.length;
        if (read <= this.maxResponseBytes) return true;
        abort?.(new Error('response body too large'));
        return false;
      },
      onComplete: () => clearTimeout(timer),
    };
    try {
      this.pool().dispatch(
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: request.headers,
          body: request.body,
        },
        handler,
      );
    } catch (error) {
      // An invalid header (for example), refused before any request is made.
      clearTimeout(timer);
      settle(null, describeError(error));
    }
  }
}
