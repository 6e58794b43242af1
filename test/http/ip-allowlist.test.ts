/**
 * IP allowlists through HTTP (spec, Authentication rule 4): single addresses and CIDR
 * ranges in IPv4 and IPv6, the key's list used alone over the account's, and the client
 * address taken from the socket unless the request came through a trusted proxy.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { valueOf } from '../helpers/results.js';

/** The code /balance/ answers with from an address, and the address /auth/post/check/ saw. */
async function codeFrom(h: Harness, apiKey: string, ip: string, headers: Record<string, string> = {}): Promise<string> {
  const answer = await h.post('/balance/', { api_key: apiKey }, { ip, headers });
  if (answer.body.result_code === 'TS-1066') assert.equal(answer.status, 403);
  return String(answer.body.result_code);
}

async function seenAs(h: Harness, apiKey: string, ip: string, headers: Record<string, string> = {}): Promise<unknown> {
  const answer = await h.post('/auth/post/check/', { api_key: apiKey }, { ip, headers });
  assert.equal(answer.body.result_code, 'TS-1000', answer.raw);
  return (answer.body.audit_info as Record<string, unknown>).request_ip;
}

describe('IP allowlist', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());

  it('an IPv4 single address allows only that address', async () => {
    const p = await h.provision({ key: { ipAllow: ['203.0.113.5'] } });
    assert.equal(await codeFrom(h, p.apiKey, '203.0.113.5'), 'TS-1040');
    assert.equal(await codeFrom(h, p.apiKey, '203.0.113.4'), 'TS-1066');
    assert.equal(await codeFrom(h, p.apiKey, '203.0.113.50'), 'TS-1066');
    assert.equal(await codeFrom(h, p.apiKey, '2001:db8::5'), 'TS-1066');
  });

  it('an IPv4 CIDR range allows its addresses, edges included', async () => {
    const p = await h.provision({ key: { ipAllow: ['198.51.100.0/24'] } });
    assert.equal(await codeFrom(h, p.apiKey, '198.51.100.0'), 'TS-1040');
    assert.equal(await codeFrom(h, p.apiKey, '198.51.100.255'), 'TS-1040');
    assert.equal(await codeFrom(h, p.apiKey, '198.51.101.0'), 'TS-1066');
    assert.equal(await codeFrom(h, p.apiKey, '198.51.99.255'), 'TS-1066');
  });

  it('several entries: one matching entry is enough', async () => {
    const p = await h.provision({ key: { ipAllow: ['192.0.2.1', '10.0.0.0/8', '2001:db8::/32'] } });
    assert.equal(await codeFrom(h, p.apiKey, '192.0.2.1'), 'TS-1040');
    assert.equal(await codeFrom(h, p.apiKey, '10.200.3.4'), 'TS-1040');
    assert.equal(await codeFrom(h, p.apiKey, '2001:db8:1::1'), 'TS-1040');
    assert.equal(await codeFrom(h, p.apiKey, '192.0.2.2'), 'TS-1066');
  });

  it('an IPv6 single address, whatever its written form', async () => {
    const p = await h.provision({ key: { ipAllow: ['2001:db8::1'] } });
    assert.equal(await codeFrom(h, p.apiKey, '2001:db8::1'), 'TS-1040');
    assert.equal(await codeFrom(h, p.apiKey, '2001:0db8:0000:0000:0000:0000:0000:0001'), 'TS-1040');
    assert.equal(await codeFrom(h, p.apiKey, '2001:db8::2'), 'TS-1066');
  });

  it('an IPv6 CIDR range (2001:db8::/32)', async () => {
    const p = await h.provision({ key: { ipAllow: ['2001:db8::/32'] } });
    assert.equal(await codeFrom(h, p.apiKey, '2001:db8:ffff:1::9'), 'TS-1040');
    assert.equal(await codeFrom(h, p.apiKey, '2001:db9::1'), 'TS-1066');
    assert.equal(await codeFrom(h, p.apiKey, '203.0.113.5'), 'TS-1066');
  });

  it('an IPv4-mapped IPv6 socket address is matched against an IPv4 list', async () => {
    const single = await h.provision({ key: { ipAllow: ['10.1.2.3'] } });
    assert.equal(await codeFrom(h, single.apiKey, '::ffff:10.1.2.3'), 'TS-1040');
    assert.equal(await codeFrom(h, single.apiKey, '::ffff:10.1.2.4'), 'TS-1066');
    const range = await h.provision({ key: { ipAllow: ['10.0.0.0/8'] } });
    assert.equal(await codeFrom(h, range.apiKey, '::ffff:10.1.2.3'), 'TS-1040');
    assert.equal(await codeFrom(h, range.apiKey, '::ffff:11.1.2.3'), 'TS-1066');
  });

  it('an IPv4-mapped list entry matches a plain IPv4 socket address', async () => {
    const p = await h.provision({ key: { ipAllow: ['::ffff:10.1.2.3'] } });
    assert.equal(await codeFrom(h, p.apiKey, '10.1.2.3'), 'TS-1040');
    assert.equal(await codeFrom(h, p.apiKey, '10.1.2.4'), 'TS-1066');
  });

  it('the key list is used alone: account allows, key denies -> TS-1066', async () => {
    const p = await h.provision({ account: { ipAllow: ['192.0.2.0/24'] }, key: { ipAllow: ['198.51.100.7'] } });
    assert.equal(await codeFrom(h, p.apiKey, '192.0.2.10'), 'TS-1066');
    assert.equal(await codeFrom(h, p.apiKey, '198.51.100.7'), 'TS-1040');
  });

  it('the key list is used alone: account denies, key allows -> allowed', async () => {
    const p = await h.provision({ account: { ipAllow: ['192.0.2.0/24'] }, key: { ipAllow: ['198.51.100.0/24'] } });
    assert.equal(await codeFrom(h, p.apiKey, '198.51.100.99'), 'TS-1040');
  });

  it('the account list is used when the key has none', async () => {
    const p = await h.provision({ account: { ipAllow: ['192.0.2.0/24'] } });
    assert.equal(await codeFrom(h, p.apiKey, '192.0.2.10'), 'TS-1040');
    assert.equal(await codeFrom(h, p.apiKey, '198.51.100.7'), 'TS-1066');
  });

  it('no list anywhere allows every address', async () => {
    const p = await h.provision();
    for (const ip of ['127.0.0.1', '192.0.2.1', '2001:db8::1', '::1', '::ffff:8.8.8.8']) {
      assert.equal(await codeFrom(h, p.apiKey, ip), 'TS-1040', ip);
    }
  });

  it('a list changed by the provider applies to the next request', async () => {
    const p = await h.provision({ key: { ipAllow: ['192.0.2.1'] } });
    assert.equal(await codeFrom(h, p.apiKey, '192.0.2.2'), 'TS-1066');
    await valueOf(h.runtime.admin.updateKey(p.keyId, { ipAllow: ['192.0.2.2'] }));
    assert.equal(await codeFrom(h, p.apiKey, '192.0.2.2'), 'TS-1040');
    await valueOf(h.runtime.admin.updateKey(p.keyId, { ipAllow: [] }));
    assert.equal(await codeFrom(h, p.apiKey, '203.0.113.1'), 'TS-1040');
  });

  describe('X-Forwarded-For', () => {
    it('is ignored by default: a request from 127.0.0.1 claiming 10.0.0.1 is judged as 127.0.0.1', async () => {
      const p = await h.provision({ key: { ipAllow: ['10.0.0.1'] } });
      assert.equal(await codeFrom(h, p.apiKey, '127.0.0.1', { 'x-forwarded-for': '10.0.0.1' }), 'TS-1066');
      const open = await h.provision({ key: { ipAllow: ['127.0.0.1'] } });
      assert.equal(await seenAs(h, open.apiKey, '127.0.0.1', { 'x-forwarded-for': '10.0.0.1' }), '127.0.0.1');
    });

    it('is ignored by default in its other spellings too', async () => {
      const p = await h.provision({ key: { ipAllow: ['127.0.0.1'] } });
      assert.equal(
        await seenAs(h, p.apiKey, '127.0.0.1', { forwarded: 'for=10.0.0.1', 'x-real-ip': '10.0.0.1' }),
        '127.0.0.1',
      );
    });

    describe('with trustedProxies', () => {
      let proxied: Harness;
      before(async () => {
        proxied = await createHarness(undefined, { trustedProxies: ['127.0.0.1', '192.168.0.0/16'] });
      });
      after(async () => proxied.close());

      it('is believed from a trusted proxy, and request_ip shows the resolved client', async () => {
        const p = await proxied.provision({ key: { ipAllow: ['10.0.0.1'] } });
        assert.equal(await codeFrom(proxied, p.apiKey, '127.0.0.1', { 'x-forwarded-for': '10.0.0.1' }), 'TS-1040');
        assert.equal(await seenAs(proxied, p.apiKey, '127.0.0.1', { 'x-forwarded-for': '10.0.0.1' }), '10.0.0.1');
        assert.equal(await seenAs(proxied, p.apiKey, '192.168.4.4', { 'x-forwarded-for': '10.0.0.1' }), '10.0.0.1');
      });

      it('is not believed from an address that is not a trusted proxy', async () => {
        const p = await proxied.provision({ key: { ipAllow: ['10.0.0.1'] } });
        assert.equal(await codeFrom(proxied, p.apiKey, '203.0.113.9', { 'x-forwarded-for': '10.0.0.1' }), 'TS-1066');
        const open = await proxied.provision();
        assert.equal(
          await seenAs(proxied, open.apiKey, '203.0.113.9', { 'x-forwarded-for': '10.0.0.1' }),
          '203.0.113.9',
        );
      });

      it('an address the client prepended to the chain is not believed', async () => {
        // The client sends "10.0.0.1"; its real address 203.0.113.9 is appended by the proxy.
        const p = await proxied.provision({ key: { ipAllow: ['10.0.0.1'] } });
        const headers = { 'x-forwarded-for': '10.0.0.1, 203.0.113.9' };
        assert.equal(await codeFrom(proxied, p.apiKey, '127.0.0.1', headers), 'TS-1066');
        const open = await proxied.provision();
        assert.equal(await seenAs(proxied, open.apiKey, '127.0.0.1', headers), '203.0.113.9');
      });

      it('walks back through a chain of trusted proxies to the client', async () => {
        const open = await proxied.provision();
        assert.equal(
          await seenAs(proxied, open.apiKey, '127.0.0.1', { 'x-forwarded-for': '198.51.100.8, 192.168.1.1' }),
          '198.51.100.8',
        );
      });

      it('without the header the socket address is the client', async () => {
        const open = await proxied.provision();
        assert.equal(await seenAs(proxied, open.apiKey, '127.0.0.1'), '127.0.0.1');
      });
    });
  });
});
