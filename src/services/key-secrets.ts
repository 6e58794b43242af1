import { createHash, randomBytes } from 'node:crypto';

/**
 * API keys are 256 random bits, so a single SHA-256 is enough to store them: there is no
 * low-entropy secret for a slow hash to protect. Only the hash and a short hint are kept.
 */
export function newApiKey(sandbox: boolean): { key: string; hash: string; hint: string } {
  const key = `${sandbox ? 'hb_test_' : 'hb_live_'}${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), hint: `${key.slice(0, 12)}…` };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
