import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Readiness } from '../services/readiness.js';
import { ServerStopping } from './drain-on-stop.js';
import { healthPlugin } from './health.js';

export interface OpsAppOptions {
  readiness: Readiness;
  /** The metrics in Prometheus's text format (adapters/metrics/), with their content type. */
  exposition: () => Promise<{ contentType: string; text: string }>;
  /** True once the process stops: the probes answer 503 from then on; /metrics still answers. */
  stopping: () => boolean;
  logger?: Logger;
}

/**
 * The operations listener (`--ops-port`, on `--ops-host`, loopback by default): a server of
 * its own, apart from the API's port, so that scrapes and probes never meet the API's
 * connection caps, rate limits or drain, and the metrics are never public by accident.
 * `GET /metrics` (Prometheus text format), and the same `/healthz` and `/readyz` as the serve
 * port.
 */
export async function buildOpsApp(options: OpsAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger | undefined,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger) => logger,
    connectionTimeout: 10_000,
    keepAliveTimeout: 5_000,
    requestTimeout: 10_000,
  });
  app.addHook('onRequest', (request, _reply, done) => {
    if (options.stopping() && request.url !== '/metrics') return done(new ServerStopping());
    done();
  });
  await app.register(healthPlugin(options.readiness));
  app.get('/metrics', async (_request, reply) => {
    const { contentType, text } = await options.exposition();
    return reply.header('cache-control', 'no-store').type(contentType).send(text);
  });
  app.setNotFoundHandler(async (_request, reply) =>
    reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send({ status: 'not found', paths: ['/metrics', '/healthz', '/readyz'] }),
  );
  return app;
}
