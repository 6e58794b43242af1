/**
 * Every script and style the panel loads, served from the package itself (no CDN): the
 * panel's own files in src/panel/assets/ and htmx and uPlot from node_modules. Read once
 * at start-up. A new asset is one more line in `files`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);
const own = fileURLToPath(new URL('../../../src/panel/assets/', import.meta.url));
const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

const files: Record<string, { path: () => string; type: string }> = {
  'panel.css': { path: () => join(own, 'panel.css'), type: 'text/css; charset=utf-8' },
  'panel.js': { path: () => join(own, 'panel.js'), type: 'text/javascript; charset=utf-8' },
  'htmx.min.js': {
    path: () => join(packageDir('htmx.org'), 'dist', 'htmx.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'uPlot.iife.min.js': {
    path: () => join(packageDir('uplot'), 'dist', 'uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'uPlot.min.css': { path: () => join(packageDir('uplot'), 'dist', 'uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

export function assetPath(name: keyof typeof files & string): string {
  return `/panel/assets/${name}`;
}

export function assetRoutes(app: FastifyInstance): void {
  const loaded = new Map(
    Object.entries(files).map(([name, f]) => [name, { body: readFileSync(f.path()), type: f.type }]),
  );
  app.get<{ Params: { name: string } }>(
    '/assets/:name',
    { config: { panelAccess: 'public' } },
    async (request, reply) => {
      const asset = loaded.get(request.params.name);
      if (!asset) return reply.callNotFound();
      return reply.type(asset.type).header('cache-control', 'public, max-age=300').send(asset.body);
    },
  );
}
