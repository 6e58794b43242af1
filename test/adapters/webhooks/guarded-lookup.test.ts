import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { guardedLookup, RefusedDestinationError } from '../../../src/adapters/webhooks/guarded-lookup.js';
import type { Resolver } from '../../../src/adapters/webhooks/guarded-lookup.js';

interface Answer {
  err: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family?: number;
}

const fixed =
  (addresses: LookupAddress[]): Resolver =>
  async () =>
    addresses;

function lookup(resolver: Resolver, options: LookupOptions): Promise<Answer> {
  return new Promise((resolve) =>
    guardedLookup(resolver)('hooks.example.test', options, (err, address, family) => resolve({ err, address, family })),
  );
}

const publicV4 = { address: '93.184.216.34', family: 4 };
const publicV6 = { address: '2606:2800:220:1::1', family: 6 };
const loopback = { address: '127.0.0.1', family: 4 };

describe('guardedLookup', () => {
  it('hands net only the allowed addresses in the all form', async () => {
    const answer = await lookup(fixed([loopback, publicV4, { address: 'fd00::1', family: 6 }, publicV6]), {
      all: true,
    });
    assert.equal(answer.err, null);
    assert.deepEqual(answer.address, [publicV4, publicV6]);
  });

  it('answers the single form with the first allowed address and its family', async () => {
    const answer = await lookup(fixed([loopback, publicV6]), {});
    assert.deepEqual(answer, { err: null, address: publicV6.address, family: 6 });
  });

  it('fails with a refused-destination error when every address is refused', async () => {
    const answer = await lookup(fixed([{ address: '169.254.169.254', family: 4 }, loopback]), { all: true });
    assert.ok(answer.err instanceof RefusedDestinationError);
    assert.equal(answer.err.message, 'refused destination: hooks.example.test is 169.254.169.254 (linkLocal)');
    assert.equal(answer.err.code, 'EREFUSEDDEST');
  });

  it('passes resolver failures and empty answers on as errors', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example.test'), { code: 'ENOTFOUND' });
    const failed = await lookup(async () => Promise.reject(notFound), { all: true });
    assert.equal(failed.err, notFound);
    const empty = await lookup(fixed([]), {});
    assert.equal(empty.err?.code, 'ENOTFOUND');
  });

  it('passes the requested family and hints to the resolver', async () => {
    let seen: unknown = null;
    await lookup(
      async (_host, options) => {
        seen = options;
        return [publicV4];
      },
      { family: 4, hints: 32, all: true },
    );
    assert.deepEqual(seen, { family: 4, hints: 32 });
  });
});
