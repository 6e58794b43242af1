import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import {
  containsCodeToken,
  fillOtpText,
  otpCode,
  otpDigits,
  otpTemplate,
  type OtpDigits,
  type RandomInt,
} from '../../src/domain/otp.js';

/** mulberry32: a small seeded generator, so that the distribution test is deterministic. */
function seededRandomInt(seed: number): RandomInt {
  let a = seed >>> 0;
  return (min, max) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return min + Math.floor(unit * (max - min));
  };
}

describe('otpCode', () => {
  const bounds: Array<[OtpDigits, number, number]> = [
    [4, 1000, 9999],
    [5, 10000, 99999],
    [6, 100000, 999999],
  ];
  for (const [digits, lowest, highest] of bounds) {
    it(`draws ${digits} digits from ${lowest}..${highest}`, () => {
      const calls: Array<[number, number]> = [];
      const record: RandomInt = (min, max) => {
        calls.push([min, max]);
        return min;
      };
      assert.equal(otpCode(digits, record), lowest);
      assert.deepEqual(calls, [[lowest, highest + 1]]);
      assert.equal(
        otpCode(digits, (_min, max) => max - 1),
        highest,
      );
    });
  }

  it('spreads codes evenly over the first digit (seeded, chi-square with 8 degrees of freedom)', () => {
    const draws = 20_000;
    const next = seededRandomInt(20260131);
    const firstDigits = new Array<number>(10).fill(0);
    for (let i = 0; i < draws; i++) {
      const code = otpCode(4, next);
      assert.ok(code >= 1000 && code <= 9999);
      firstDigits[Math.floor(code / 1000)] = (firstDigits[Math.floor(code / 1000)] ?? 0) + 1;
    }
    assert.equal(firstDigits[0], 0);
    const expected = draws / 9;
    const chiSquare = firstDigits.slice(1).reduce((sum, seen) => sum + (seen - expected) ** 2 / expected, 0);
    // 26.1 is the 0.001 critical value for 8 degrees of freedom.
    assert.ok(chiSquare < 26.1, `chi-square ${chiSquare}`);
  });

  it('gives codes of the right length with no leading zero from crypto.randomInt', () => {
    for (const digits of [4, 5, 6] as const) {
      for (let i = 0; i < 2000; i++) {
        const text = String(otpCode(digits, randomInt));
        assert.equal(text.length, digits);
        assert.notEqual(text[0], '0');
      }
    }
  });
});

describe('otpDigits', () => {
  const cases: Array<[unknown, OtpDigits]> = [
    [4, 4],
    [5, 5],
    [6, 6],
    [undefined, 4],
    [null, 4],
    [3, 4],
    [7, 4],
    [0, 4],
    [5.5, 4],
    ['5', 5],
    [' 6 ', 6],
    ['7', 4],
    ['56', 4],
    ['six', 4],
  ];
  for (const [value, digits] of cases) {
    it(`${JSON.stringify(value) ?? 'undefined'} -> ${digits}`, () => assert.equal(otpDigits(value), digits));
  }
});

describe('otpTemplate', () => {
  const cases: Array<[0 | 1 | 2, string, string]> = [
    [0, 'ACME', 'Your activation code is:4821 ACME'],
    [1, 'ACME', 'Aktivasyon kodunuz:4821 ACME'],
    [2, 'ACME', 'رمز التفعيل الخاص بك:4821 ACME'],
    [0, '', 'Your activation code is:4821'],
    [0, '   ', 'Your activation code is:4821'],
    [1, '', 'Aktivasyon kodunuz:4821'],
    [0, ' ACME ', 'Your activation code is:4821 ACME'],
  ];
  for (const [lang, brand, text] of cases) {
    it(`lang ${lang}, brand ${JSON.stringify(brand)}`, () => assert.equal(otpTemplate(lang, 4821, brand), text));
  }
});

describe('TS-CODE', () => {
  const contains: Array<[string, boolean]> = [
    ['Your code: TS-CODE', true],
    ['TS-CODETS-CODE', true],
    ['Your code: ts-code', false],
    ['Your code: Ts-Code', false],
    ['Your code: TS-COD', false],
    ['', false],
  ];
  for (const [text, expected] of contains) {
    it(`containsCodeToken(${JSON.stringify(text)}) -> ${expected}`, () =>
      assert.equal(containsCodeToken(text), expected));
  }

  const filled: Array<[string, string]> = [
    ['Code: TS-CODE', 'Code: 123456'],
    ['TS-CODE and again TS-CODE', '123456 and again 123456'],
    ['Code:TS-LTS-CODETS-LBye', 'Code:\n123456\nBye'],
    ['ts-code stays', 'ts-code stays'],
  ];
  for (const [text, expected] of filled) {
    it(`fillOtpText(${JSON.stringify(text)})`, () => assert.equal(fillOtpText(text, 123456), expected));
  }
});
