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
export const browserDomainModules = [
  'sms-counter.js',
  'sms-count.js',
  'gsm-alphabet.js',
  'labels.js',
  'recipients.js',
  'result.js',
];

const script = 'text/javascript; charset=utf-8';

export const dataAssetsArea: PanelArea = {
  name: 'data-assets',
  routes(app) {
    const files = new Map<string, { body: Buffer; type: string }>([
      ['data-pages.js', { body: readFileSync(`${own}data-pages.js`), type: script }],
      ['data-pages.css', { body: readFileSync(`${own}data-pages.css`), type: 'text/css; charset=utf-8' }],
    ]);
    for (const name of browserDomainModules)
      files.set(`domain/${name}`, { body: readFileSync(`${domain}${name}`), type: script });
    app.get<{ Params: { '*': string } }>(
      '/assets/data/*',
      { config: { panelAccess: 'public' } },
      async (request, reply) => {
        const file = files.get(request.params['*']);
        if (!file) return reply.callNotFound();
        return reply.type(file.type).header('cache-control', 'public, max-age=300').send(file.body);
      },
    );
  },
};
