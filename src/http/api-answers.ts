import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Envelope } from '../endpoints/endpoint.js';
import { errorFields } from '../util/error-fields.js';
import { outcomeUnknown, storeFault } from '../util/store-faults.js';
import type { StoreFault } from '../util/store-faults.js';
import { renderBody, renderFailure, statusOf } from './envelope.js';
import type { Body } from './envelope.js';
import { discardRest } from './discard-rest.js';
import { ServerStopping } from './drain-on-stop.js';
import { BodyBudgetFull } from './body-budget.js';
import { BodyRefused, BodyTooLarge, KeyRefused } from './streaming-body.js';
import { smallBodyLimit } from '../endpoints/body-limits.js';

/**
 * The API's answers that no endpoint handler gives: a wrong path, a wrong method, a body or
 * key refused before the handler, the rate limit, the drain, an unexpected error. Every one
 * is in the API's envelopes; the API plugin (api-plugin.ts) installs them for its paths.
 */

/** Raised by the rate limiter, answered as TS-1060 with HTTP 429. */
export class RateLimited extends Error {
  readonly statusCode = 429;
  constructor(readonly retryAfterSeconds: number) {
    super('request rate exceeded');
  }
}

export function send(reply: FastifyReply, status: number, body: Body): FastifyReply {
  // For the access log (api-plugin.ts): every answer of the API goes out here.
  const code = body.result_code;
  if (typeof code === 'string') reply.request.apiResultCode = code;
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** Which family a path belongs to decides the envelope and code of a wrong path. */
export function wrongPath(path: string): { envelope: Envelope; code: 'TS-404' | 'TS-1033' } {
  if (path.startsWith('/blacklist/')) return { envelope: 'status', code: 'TS-404' };
  if (path.startsWith('/reports/')) return { envelope: 'status', code: 'TS-1033' };
  return { envelope: 'result', code: 'TS-404' };
}

/**
 * A path the API does not have: 301 to the endpoint it differs from by a trailing slash
 * (the spec's paths are exact, and some end in one), else 404.
 */
export function notFound(paths: ReadonlySet<string>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const path = request.url.split('?')[0] ?? '';
    const other = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
    const { envelope, code } = wrongPath(path);
    if (paths.has(other)) {
      reply.header('location', other);
      return send(
        reply,
        301,
        renderBody(envelope, false, code, { location: other }, false, `Moved: the path is ${other}`),
      );
    }
    return send(reply, 404, renderBody(envelope, false, code, {}, false, 'Not found'));
  };
}

/** Every method but POST on an endpoint's path. */
export async function methodNotAllowed(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { envelope, code } = wrongPath(request.url);
  reply.header('allow', 'POST');
  return send(
    reply,
    405,
    renderBody(envelope, false, code, {}, false, 'Method not allowed: every endpoint accepts POST only'),
  );
}

/** A request that arrived while the server stops (drain-on-stop.ts): 503, and the connection closes behind it. */
export function stopping(reply: FastifyReply, envelope: Envelope): FastifyReply {
  reply.header('connection', 'close');
  return unavailable(
    reply,
    envelope,
    'The server is stopping: send the request again (to another server, or after it restarts)',
  );
}

/** 503 SRV-ERR: the request is not taken now, and the message says when to send it again. */
function unavailable(reply: FastifyReply, envelope: Envelope, message: string): FastifyReply {
  return send(reply, 503, renderBody(envelope, false, 'SRV-ERR', {}, false, message));
}

/**
 * A body refused for the process's budget of bodies in flight (body-budget.ts): 503 SRV-ERR
 * with Retry-After, at once; the body is read and dropped behind the answer (discard-rest.ts),
 * never held.
 */
function bodiesFull(
  error: BodyBudgetFull,
  request: FastifyRequest,
  reply: FastifyReply,
  envelope: Envelope,
): FastifyReply {
  discardRest(request.raw);
  // A chunked body is refused from inside its parser, and Fastify marks such an answer
  // `Connection: close`: the socket was then closed with the client's bytes unread, the
  // kernel reset it, and a client still writing lost the answer (one run in two of the
  // process test). The rest is dropped here instead, as for the 4xx below.
  reply.removeHeader('connection');
  reply.header('retry-after', String(error.retryAfterSeconds));
  return unavailable(
    reply,
    envelope,
    "The server is busy with other requests' bodies: send the request again after Retry-After",
  );
}

