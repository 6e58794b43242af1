/**
 * Every script and style the panel loads, served from the package itself (no CDN): the
 * panel's own files in src/panel/assets/, htmx and uPlot from node_modules, and the data
 * pages' scripts (src/panel/data-assets/) with the domain modules the browser runs, served
 * from the compiled output of the same source the server runs (dist/src/domain/). Only the
 * files listed here; read once at start-up. A new asset is one more line in a list.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);
const own = fileURLToPath(new URL('../../../src/panel/assets/', import.meta.url));
const dataOwn = fileURLToPath(new URL('../../../src/panel/data-assets/', import.meta.url));
const domain = fileURLToPath(new URL('../domain/', import.meta.url));
/** sms-counter.js and what it imports, transitively: the send page's live counter. */
export const browserDomainModules = [
  'sms-counter.js',
  'sms-count.js',
  'gsm-alphabet.js',
  'labels.js',
  'recipients.js',
  'result.js',
];
const script = 'text/javascript; charset=utf-8';
const css = 'text/css; charset=utf-8';
const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

const files: Record<string, { path: () => string; type: string }> = {
  'panel.css': { path: () => join(own, 'panel.css'), type: css },
  'panel.js': { path: () => join(own, 'panel.js'), type: script },
  'htmx.min.js': {
    path: () => join(packageDir('htmx.org'), 'dist', 'htmx.min.js'),
    type: script,
  },
  'uPlot.iife.min.js': {
    path: () => join(packageDir('uplot'), 'dist', 'uPlot.iife.min.js'),
    type: script,
  },
  'uPlot.min.css': { path: () => join(packageDir('uplot'), 'dist', 'uPlot.min.css'), type: css },
};

export function assetPath(name: keyof typeof files & string): string {
  return `/panel/assets/${name}`;
}

export function assetRoutes(app: FastifyInstance): void {
  const loaded = new Map(
    Object.entries(files).map(([name, f]) => [name, { body: readFileSync(f.path()), type: f.type }]),
  );
  loaded.set('data/data-pages.js', { body: readFileSync(join(dataOwn, 'data-pages.js')), type: script });
  loaded.set('data/data-pages.css', { body: readFileSync(join(dataOwn, 'data-pages.css')), type: css });
  for (const name of browserDomainModules)
    loaded.set(`data/domain/${name}`, { body: readFileSync(join(domain, name)), type: script });
  app.get<{ Params: { '*': string } }>('/assets/*', { config: { panelAccess: 'public' } }, async (request, reply) => {
    const asset = loaded.get(request.params['*']);
    if (!asset) return reply.callNotFound();
    return reply.type(asset.type).header('cache-control', 'public, max-age=300').send(asset.body);
  });
}
