import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { smallBodyLimit } from '../endpoints/body-limits.js';

/**
 * Raised for a request whose body does not fit in the process's budget of body bytes in
 * flight: answered 503 with Retry-After by its surface (the API: SRV-ERR in its envelope),
 * before the body is read (a declared length) or as soon as it outgrows the budget (chunked).
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

  /** Takes `bytes` for a body that will then hold `bodyTotal`; false (nothing taken) when they do not fit. */
  take(bytes: number, bodyTotal: number): boolean {
    const ceiling = bodyTotal > smallBodyLimit ? this.largeCeiling : this.totalBytes;
    if (this.held + bytes > ceiling) return false;
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
 * Installs the budget on the server, for every surface: a body's declared length is taken
 * before it is read (a body that does not fit is answered at once, unread); a chunked body
 * is counted as it arrives and refused when it outgrows the budget. What a request took is
 * given back when its answer has gone out or its connection closed. `onFull` is called for
 * each refusal (the log line).
 */
export function limitBodyBytes(
  app: FastifyInstance,
  budget: BodyBudget,
  onFull: (request: FastifyRequest) => void,
): void {
  const hold = (request: FastifyRequest, reply: FastifyReply): Holding => {
    const held = holdings.get(request);
    if (held) return held;
    const holding: Holding = { bytes: 0, released: false };
    holdings.set(request, holding);
    // The answer's end, or the connection's (a client gone mid-body): not the body's end,
    // since the parsed body is held until the handler has answered.
    reply.raw.once('close', () => {
      if (holding.released) return;
      holding.released = true;
      budget.give(holding.bytes);
    });
    return holding;
  };

  app.addHook('onRequest', (request, reply, done) => {
    const length = request.headers['content-length'];
    if (length === undefined) return done();
    const declared = Number(length);
    // Over the route's limit: answered 413 by the body's parser, unread; nothing to hold.
    if (!(declared > 0) || declared > (request.routeOptions.bodyLimit ?? Infinity)) return done();
    if (!budget.take(declared, declared)) {
      onFull(request);
      return done(new BodyBudgetFull());
    }
    hold(request, reply).bytes = declared;
    done();
  });
  // A body of no declared length (chunked) is counted as it arrives.
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] === undefined)
      return done(null, payload);
    const holding = hold(request, reply);
    const counted = new Transform({
      transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
        if (holding.released || !budget.take(chunk.length, holding.bytes + chunk.length)) {
          onFull(request);
          return callback(new BodyBudgetFull());
        }
        holding.bytes += chunk.length;
        callback(null, chunk);
      },
    });
    payload.on('error', (error) => counted.destroy(error));
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