/** Errors raised before or around a handler, answered in the endpoint's envelope (or a wrong path's). */
export async function apiErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const endpoint = request.routeOptions.config.endpoint;
  if (error instanceof ServerStopping) return stopping(reply, endpoint?.envelope ?? wrongPath(request.url).envelope);
  if (error instanceof BodyBudgetFull)
    return bodiesFull(error, request, reply, endpoint?.envelope ?? wrongPath(request.url).envelope);
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (error instanceof RateLimited && endpoint) {
    reply.header('retry-after', String(error.retryAfterSeconds));
    return send(reply, 429, renderBody(endpoint.envelope, false, 'TS-1060', {}, false, 'Request rate exceeded'));
  }
  if (endpoint && status >= 400 && status < 500) {
    // Answered before the body was read to its end: the answer goes out now, and the rest
    // is read and dropped (up to a bound), so the client, still writing, gets the answer
    // rather than a broken pipe.
    // Fastify marks a body its parser refused `Connection: close`; the rest is dropped
    // here instead, so the connection can serve the client's next request.
    discardRest(request.raw);
    reply.removeHeader('connection');
    if (error instanceof KeyRefused) {
      const { status: http, body } = renderFailure(endpoint, error.failure);
      return send(reply, http, body);
    }
    if (status === 413) {
      const limit = error instanceof BodyTooLarge ? error.limit : (request.routeOptions.bodyLimit ?? smallBodyLimit);
      return send(
        reply,
        413,
        renderBody(
          endpoint.envelope,
          false,
          endpoint.invalidBody,
          {},
          false,
          `Request body too large: at most ${limit} bytes on ${endpoint.path}`,
        ),
      );
    }
    if (error instanceof BodyRefused) {
      // A member of a streamed body of the wrong shape answers with that field's code.
      const code =
        (error.field !== undefined ? endpoint.streamedBody?.fieldCodes?.[error.field] : undefined) ??
        endpoint.invalidBody;
      return send(
        reply,
        statusOf(endpoint, code, code === endpoint.invalidBody ? 'body' : 'field', false),
        renderBody(endpoint.envelope, false, code, {}, false, error.message),
      );
    }
    // Malformed, poisoned or wrongly typed bodies: the endpoint's invalid-body code.
    const http = statusOf(endpoint, endpoint.invalidBody, 'body', false);
    return send(reply, http, renderBody(endpoint.envelope, false, endpoint.invalidBody));
  }
  return unexpected(error, request, reply, endpoint?.envelope ?? 'result', endpoint?.serverError ?? 'SRV-ERR');
}

/** The wait a store fault's 503 asks for, seconds. */
const storeRetryAfterSeconds = 5;

/**
 * A store fault's warning: the first, then at most one each 10 s while they go on, with how
 * many requests were refused since (a full disk fails every write: a line each would fill
 * what is left of it).
 */
let storeFaultLogged = -Infinity;
let storeFaultsSince = 0;
function noteStoreFault(request: FastifyRequest, fault: StoreFault, error: unknown): void {
  storeFaultsSince += 1;
  const now = performance.now();
  if (now - storeFaultLogged < 10_000) return;
  storeFaultLogged = now;
  request.log.warn(
    { fault, refused: storeFaultsSince, err: errorFields(error), path: request.routeOptions.url },
    'the store cannot take requests: answered 503 SRV-ERR with Retry-After',
  );
  storeFaultsSince = 0;
}

/**
 * A store fault (store-faults.ts): 503 with Retry-After, one warning at most each 10 s. A
 * commit of unknown outcome: 500, saying so. Anything else is a bug: logged once here,
 * answered 500 with no internals.
 */
export function unexpected(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  envelope: Envelope,
  code: 'SRV-ERR' | 'TS-5000',
): FastifyReply {
  const fault = storeFault(error);
  if (fault !== null) {
    noteStoreFault(request, fault, error);
    reply.header('retry-after', String(storeRetryAfterSeconds));
    return send(
      reply,
      503,
      renderBody(
        envelope,
        false,
        code,
        {},
        false,
        'The service cannot store requests at the moment: send the request again after Retry-After (a send with an idempotency_key is safe to send again)',
      ),
    );
  }
  if (outcomeUnknown(error)) {
    // Rare (a commit on its way as the store fell silent or went away) and worth a line each.
    request.log.error(
      { err: errorFields(error), path: request.routeOptions.url },
      'a commit was not answered: whether it was made is unknown (answered 500 SRV-ERR)',
    );
    return send(
      reply,
      500,
      renderBody(
        envelope,
        false,
        code,
        {},
        false,
        'The store did not answer in time and the request may have been carried out: look before sending it again (a send with an idempotency_key is safe to send again with the same key)',
      ),
    );
  }
  request.log.error({ err: errorFields(error), path: request.routeOptions.url }, 'unexpected error');
  return send(reply, 500, renderBody(envelope, false, code));
}
