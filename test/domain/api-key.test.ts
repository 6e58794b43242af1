/** The key state machine of the spec (States and transitions: API key states). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyKeyAction, keepOldKeyMs, keyStateAt } from '../../src/domain/api-key.js';
import type { KeyAction, KeyLifecycle, KeyState, StoredKeyState } from '../../src/domain/api-key.js';

const noon = Date.UTC(2026, 2, 15, 9, 0, 0); // 2026-03-15 12:00 Istanbul

function key(overrides: Partial<KeyLifecycle> = {}): KeyLifecycle {
  return { state: 'Active', expiresOn: null, validUntil: null, ...overrides };
}

describe('api-key', () => {
  describe('keyStateAt', () => {
    it('stored states are the states when nothing else applies', () => {
      assert.equal(keyStateAt(key(), noon), 'Active');
      assert.equal(keyStateAt(key({ state: 'Paused' }), noon), 'Paused');
      assert.equal(keyStateAt(key({ state: 'Revoked' }), noon), 'Revoked');
    });

    it('an expiry date keeps the key valid until the end of that Istanbul day', () => {
      const k = key({ expiresOn: '2026-03-15' });
      assert.equal(keyStateAt(k, noon), 'Active');
      assert.equal(keyStateAt(k, Date.UTC(2026, 2, 15, 20, 59, 59, 999)), 'Active');
      assert.equal(keyStateAt(k, Date.UTC(2026, 2, 15, 21, 0, 0)), 'Expired');
      assert.equal(keyStateAt(k, Date.UTC(2027, 0, 1)), 'Expired');
    });

    it('an expiry at a month end and a year end', () => {
      assert.equal(keyStateAt(key({ expiresOn: '2026-03-31' }), Date.UTC(2026, 2, 31, 20, 59, 59)), 'Active');
      assert.equal(keyStateAt(key({ expiresOn: '2026-03-31' }), Date.UTC(2026, 2, 31, 21, 0, 0)), 'Expired');
      assert.equal(keyStateAt(key({ expiresOn: '2026-12-31' }), Date.UTC(2026, 11, 31, 21, 0, 0)), 'Expired');
    });

    it('an expiry date in the future leaves the key Active', () => {
      assert.equal(keyStateAt(key({ expiresOn: '2026-03-16' }), noon), 'Active');
    });

    it('a paused key past its expiry is Expired; a revoked one stays Revoked', () => {
      assert.equal(keyStateAt(key({ state: 'Paused', expiresOn: '2026-03-14' }), noon), 'Expired');
      assert.equal(keyStateAt(key({ state: 'Revoked', expiresOn: '2026-03-14' }), noon), 'Revoked');
    });

    it('a rotated key kept with keep-old is valid until validUntil, then rejected', () => {
      const k = key({ validUntil: noon + keepOldKeyMs });
      assert.equal(keyStateAt(k, noon), 'Active');
      assert.equal(keyStateAt(k, noon + keepOldKeyMs - 1), 'Active');
      assert.equal(keyStateAt(k, noon + keepOldKeyMs), 'Revoked');
    });

    it('keep-old is 24 hours', () => {
      assert.equal(keepOldKeyMs, 24 * 60 * 60 * 1000);
    });

    it('validUntil before the expiry day end wins, and the reverse', () => {
      assert.equal(keyStateAt(key({ expiresOn: '2026-03-20', validUntil: noon + 1 }), noon + 1), 'Revoked');
      assert.equal(
        keyStateAt(key({ expiresOn: '2026-03-15', validUntil: noon + 10 * keepOldKeyMs }), Date.UTC(2026, 2, 15, 21)),
        'Expired',
      );
    });
  });

  describe('applyKeyAction', () => {
    const table: [KeyState, KeyAction, StoredKeyState | 'refused'][] = [
      ['Active', 'pause', 'Paused'],
      ['Active', 'reactivate', 'refused'],
      ['Active', 'revoke', 'Revoked'],
      ['Paused', 'pause', 'refused'],
      ['Paused', 'reactivate', 'Active'],
      ['Paused', 'revoke', 'Revoked'],
      ['Revoked', 'pause', 'refused'],
      ['Revoked', 'reactivate', 'refused'],
      ['Revoked', 'revoke', 'refused'],
      ['Expired', 'pause', 'refused'],
      ['Expired', 'reactivate', 'refused'],
      ['Expired', 'revoke', 'Revoked'],
    ];
    for (const [from, action, expected] of table) {
      it(`${from} + ${action} -> ${expected}`, () => {
        const next = applyKeyAction(from, action);
        if (expected === 'refused') {
          assert.equal(typeof next, 'object');
          assert.equal(typeof (next as { refused: string }).refused, 'string');
          assert.notEqual((next as { refused: string }).refused, '');
        } else {
          assert.equal(next, expected);
        }
      });
    }

    it('says why a revoked key cannot be restored', () => {
      assert.deepEqual(applyKeyAction('Revoked', 'reactivate'), { refused: 'a revoked key cannot be changed' });
    });
  });
});
