import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A client's X-Request-Id is taken when it is 1 to 64 of these safe characters. */
const wellFormed = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The id of a request (Fastify's `genReqId`): the client's `X-Request-Id` when well formed
 * (a proxy or the client's own tracing made it), else a new UUID. It is returned in the
 * answer's `X-Request-Id` and logged in the request's access line.
 */
export function requestId(raw: IncomingMessage): string {
  const given = raw.headers['x-request-id'];
  return typeof given === 'string' && wellFormed.test(given) ? given : randomUUID();
}
