import { Server as NetServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';

/**
 * Raised for a request that arrives while the server stops. Each surface's error handler
 * answers it in its own format (the API: SRV-ERR in its envelope, HTTP 503); a surface that
 * does not know it answers Fastify's 503.
 */
export class ServerStopping extends Error {
  readonly statusCode = 503;
  constructor() {
    super('the server is stopping');
  }
}

/**
 * Installs the hooks that answer requests arriving while the server stops (see stopApp)
 * and returns the drain: it turns them on, then waits until every connection is gone or
 * `ms` has passed. `openConnections` counts the server's open connections. A server-level
 * concern: the hooks are the root's, so they run for every surface.
 */
export function drainOnStop(app: FastifyInstance, openConnections: () => number): (ms: number) => Promise<void> {
  let draining = false;
  // Callback hooks, not async ones: they run on every request and, but for the drain, do nothing.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!draining) return done();
    reply.header('connection', 'close');
    done(new ServerStopping());
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    // Answers finished during the drain close their connection behind them.
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
  return async (ms) => {
    draining = true;
    // The port closes now: a new connection is refused, which a client (or a load
    // balancer) takes as "go elsewhere" before sending anything. net.Server's own close, not
    // http.Server's: that one would also close the idle keep-alive connections at once, and
    // a client sending on one at that moment would see a reset. Those are left to end by
    // themselves: on the answer they get (Connection: close) or on their keep-alive timeout.
    NetServer.prototype.close.call(app.server);
    const until = performance.now() + ms;
    while (openConnections() > 0 && performance.now() < until) await delay(25);
  };
}
