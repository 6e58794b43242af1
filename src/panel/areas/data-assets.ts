/**
 * The data pages' scripts: their own (src/panel/data-assets/) and the domain modules the
 * browser runs, served from the compiled output of the same source the server runs
 * (dist/src/domain/). Only the files listed here; read once at start-up.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PanelArea } from '../context.js';

const own = fileURLToPath(new URL('../../../../src/panel/data-assets/', import.meta.url));
const domain = fileURLToPath(new URL('../../domain/', import.meta.url));
/** sms-counter.js and what it imports, transitively (a test loads each one from this list). */
export const browserDomainModules = ['sms-counter.js', 'sms-count.js', 'gsm-alphabet.js', 'labels.js', 'recipients.js', 'result.js'];

const script = 'text/javascript; charset=utf-8';

export const dataAssetsArea: PanelArea = {
  name: 'data-assets',
  routes(app) {
    const files = new Map<string, Buffer>([['data-pages.js', readFileSync(`${own}data-pages.js`)]]);
    for (const name of browserDomainModules) files.set(`domain/${name}`, readFileSync(`${domain}${name}`));
    app.get<{ Params: { '*': string } }>('/assets/data/*', { config: { panelAccess: 'public' } }, async (request, reply) => {
      const body = files.get(request.params['*']);
      if (!body) return reply.callNotFound();
      return reply.type(script).header('cache-control', 'public, max-age=300').send(body);
    });
  },
};
