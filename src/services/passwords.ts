/**
 * Panel passwords, hashed with scrypt (node:crypto). N = 2^15, r = 8, p = 1: 32 MiB and
 * about 50 to 100 ms per hash on a server core, the memory-hard setting OWASP lists for
 * scrypt. The parameters are stored with each hash, so raising them later leaves existing
 * passwords readable.
 *
 * Test runs only: `useScryptCostForTestsOnly` lowers N for the hashes a process makes after
 * it (docs/decisions.md, "Tests"). No file of src/ calls it, and no option or environment
 * variable reaches it; test/helpers/test-costs.ts, preloaded by scripts/run-tests.mjs, does.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { ScryptOptions } from 'node:crypto';

export const scryptParams = { N: 2 ** 15, r: 8, p: 1 } as const;
const keyLength = 32;
let cost: { N: number; r: number; p: number } = scryptParams;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash`, salt and hash base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

function unusable(params: { N: number; r: number; p: number }): string {
  return `scrypt$${params.N}$${params.r}$${params.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(keyLength).toString('base64url')}`;
}

/** A hash no password matches, checked when the email is unknown so that timing does not tell. */
export let unusableHash = unusable(scryptParams);

/** Test runs only (see the top of this file): hashes made from now on in this process use this N. */
export function useScryptCostForTestsOnly(N: number): void {
  cost = { ...scryptParams, N };
  unusableHash = unusable(cost);
}

export const passwordRules = { min: 10, max: 200 } as const;

export function passwordProblem(password: string): 'too-short' | 'too-long' | null {
  if (password.length < passwordRules.min) return 'too-short';
  if (password.length > passwordRules.max) return 'too-long';
  return null;
}
