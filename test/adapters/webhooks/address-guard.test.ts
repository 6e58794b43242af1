import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isRefusedAddress, refusalReason } from '../../../src/adapters/webhooks/address-guard.js';

const refused: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'linkLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.127.255.255', 'carrierGradeNat'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.10', 'reserved'], // documentation TEST-NET-1
  ['198.51.100.7', 'reserved'], // documentation TEST-NET-2
  ['203.0.113.9', 'reserved'], // documentation TEST-NET-3
  ['198.18.0.1', 'reserved'], // benchmarking
  ['198.19.255.1', 'reserved'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'linkLocal'],
  ['fe80::1%eth0', 'linkLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456::1', 'uniqueLocal'],
  ['ff02::1', 'multicast'],
  ['fec0::1', 'deprecatedSiteLocal'],
  ['2001:db8::1', 'reserved'], // documentation
  ['2001:2::1', 'benchmarking'],
  ['2001::1', 'teredo'],
  ['100::1', 'discard'],
  ['64:ff9b:1::a00:1', 'rfc6052'], // local-use NAT64 prefix
  ['::ffff:127.0.0.1', 'loopback (ipv4Mapped of 127.0.0.1)'],
  ['::ffff:7f00:1', 'loopback (ipv4Mapped of 127.0.0.1)'],
  ['[::ffff:10.0.0.1]', 'private (ipv4Mapped of 10.0.0.1)'],
  ['::ffff:0:a9fe:a9fe', 'linkLocal (rfc6145 of 169.254.169.254)'],
  ['64:ff9b::7f00:1', 'loopback (nat64 of 127.0.0.1)'],
  ['64:ff9b::192.168.0.1', 'private (nat64 of 192.168.0.1)'],
  ['2002:a00:1::1', 'private (6to4 of 10.0.0.1)'],
  ['::7f00:1', 'ipv4Compatible'],
  ['::a00:1', 'ipv4Compatible'],
  ['4000::1', 'notGlobalUnicast'],
  ['localhost', 'notAnAddress'],
  ['', 'notAnAddress'],
];

const allowed = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001::1',
  '::ffff:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
];

describe('address guard', () => {
  it('refuses every special-purpose address, with the range as reason', () => {
    for (const [addr, reason] of refused) {
      assert.equal(refusalReason(addr), reason, addr);
      assert.equal(isRefusedAddress(addr), true, addr);
    }
  });

  it('allows public unicast, including IPv6 forms that carry a public IPv4 address', () => {
    for (const addr of allowed) {
      assert.equal(refusalReason(addr), null, addr);
      assert.equal(isRefusedAddress(addr), false, addr);
    }
  });

  it('judges lenient IPv4 spellings by the address they denote', () => {
    for (const addr of ['127.1', '0x7f.0.0.1', '2130706433']) assert.equal(refusalReason(addr), 'loopback', addr);
  });
});
