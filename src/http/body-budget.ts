import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { smallBodyLimit } from '../endpoints/body-limits.js';

/**
 * Raised for a request whose body does not fit in the process's budget of body bytes in
 * flight: answered 503 with Retry-After by its surface (the API: SRV-ERR in its envelope),
 * before the body is read, or (a chunked body) when it outgrows its reserve and the rest of
 * its route's limit does not fit.
 */
export class BodyBudgetFull extends Error {
  readonly statusCode = 503;
  readonly retryAfterSeconds = 1;
  constructor() {
    super('the server holds as many request bodies as it can: send the request again in a moment');
  }
}

/**
 * The bytes of request bodies the whole process holds at once (read, or declared and being
 * read), so that no mix of bodies, however many clients send them, can exhaust its memory.
 * Large bodies (over the small endpoints' limit) may take only `largeShare` of it: the rest
 * is kept for ordinary requests, so a flood of large bodies leaves them served.
 */
export class BodyBudget {
  private held = 0;
  private readonly largeCeiling: number;
  constructor(
    readonly totalBytes: number,
    largeShare = 0.75,
  ) {
    this.largeCeiling = Math.floor(totalBytes * largeShare);
  }

  /** Bytes held now. */
  get inFlight(): number {
    return this.held;
  }

  /** The most a body of `bodyTotal` bytes may find held, itself included: large bodies stop below the whole. */
  ceilingFor(bodyTotal: number): number {
    return bodyTotal > smallBodyLimit ? this.largeCeiling : this.totalBytes;
  }

  /** Takes `bytes` for a body that will then hold `bodyTotal`; false (nothing taken) when they do not fit. */
  take(bytes: number, bodyTotal: number): boolean {
    if (this.held + bytes > this.ceilingFor(bodyTotal)) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}

/** What one request holds of the budget; given back once, when its answer is done or its connection closes. */
interface Holding {
  bytes: number;
  released: boolean;
}

const holdings = new WeakMap<FastifyRequest, Holding>();

/**
 * What a body of no declared length (chunked) takes before a byte of it is read: its route's
 * limit, up to a sixty-fourth of the budget (8 MiB of the default 512). See limitBodyBytes.
 */
export function chunkedReserve(budget: BodyBudget, routeLimit: number): number {
  return Math.min(routeLimit, Math.max(smallBodyLimit, Math.floor(budget.totalBytes / 64)));
}

/**
 * Installs the budget on the server, for every surface, so that it is taken before the
 * bytes it stands for are read:
 *
 * - a body's declared length, before the body is read (one that does not fit is answered
 *   at once, unread);
 * - a chunked body's reserve (`chunkedReserve`: on every route but `/group/sendMixed`, its
 *   route's whole limit), before the body is read, likewise;
 * - a chunked body that outgrows its reserve: the rest of what its route allows (its limit,
 *   or all the large bodies' share if that is less), in one step, before it reads on; if
 *   that does not fit, it is refused there.
 *
 * One step, so that a body refused in the middle has read its reserve and no more: counted
 * chunk by chunk, as it once was, 32 chunked bodies of 250 MB grew together until the budget
 * was full, and each refusal handed its bytes (parsed already, garbage until V8's next full
 * collection) to the others, which grew into them: 2 GB parsed for a share of 384 MiB, and
 * 1.6 GB resident (docs/decisions.md, "A chunked body takes its budget before it is read").
 *
 * What a request took is given back when its answer has gone out or its connection closed.
 * `onFull` is called for each refusal (the log line).
 */
export function limitBodyBytes(
  app: FastifyInstance,
  budget: BodyBudget,
  onFull: (request: FastifyRequest) => void,
): void {
  app.addHook('onRequest', (request, reply, done) => {
    const routeLimit = request.routeOptions.bodyLimit ?? Infinity;
    const length = request.headers['content-length'];
    let bytes: number;
    let bodyTotal: number;
    if (length !== undefined) {
      bytes = Number(length);
      bodyTotal = bytes;
      // Over the route's limit: answered 413 by the body's parser, unread; nothing to hold.
      if (!(bytes > 0) || bytes > routeLimit) return done();
    } else if (request.headers['transfer-encoding'] !== undefined && Number.isFinite(routeLimit)) {
      bytes = chunkedReserve(budget, routeLimit);
      bodyTotal = routeLimit;
    } else {
      return done();
    }
    if (!budget.take(bytes, bodyTotal)) {
      onFull(request);
      return done(new BodyBudgetFull());
    }
    const holding: Holding = { bytes, released: false };
    holdings.set(request, holding);
    // The answer's end, or the connection's (a client gone mid-body): not the body's end,
    // since the parsed body is held until the handler has answered.
    reply.raw.once('close', () => {
      if (holding.released) return;
      holding.released = true;
      budget.give(holding.bytes);
    });
    done();
  });
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const holding = holdings.get(request);
    const routeLimit = request.routeOptions.bodyLimit ?? Infinity;
    const most = Math.min(routeLimit, budget.ceilingFor(routeLimit));
    // Sized bodies, and chunked ones whose reserve is all they may be, are held already.
    if (request.headers['content-length'] !== undefined || !holding || holding.bytes >= most)
      return done(null, payload);
    let read = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
        read += chunk.length;
        if (read > holding.bytes) {
          // Past a route limit over the large share, no step is left: refused as a sized body would be.
          if (holding.released || holding.bytes >= most || !budget.take(most - holding.bytes, routeLimit)) {
            onFull(request);
            return callback(new BodyBudgetFull());
          }
          holding.bytes = most;
        }
        callback(null, chunk);
      },
    });
    payload.on('error', (error) => counted.destroy(error));
    // The parser listens for the refusal while it reads; a refusal after it has answered
    // (a refused key, the rest of the body arriving before discardRest unpipes it) reaches
    // no one, and must not be an uncaught error.
    counted.on('error', () => undefined);
    done(null, payload.pipe(counted));
  });
}

/** The budget of an app built without a configuration (tests, benches): the option's default. */
export const defaultBodyBytesInFlight = 512 * 1024 * 1024;

/**
 * The refusals' log line: one warning when the budget is first full, then at most one each
 * 10 s while refusals go on, with how many there were.
 */
export function bodyBudgetLog(log: FastifyBaseLogger, everyMs = 10_000): (request: FastifyRequest) => void {
  let last = -Infinity;
  let refused = 0;
  return (request) => {
    refused += 1;
    const now = performance.now();
    if (now - last < everyMs) return;
    last = now;
    log.warn(
      { refused, path: request.url.split('?')[0], declared: request.headers['content-length'] ?? 'chunked' },
      'request bodies in flight fill --body-bytes-in-flight: bodies refused with 503 (SRV-ERR, Retry-After)',
    );
    refused = 0;
  };
}
