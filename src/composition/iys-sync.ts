/**
 * The İYS sync of `serve` (jobs/iys-sync.ts), run from the dispatch thread: its İYS client
 * per account (adapters/iys/iys-client.ts), whose password is read when a token is needed:
 * opened from its sealed form with the key in --secret-key-file (default secret.key in
 * --data), or read from the file `admin iys configure --password-file` named.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { IysSettings } from '../ports/consent-store.js';
import { IysUnavailable } from '../ports/iys-api.js';
import { IysSync } from '../jobs/iys-sync.js';
import { IysClient } from '../adapters/iys/iys-client.js';
import { openSecret } from '../util/secret-box.js';
import type { AppContainer } from './container.js';

export type IysSyncConfig = Pick<Config, 'iysSyncMs' | 'iysRetryMaxMs' | 'iysTimeoutMs' | 'secretKeyFile' | 'data'>;

/** The key file the sealed İYS passwords are opened with. */
export function secretKeyFileOf(config: Pick<Config, 'secretKeyFile' | 'data'>): string {
  return config.secretKeyFile !== '' ? config.secretKeyFile : resolve(config.data, 'secret.key');
}

/** The account's İYS password, as its settings keep it; IysUnavailable (without the secret) when it cannot be read. */
function passwordOf(settings: IysSettings, keyFile: string): string {
  const kept = settings.passwordSecret;
  if (kept === null) throw new IysUnavailable('no İYS password is set (haberci admin iys configure --password)');
  try {
    if (kept.startsWith('file:')) return readFileSync(kept.slice('file:'.length), 'utf8').trim();
    if (kept.startsWith('sealed:')) {
      const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
      return openSecret(key, kept.slice('sealed:'.length));
    }
  } catch {
    // The cause may quote the file; the message says which kind of secret failed, nothing more.
  }
  throw new IysUnavailable(
    kept.startsWith('file:')
      ? 'the İYS password file cannot be read'
      : 'the İYS password cannot be opened (is --secret-key-file the key it was sealed with?)',
  );
}

export function startIysSync(container: AppContainer, config: IysSyncConfig, logger: Logger): IysSync {
  const keyFile = secretKeyFileOf(config);
  const sync = new IysSync(
    container.store.consents,
    container.clock,
    logger,
    { everyMs: config.iysSyncMs, retryMaxMs: config.iysRetryMaxMs },
    (settings) =>
      new IysClient({
        url: settings.url ?? '',
        iysCode: settings.iysCode,
        brandCode: settings.brandCode,
        username: settings.username ?? '',
        password: () => passwordOf(settings, keyFile),
        timeoutMs: config.iysTimeoutMs,
      }),
  );
  sync.start();
  return sync;
}
