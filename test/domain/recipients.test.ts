import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  couldBeNumber,
  firstNonNumber,
  isPlausibleNumber,
  isTurkeyNumber,
  normaliseNumber,
  numberFieldTooShort,
  otpMobile,
  quotedEntry,
  sameSubscriber,
  splitRecipients,
  turkishMobile,
} from '../../src/domain/recipients.js';

describe('normaliseNumber', () => {
  const cases: Array<[string, string]> = [
    ['905321234567', '905321234567'],
    ['+90 532 123 45 67', '905321234567'],
    ['+90 (532) 123-45-67', '905321234567'],
    ['0090 532 123 4567', '905321234567'],
    ['0532 123 45 67', '905321234567'],
    ['05321234567', '905321234567'],
    ['5321234567', '905321234567'],
    ['\t0532\t1234567 ', '905321234567'],
    ['\u00a05321234567', '905321234567'],
    ['532123456', '532123456'], // nine digits: not the ten-digit 5 rule
    ['53212345678', '53212345678'], // eleven digits starting 5: kept
    ['0044 7700 900123', '447700900123'],
    ['+1 (202) 555-0100', '12025550100'],
    ['0212 123 45 67', '02121234567'], // landline: not converted, not rejected
    ['abc', 'abc'], // not validated
    ['   ', ''],
    ['', ''],
  ];
  for (const [raw, expected] of cases) {
    it(`${JSON.stringify(raw)} -> ${JSON.stringify(expected)}`, () => {
      assert.equal(normaliseNumber(raw), expected);
    });
  }
});

describe('splitRecipients', () => {
  it('splits on commas, semicolons and every kind of line break', () => {
    const r = splitRecipients('905321111111,905322222222;905323333333\n905324444444\r\n905325555555\r905326666666');
    assert.deepEqual(r.numbers, [
      '905321111111',
      '905322222222',
      '905323333333',
      '905324444444',
      '905325555555',
      '905326666666',
    ]);
    assert.equal(r.rawCount, 6);
  });

  it('drops empty entries and keeps the first-seen order of distinct numbers', () => {
    const r = splitRecipients(' 05321111111 ,, 905322222222;\n\n+90 532 111 11 11;5322222222,');
    assert.deepEqual(r.numbers, ['905321111111', '905322222222']);
    assert.equal(r.rawCount, 4);
  });

  it('keeps wrong numbers: they are accepted and counted', () => {
    assert.deepEqual(splitRecipients('12,abc').numbers, ['12', 'abc']);
  });

  it('gives an empty list for separators only', () => {
    assert.deepEqual(splitRecipients(' ,;\r\n ').numbers, []);
  });
});

describe('numberFieldTooShort', () => {
  const cases: Array<[string, boolean]> = [
    ['123456', true],
    ['1234567', false],
    ['  12345  ', true],
    ['', true],
  ];
  for (const [raw, expected] of cases) {
    it(`${JSON.stringify(raw)} -> ${expected}`, () => assert.equal(numberFieldTooShort(raw), expected));
  }
});

describe('isTurkeyNumber', () => {
  const cases: Array<[string, boolean]> = [
    ['905321234567', true],
    ['902121234567', false],
    ['447700900123', false],
    ['5321234567', false],
  ];
  for (const [n, expected] of cases) {
    it(`${n} -> ${expected}`, () => assert.equal(isTurkeyNumber(n), expected));
  }
});

describe('turkishMobile', () => {
  const cases: Array<[string, string | null]> = [
    ['905321234567', '905321234567'],
    ['+90 532 123 45 67', '905321234567'],
    ['+90 (532) 123-45-67', '905321234567'],
    ['0090 532 123 45 67', '905321234567'],
    ['0532 123 45 67', '905321234567'],
    ['5321234567', '905321234567'],
    ['902121234567', null], // Istanbul landline
    ['0212 123 45 67', null],
    ['2121234567', null],
    ['08501234567', null], // non-geographic 850
    ['447700900123', null], // United Kingdom
    ['0044 7700 900123', null],
    ['90532123456', null], // one digit short
    ['9053212345678', null], // one digit long
    ['532123456', null],
    ['90532123456a', null],
    ['', null],
  ];
  for (const [raw, expected] of cases) {
    it(`${JSON.stringify(raw)} -> ${String(expected)}`, () => assert.equal(turkishMobile(raw), expected));
  }
});

describe('sameSubscriber', () => {
  it('matches the 05 and 905 forms of one number', () => {
    assert.equal(sameSubscriber('905321234567', '05321234567'), true);
    assert.equal(sameSubscriber('905321234567', '5321234567'), true);
  });
  it('tells different numbers apart', () => {
    assert.equal(sameSubscriber('905321234567', '905321234568'), false);
  });
});

