import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ShortLinkService } from '../services/short-link-service.js';
import type { PrefixedSurface } from './app.js';

const notFoundPage =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head>' +
  '<body><h1>Not found</h1><p>This link does not exist or has expired.</p></body></html>';

function page(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(body);
}

/**
 * The short links of `serve --short-link-base` (docs/api.md, "Short links"): `GET
 * <path>/<token>` answers 302 to the URL the customer sent and records the click; any other
 * path under the prefix, and a token that is unknown or whose send retention removed, a plain
 * 404 page. The target is only ever a stored URL: nothing of the request is redirected to.
 */
export function shortLinkSurface(prefix: `/${string}`, links: ShortLinkService): PrefixedSurface {
  return {
    prefix,
    plugin: async (scope: FastifyInstance): Promise<void> => {
      scope.setNotFoundHandler(async (_request, reply) => page(reply, 404, notFoundPage));
      scope.setErrorHandler(async (_error, _request, reply) =>
        page(reply, 500, '<!doctype html><title>Error</title><p>Try again later.</p>'),
      );
      scope.get<{ Params: { token: string } }>('/:token', async (request, reply) => {
        const url = await links.follow(request.params.token);
        if (url === null) return page(reply, 404, notFoundPage);
        return reply
          .code(302)
          .header('location', url)
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .send();
      });
    },
  };
}
