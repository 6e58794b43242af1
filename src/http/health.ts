import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Readiness } from '../services/readiness.js';
import type { RootSurface } from './app.js';
import { ServerStopping } from './drain-on-stop.js';

/** The probes' paths, fixed for monitors and orchestrators (/work/shared/interfaces.md). */
export const healthPaths = ['/healthz', '/readyz'] as const;

function json(reply: FastifyReply, status: number, body: object): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(body);
}

/**
 * The probes as one plugin: `GET /healthz` (the process answers: `{"status":"ok"}`) and
 * `GET /readyz` (200 `{"status":"ready","checks":{...}}` or 503 `{"status":"unready",...}`
 * naming what failed). No key, no request count, no access log line: they are not API
 * requests. During the server's drain both answer 503 `{"status":"stopping"}`, so a load
 * balancer takes the process out of rotation.
 */
export function healthPlugin(readiness: Readiness) {
  return async (scope: FastifyInstance): Promise<void> => {
    scope.setErrorHandler(async (error, _request, reply) => {
      if (error instanceof ServerStopping)
        return json(reply.header('connection', 'close'), 503, { status: 'stopping' });
      const status =
        typeof (error as { statusCode?: unknown }).statusCode === 'number'
          ? (error as { statusCode: number }).statusCode
          : 500;
      return json(reply, status >= 400 ? status : 500, { status: 'error' });
    });
    scope.get('/healthz', async (_request, reply) => {
      const failing = readiness.liveness();
      return failing === null
        ? json(reply, 200, { status: 'ok' })
        : json(reply, 503, { status: 'failing', detail: failing });
    });
    scope.get('/readyz', async (_request, reply) => {
      const report = await readiness.report();
      return json(reply, report.ready ? 200 : 503, {
        status: report.ready ? 'ready' : 'unready',
        checks: report.checks,
      });
    });
  };
}

/** The probes on the serve port, at the root beside the API. */
export function healthSurface(readiness: Readiness): RootSurface {
  return { paths: healthPaths, plugin: healthPlugin(readiness) };
}
