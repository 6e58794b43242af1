/**
 * A `lookup` for http.request that hands the socket only addresses the address guard
 * allows. Checking here, at connect time, rather than resolving once before the request,
 * means the address checked is the address connected to: a DNS answer that changes
 * between a check and the connect (DNS rebinding) cannot reach a refused address.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { refusalReason } from './address-guard.js';

export interface ResolveOptions {
  family?: dns.LookupOptions['family'];
  hints?: number;
}

/** Every address a host name resolves to; injectable so tests need no real DNS. */
export type Resolver = (hostname: string, options: ResolveOptions) => Promise<dns.LookupAddress[]>;

export const systemResolver: Resolver = (hostname, options) =>
  dns.promises.lookup(hostname, { family: options.family ?? 0, hints: options.hints, all: true });

export class RefusedDestinationError extends Error {
  readonly code = 'EREFUSEDDEST';
  constructor(destination: string, address: string, reason: string) {
    super(`refused destination: ${destination} is ${address} (${reason})`);
    this.name = 'RefusedDestinationError';
  }
}

type LookupResult = { error: NodeJS.ErrnoException } | { addresses: dns.LookupAddress[] };

async function allowedAddresses(
  resolver: Resolver,
  hostname: string,
  options: dns.LookupOptions,
): Promise<LookupResult> {
  let all: dns.LookupAddress[];
  try {
    all = await resolver(hostname, { family: options.family, hints: options.hints });
  } catch (err) {
    return { error: err instanceof Error ? err : new Error(String(err)) };
  }
  // Refused addresses are dropped rather than failing the host: only what is left is ever
  // handed to connect, which is the property that matters.
  const addresses = all.filter((a) => refusalReason(a.address) === null);
  if (addresses.length > 0) return { addresses };
  const first = all[0];
  if (!first) return { error: Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }) };
  return { error: new RefusedDestinationError(hostname, first.address, refusalReason(first.address) ?? 'refused') };
}

/** Handles both forms net uses: `all: true` (family autoselection, Node 20's default) and single. */
export function guardedLookup(resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    void allowedAddresses(resolver, hostname, options).then((result) => {
      // Called outside the promise chain so a throw inside net stays an uncaught
      // exception, as with dns.lookup, instead of a silently rejected promise.
      process.nextTick(() => {
        if ('error' in result) return callback(result.error, '');
        const [first] = result.addresses;
        if (options.all === true || !first) return callback(null, result.addresses);
        return callback(null, first.address, first.family);
      });
    });
  };
}
