import { readFileSync } from 'node:fs';

/**
 * The version in the repository's package.json: this file runs as dist/src/version.js,
 * two folders below it (bin/haberci needs the compiled tree, so the layout is fixed).
 */
export function packageVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const version =
    typeof manifest === 'object' && manifest !== null && 'version' in manifest ? manifest.version : undefined;
  if (typeof version !== 'string') throw new Error('package.json has no version');
  return version;
}
