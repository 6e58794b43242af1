import { Server as NetServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { renderBody } from './envelope.js';

/**
 * Installs the hooks that answer requests arriving while the server stops (see stopApp)
 * and returns the drain: it turns them on, then waits until every connection is gone or
 * `ms` has passed. `openConnections` counts the server's open connections.
 */
export function drainOnStop(app: FastifyInstance, openConnections: () => number): (ms: number) => Promise<void> {
  let draining = false;
  app.addHook('onRequest', async (request, reply) => {
    if (!draining) return;
    const envelope = request.routeOptions.config.endpoint?.envelope ?? (request.url.startsWith('/blacklist/') || request.url.startsWith('/reports/') ? 'status' : 'result');
    reply.header('connection', 'close');
    return reply
      .code(503)
      .type('application/json; charset=utf-8')
      .send(renderBody(envelope, false, 'SRV-ERR', {}, false, 'The server is stopping: send the request again (to another server, or after it restarts)'));
  });
  app.addHook('onSend', async (_request, reply) => {
    // Answers finished during the drain close their connection behind them.
    if (draining) reply.header('connection', 'close');
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
