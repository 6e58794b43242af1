import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countText, encodingOf } from '../../src/domain/sms-counter.js';
import { smsCount } from '../../src/domain/sms-count.js';

describe('the panel’s SMS counter', () => {
  it('picks the cheapest encoding that carries the text', () => {
    const table: [string, ReturnType<typeof encodingOf>][] = [
      ['Hello [world] {€}', 'gsm7'],
      ['Merhaba dünya', 'gsm7'],
      ['Çağrı şimdi ılık', 'turkish'],
      ['Ğ İ Ş ı ğ ş ç', 'turkish'],
      ['Привет', 'ucs2'],
      ['ok 😀', 'ucs2'],
      ['TS-L in text', 'gsm7'],
    ];
    for (const [text, expected] of table) assert.equal(encodingOf(text), expected, text);
  });

  it('counts parts with the tables every send is charged with, in that encoding’s sms_lang', () => {
    for (const text of [
      'a'.repeat(160),
      'a'.repeat(161),
      'ş'.repeat(155),
      'ş'.repeat(156),
      'Ж'.repeat(65),
      'Ж'.repeat(66),
      'x'.repeat(2000),
    ]) {
      const c = countText(text);
      assert.equal(c.parts, smsCount(text, c.lang, 'turkey'), text.slice(0, 5));
    }
    assert.deepEqual(countText('a'.repeat(161)), { characters: 161, parts: 2, encoding: 'gsm7', lang: 0 });
    assert.deepEqual(countText('ş'.repeat(156)), { characters: 156, parts: 2, encoding: 'turkish', lang: 1 });
    // An emoji is two UTF-16 units, as on the air; TS-L is one line break.
    assert.deepEqual(countText('😀'), { characters: 2, parts: 1, encoding: 'ucs2', lang: 2 });
    assert.equal(countText('aTS-Lb').characters, 3);
  });
});
