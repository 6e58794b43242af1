import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/** A self-signed certificate for 127.0.0.1, made for this run with openssl: its PEM files, removed after the suite. */
export function selfSigned(): { cert: string; key: string; read(): { cert: Buffer; key: Buffer } } {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-tls-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const made = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
  ]);
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
  after(() => rmSync(dir, { recursive: true, force: true }));
  return { cert, key, read: () => ({ cert: readFileSync(cert), key: readFileSync(key) }) };
}