describe('otpMobile', () => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'TS-1025'],
    ['', 'TS-1025'],
    ['532123', 'TS-1025'], // 6 characters
    ['  53212  ', 'TS-1025'],
    ['1234567', 'TS-1034'], // 7 characters, 7 digits
    ['1234567890', 'TS-1034'], // 10 digits, not starting 5
    ['90532abc4567', 'TS-1034'],
    ['1234567890123456', 'TS-1034'], // 16 digits
    ['+90 532 12a 45 67', 'TS-1034'],
  ];
  for (const [raw, code] of cases) {
    it(`${JSON.stringify(raw)} -> ${code}`, () => {
      const r = otpMobile(raw);
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.code, code);
    });
  }

  const accepted: Array<[string, string]> = [
    ['05321234567', '905321234567'],
    ['5321234567', '905321234567'],
    ['0090 532 123 45 67', '905321234567'],
    ['+90 (532) 123-45-67', '905321234567'],
    ['0044 7700 900123', '447700900123'],
    ['12345678901', '12345678901'], // 11 digits
    ['123456789012345', '123456789012345'], // 15 digits
  ];
  for (const [raw, number] of accepted) {
    it(`${JSON.stringify(raw)} -> ${number}`, () => assert.deepEqual(otpMobile(raw), { ok: true, value: number }));
  }
});

describe('isPlausibleNumber', () => {
  const cases: Array<[string, boolean]> = [
    ['905321234567', true],
    ['902121234567', true], // landline: a real number, if not a mobile one
    ['447700900123', true],
    ['12025550100', true],
    ['29012345', true], // 8 digits: Saint Helena with country code
    ['2901234', false], // 7 digits
    ['123456789012345', true], // 15 digits, the E.164 maximum
    ['1234567890123456', false],
    ['90532123456', false], // Türkiye, 11 digits
    ['9053212345678', false], // Türkiye, 13 digits
    ['90532abc4567', false],
    ['', false],
  ];
  for (const [n, expected] of cases) {
    it(`${JSON.stringify(n)} -> ${expected}`, () => assert.equal(isPlausibleNumber(n), expected));
  }
});

/** Wrong numbers (digits, any count up to E.164's 15) are numbers; anything else is not. */
describe('couldBeNumber', () => {
  const cases: Array<[string, boolean]> = [
    ['905321234567', true],
    ['12345', true], // a wrong number: accepted and charged
    ['1', true],
    ['123456789012345', true], // 15 digits, the E.164 maximum
    ['1234567890123456', false],
    ['helloworld', false],
    ['90532abc4567', false],
    ['905321234567#', false],
    ['٩٠٥٣٢١٢٣٤٥٦٧', false], // Arabic-Indic digits are not the digits SMPP carries
    ['', false],
  ];
  for (const [n, expected] of cases) {
    it(`${JSON.stringify(n)} -> ${expected}`, () => assert.equal(couldBeNumber(n), expected));
  }

  it('holds for every plausible number (invalid numbers include the entries that are no number)', () => {
    for (const [n] of cases) if (isPlausibleNumber(n)) assert.equal(couldBeNumber(n), true, n);
  });
});

describe('firstNonNumber', () => {
  const cases: Array<[string, string | null]> = [
    ['905321234567', null],
    ['+90 (532) 123-45-67, 0044 7700 900123', null],
    ['12345,905321234567', null], // a wrong number is still a number
    ['hello-world', 'hello-world'],
    ['905321234567, hello world ;abc', 'hello world'],
    ['905321234567,,;\n+-()', null], // entries that normalise to nothing are not entries
    ['1234567890123456', '1234567890123456'],
  ];
  for (const [sentto, expected] of cases) {
    it(`${JSON.stringify(sentto)} -> ${String(expected)}`, () => assert.equal(firstNonNumber(sentto), expected));
  }
});

describe('quotedEntry', () => {
  it('quotes a short entry whole', () => assert.equal(quotedEntry('hello-world'), '"hello-world"'));
  it('cuts a long entry at 32 characters, never inside a surrogate pair', () => {
    assert.equal(quotedEntry('x'.repeat(100)), `"${'x'.repeat(32)}…"`);
    assert.equal(quotedEntry('😀'.repeat(40)), `"${'😀'.repeat(32)}…"`);
  });
  it('escapes control characters', () => assert.equal(quotedEntry('a\u0007b'), '"a\\u0007b"'));
});
