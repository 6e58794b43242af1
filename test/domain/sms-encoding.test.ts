import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeForSubmit, partCapacity } from '../../src/domain/sms-encoding.js';
import { decodeShortMessage } from '../../src/domain/sms-decoding.js';

const hex = (b: Buffer | undefined): string => (b ? b.toString('hex') : 'missing');

describe('encodeForSubmit: character sets', () => {
  it('lang 0 maps the default alphabet to one septet each, unpacked', () => {
    const e = encodeForSubmit('@£$Ç\nAaÖü', 0, 1);
    assert.equal(e.dataCoding, 0);
    assert.equal(e.esmClass, 0);
    assert.deepEqual([...(e.parts[0] ?? [])], [0x00, 0x01, 0x02, 0x09, 0x0a, 0x41, 0x61, 0x5c, 0x7e]);
  });

  it('lang 0 sends the extension characters as ESC pairs', () => {
    const e = encodeForSubmit('^{}\\[~]|€', 0, 1);
    assert.equal(e.dataCoding, 0);
    assert.equal(hex(e.parts[0]), '1b141b281b291b2f1b3c1b3d1b3e1b401b65');
  });

  it('lang 0 falls back to UCS-2 for a character outside the default tables', () => {
    const e = encodeForSubmit('çay', 0, 1);
    assert.equal(e.dataCoding, 8);
    assert.equal(hex(e.parts[0]), '00e700610079');
  });

  it('lang 1 uses the Turkish single shift with UDH IE 0x24 0x01', () => {
    const e = encodeForSubmit('ğĞşŞıİçÇ€', 1, 1);
    assert.equal(e.dataCoding, 0);
    assert.equal(e.esmClass, 0x40);
    // UDHL 3, IE 24 01 01; then ESC pairs, except Ç which is in the default alphabet (0x09).
    assert.equal(hex(e.parts[0]), '032401011b671b471b731b531b691b491b63091b65');
  });

  it('lang 1 without Turkish-only letters needs no shift IE', () => {
    const e = encodeForSubmit('Gönüllü Ürün', 1, 1);
    assert.equal(e.esmClass, 0);
    assert.equal(e.parts.length, 1);
    assert.equal(decodeShortMessage(e.parts[0] ?? Buffer.alloc(0), e.dataCoding, e.esmClass).text, 'Gönüllü Ürün');
  });

  it('lang 1 falls back to UCS-2 for Arabic or emoji', () => {
    assert.equal(encodeForSubmit('şeker 🍬', 1, 1).dataCoding, 8);
  });

  it('lang 2 is UCS-2 even for plain text; an emoji is a surrogate pair', () => {
    const e = encodeForSubmit('a😀', 2, 1);
    assert.equal(e.dataCoding, 8);
    assert.equal(hex(e.parts[0]), '0061d83dde00');
  });
});

describe('encodeForSubmit: capacities and splitting', () => {
  it('computes capacities from the UDH length', () => {
    assert.deepEqual(
      [partCapacity('gsm7', 0), partCapacity('gsm7', 6), partCapacity('gsm7', 4), partCapacity('gsm7', 9)],
      [160, 153, 155, 149],
    );
    assert.deepEqual([partCapacity('ucs2', 0), partCapacity('ucs2', 6)], [70, 67]);
  });

  const cases: Array<[string, string, 0 | 1 | 2, number]> = [
    ['160 septets fit one part', 'a'.repeat(160), 0, 1],
    ['161 septets need two', 'a'.repeat(161), 0, 2],
    ['306 septets fit two', 'a'.repeat(306), 0, 2],
    ['307 septets need three', 'a'.repeat(307), 0, 3],
    ['80 ESC pairs fill one part', '€'.repeat(80), 0, 1],
    ['155 Turkish septets fit one part', 'ş'.repeat(77) + 'a', 1, 1],
    ['156 Turkish septets need two', 'ş'.repeat(78), 1, 2],
    ['70 UCS-2 units fit one part', 'x'.repeat(70), 2, 1],
    ['71 UCS-2 units need two', 'x'.repeat(71), 2, 2],
    ['134 UCS-2 units fit two', 'x'.repeat(134), 2, 2],
    ['35 emoji fill one part', '😀'.repeat(35), 2, 1],
  ];
  for (const [name, text, lang, parts] of cases) {
    it(name, () => assert.equal(encodeForSubmit(text, lang, 7).parts.length, parts));
  }

  it('writes the concatenation UDH with reference, total and sequence', () => {
    const e = encodeForSubmit('a'.repeat(200), 0, 0x2a);
    assert.equal(e.esmClass, 0x40);
    assert.equal(hex(e.parts[0]?.subarray(0, 6)), '0500032a0201');
    assert.equal(hex(e.parts[1]?.subarray(0, 6)), '0500032a0202');
    assert.deepEqual(
      e.parts.map((p) => p.length - 6),
      [153, 47],
    );
  });

  it('puts the concatenation IE and the Turkish shift IE in every part (149 septets each)', () => {
    const e = encodeForSubmit('ı'.repeat(100), 1, 9);
    assert.equal(e.parts.length, 2);
    for (const [i, part] of e.parts.entries())
      assert.equal(hex(part.subarray(0, 9)), `0800030902${i === 0 ? '01' : '02'}240101`);
    assert.deepEqual(
      e.parts.map((p) => p.length - 9),
      [148, 52],
    );
  });

  it('never splits an ESC pair: the pair moves to the next part', () => {
    const e = encodeForSubmit('a'.repeat(152) + '€' + 'b'.repeat(10), 0, 1);
    const first = e.parts[0] ?? Buffer.alloc(0);
    assert.equal(first.length - 6, 152);
    assert.notEqual(first[first.length - 1], 0x1b);
    assert.equal(hex(e.parts[1]?.subarray(6, 8)), '1b65');
  });

  it('never splits a surrogate pair: the emoji moves to the next part', () => {
    const e = encodeForSubmit('x'.repeat(66) + '😀' + 'y'.repeat(10), 2, 1);
    assert.equal((e.parts[0]?.length ?? 0) - 6, 132);
    assert.equal(hex(e.parts[1]?.subarray(6, 10)), 'd83dde00');
  });

  it('round-trips every part through the decoder', () => {
    const text = 'Sayın müşterimiz, İstanbul şubemizde çağrı kaydınız oluşturuldu. '.repeat(5);
    const e = encodeForSubmit(text, 1, 3);
    const decoded = e.parts.map((p) => decodeShortMessage(p, e.dataCoding, e.esmClass));
    assert.equal(decoded.map((d) => d.text).join(''), text);
    assert.deepEqual(
      decoded.map((d) => d.concat?.seq),
      e.parts.map((_, i) => i + 1),
    );
  });
});
