/** IP allowlist matching, from tables: IPv4 and IPv6, single addresses and CIDR ranges. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  effectiveAllowlist,
  invalidAllowlistEntries,
  isAllowed,
  splitAllowlist,
} from '../../src/domain/ip-allowlist.js';

describe('ip-allowlist', () => {
  describe('isAllowed', () => {
    const table: [string[], string, boolean][] = [
      [[], '203.0.113.5', true],
      [[], 'not an address', true],
      [['203.0.113.5'], '203.0.113.5', true],
      [['203.0.113.5'], '203.0.113.6', false],
      [['203.0.113.0/24'], '203.0.113.255', true],
      [['203.0.113.0/24'], '203.0.114.0', false],
      [['0.0.0.0/0'], '8.8.8.8', true],
      [['10.0.0.0/8'], '::ffff:10.9.9.9', true],
      [['10.0.0.0/8'], '::ffff:11.9.9.9', false],
      [['::ffff:10.0.0.0/104'], '10.1.2.3', true],
      [['::ffff:10.0.0.0/104'], '11.1.2.3', false],
      [['::ffff:10.1.2.3'], '10.1.2.3', true],
      [['2001:db8::1'], '2001:db8::1', true],
      [['2001:db8::1'], '2001:0db8:0:0:0:0:0:1', true],
      [['2001:db8::1'], '2001:db8::2', false],
      [['2001:db8::/32'], '2001:db8:abcd::1', true],
      [['2001:db8::/32'], '2001:db9::1', false],
      [['::/0'], '2001:db8::1', true],
      [['::/0'], '192.0.2.1', false],
      [['2001:db8::/32'], '192.0.2.1', false],
      [['192.0.2.0/24'], '2001:db8::1', false],
      [['192.0.2.1'], 'not an address', false],
      [['192.0.2.1'], '', false],
      [['bogus', '192.0.2.1'], '192.0.2.1', true],
      [['bogus'], '192.0.2.1', false],
      [[' 192.0.2.1 '], '192.0.2.1', true],
      [['192.0.2.0/24', '2001:db8::/32'], '2001:db8::7', true],
    ];
    for (const [list, address, expected] of table) {
      it(`${JSON.stringify(list)} ${expected ? 'allows' : 'denies'} ${JSON.stringify(address)}`, () => {
        assert.equal(isAllowed(list, address), expected);
      });
    }
  });

  describe('invalidAllowlistEntries', () => {
    it('names the entries that are neither an address nor a CIDR range', () => {
      assert.deepEqual(invalidAllowlistEntries(['10.0.0.0/8', '2001:db8::/32', '192.0.2.1', '::1']), []);
      assert.deepEqual(
        invalidAllowlistEntries([
          '10.0.0.0/33',
          'example.com',
          '300.1.1.1',
          '10.0.0.1',
          '2001:db8::/129',
          '10.0.0.0/x',
        ]),
        ['10.0.0.0/33', 'example.com', '300.1.1.1', '2001:db8::/129', '10.0.0.0/x'],
      );
    });
  });

  describe('splitAllowlist', () => {
    it('splits on commas and drops blanks and spaces', () => {
      assert.deepEqual(splitAllowlist('10.0.0.0/8, 192.0.2.1,,2001:db8::/32 '), [
        '10.0.0.0/8',
        '192.0.2.1',
        '2001:db8::/32',
      ]);
      assert.deepEqual(splitAllowlist(''), []);
      assert.deepEqual(splitAllowlist(' , '), []);
    });
  });

  describe('effectiveAllowlist', () => {
    it("uses the key's list alone when it has one, otherwise the account's", () => {
      assert.deepEqual(effectiveAllowlist(['192.0.2.1'], ['10.0.0.0/8']), ['192.0.2.1']);
      assert.deepEqual(effectiveAllowlist([], ['10.0.0.0/8']), ['10.0.0.0/8']);
      assert.deepEqual(effectiveAllowlist([], []), []);
    });
  });
});
