import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SmsLang } from '../../src/domain/labels.js';
import {
  countFor,
  smsCount,
  tableFor,
  textLength,
  textTooLong,
  toLineBreaks,
  totalCount,
  type CountTable,
} from '../../src/domain/sms-count.js';

/** The spec's table, transcribed: the most characters for 1..7 SMS. */
const rows: Array<{ name: string; lang: SmsLang; table: CountTable; limits: number[] }> = [
  { name: 'Türkiye, sms_lang 0', lang: 0, table: 'turkey', limits: [160, 305, 455, 610, 760, 910, 1070] },
  { name: 'Türkiye, sms_lang 1', lang: 1, table: 'turkey', limits: [155, 245, 445, 595, 740, 890, 1040] },
  { name: 'Türkiye, sms_lang 2', lang: 2, table: 'turkey', limits: [65, 127, 190, 250, 315, 380, 445] },
  { name: 'International, sms_lang 0', lang: 0, table: 'international', limits: [70, 130, 195, 260, 325, 390, 450] },
  { name: 'International, sms_lang 1', lang: 1, table: 'international', limits: [70, 130, 195, 260, 325, 390, 450] },
  { name: 'International, sms_lang 2', lang: 2, table: 'international', limits: [70, 130, 195, 260, 325, 390, 450] },
];

describe('smsCount at every boundary of the spec table', () => {
  for (const row of rows) {
    describe(row.name, () => {
      row.limits.forEach((limit, i) => {
        it(`${limit} characters -> ${i + 1}, ${limit + 1} -> ${i + 2}`, () => {
          assert.equal(smsCount('a'.repeat(limit), row.lang, row.table), i + 1);
          assert.equal(smsCount('a'.repeat(limit + 1), row.lang, row.table), i + 2);
        });
      });
      it('2000 characters -> 8', () => assert.equal(smsCount('a'.repeat(2000), row.lang, row.table), 8));
      it('1 character -> 1', () => assert.equal(smsCount('a', row.lang, row.table), 1));
    });
  }

  it('counts an empty text as 1', () => assert.equal(smsCount('', 0, 'turkey'), 1));
});

describe('line-break token', () => {
  it('converts every capital TS-L and nothing else', () => {
    assert.equal(toLineBreaks('aTS-LbTS-Lc ts-l TS-l'), 'a\nb\nc ts-l TS-l');
  });

  it('counts after conversion: each TS-L is one character', () => {
    // 40 tokens are 160 characters as sent but 40 after conversion.
    const text = 'TS-L'.repeat(40) + 'a'.repeat(120);
    assert.equal(smsCount(text, 0, 'turkey'), 1);
    assert.equal(smsCount(text + 'a', 0, 'turkey'), 2);
  });
});

describe('textLength', () => {
  const cases: Array<[string, number]> = [
    ['', 0],
    ['abc', 3],
    ['çğışöü', 6],
    ['مرحبا', 5],
    ['😀', 2], // outside the BMP: two UTF-16 code units
    ['a😀b', 4],
    ['€', 1],
  ];
  for (const [text, length] of cases) {
    it(`${JSON.stringify(text)} -> ${length}`, () => assert.equal(textLength(text), length));
  }

  it('makes 35 emoji fill one international SMS and 36 need two', () => {
    assert.equal(smsCount('😀'.repeat(35), 2, 'international'), 1);
    assert.equal(smsCount('😀'.repeat(36), 2, 'international'), 2);
  });
});

describe('textTooLong', () => {
  it('allows 2000 characters and refuses 2001', () => {
    assert.equal(textTooLong('a'.repeat(2000)), false);
    assert.equal(textTooLong('a'.repeat(2001)), true);
  });
});

describe('countFor and tableFor', () => {
  const cases: Array<[string, 'single' | 'bulk', CountTable]> = [
    ['905321234567', 'single', 'turkey'],
    ['447700900123', 'single', 'international'],
    ['902121234567', 'single', 'international'], // not 905: international on /sms/send
    ['905321234567', 'bulk', 'turkey'],
    ['447700900123', 'bulk', 'turkey'],
  ];
  for (const [n, mode, table] of cases) {
    it(`${n} in ${mode} mode uses the ${table} table`, () => assert.equal(tableFor(n, mode), table));
  }

  it('counts 71 characters of sms_lang 0 as 1 SMS in Türkiye and 2 abroad', () => {
    const text = 'a'.repeat(71);
    assert.equal(countFor('905321234567', text, 0, 'single'), 1);
    assert.equal(countFor('447700900123', text, 0, 'single'), 2);
    assert.equal(countFor('447700900123', text, 0, 'bulk'), 1);
  });

  it('charges nothing for an entry that cannot be a phone number, and a wrong number in full', () => {
    assert.equal(countFor('helloworld', 'Hello', 0, 'bulk'), 0);
    assert.equal(countFor('1234567890123456', 'Hello', 0, 'single'), 0);
    assert.equal(countFor('12345', 'Hello', 0, 'bulk'), 1);
  });

  it('totals the counts of all recipients', () => {
    const text = 'a'.repeat(71);
    assert.equal(totalCount(['905321234567', '447700900123', '12025550100'], text, 0, 'single'), 5);
    assert.equal(totalCount(['905321234567', '447700900123', '12025550100'], text, 0, 'bulk'), 3);
    assert.equal(totalCount([], text, 0, 'single'), 0);
  });
});
