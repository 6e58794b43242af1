import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  isReservedOtpSender,
  senderIdRefusal,
  senderOnWire,
  titleLength,
  titleTooLong,
} from '../../src/domain/sender-title.js';

describe('titleLength', () => {
  const cases: Array<[string, number]> = [
    ['', 0],
    ['HABERCI', 7],
    ['ACME SHOP', 9],
    ['ç', 2],
    ['ÇĞİÖŞÜ', 12],
    ['çğıöşü', 12],
    ['ŞEKER', 6],
    ['İSTANBUL', 9],
    ['ISTANBUL', 8],
    ['âîû', 3], // circumflex vowels count as one
    ['c\u0327', 2], // decomposed ç is composed first
    ['ÄÉ', 2], // other accented letters count as one
  ];
  for (const [title, length] of cases) {
    it(`${JSON.stringify(title)} -> ${length}`, () => assert.equal(titleLength(title), length));
  }
});

describe('titleTooLong', () => {
  const cases: Array<[string, boolean]> = [
    ['ABCDEFGHIJK', false], // 11
    ['ABCDEFGHIJKL', true], // 12
    ['ABCDEFGHIŞ', false], // 9 + 2 = 11
    ['ABCDEFGHIJŞ', true], // 10 + 2 = 12
    ['ÇĞİÖŞ', false], // 10
    ['ÇĞİÖŞÜ', true], // 12
  ];
  for (const [title, tooLong] of cases) {
    it(`${title} -> ${tooLong}`, () => assert.equal(titleTooLong(title), tooLong));
  }
});

describe('senderIdRefusal', () => {
  const accepted = [
    'ACME',
    'Acme Shop',
    'ABCDEFGHIJK',
    'A.B-C_D&E+F',
    '12345678901',
    'x',
    'ABCDEFGHIŞ', // 9 + 2 = 11
    'ŞEKER',
    'ÇĞİÖŞ', // 10
    'ABCDEFGHIS\u0327', // S + combining cedilla is one Ş: 11
  ];
  for (const title of accepted)
    it(`accepts ${JSON.stringify(title)}`, () => assert.equal(senderIdRefusal(title), null));
  const refused: Array<[string, RegExp]> = [
    ['', /empty/],
    ['   ', /empty/],
    ['ABCDEFGHIJKL', /at most 11 .* counts 12/], // 12
    ['ABCDEFGHIJKLMNOPQR', /counts 18/],
    ['ABCDEFGHIJŞ', /counts 12/], // 10 + 2: the send path's length rule
    ['ÇĞİÖŞÜ', /counts 12/],
    ['CAFÉ', /ASCII/],
    ['ÂLİ', /ASCII/], // a circumflex is no Turkish letter of the alphabet
    ['ACME!', /ASCII/],
    ['AC\tME', /ASCII/],
    [' ACME', /space/],
    ['ACME ', /space/],
    ['.-_', /letter or digit/],
  ];
  for (const [title, reason] of refused)
    it(`refuses ${JSON.stringify(title)}`, () => assert.match(senderIdRefusal(title) ?? '', reason));
});

describe('senderOnWire', () => {
  const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
  it('transliterates Turkish letters to ASCII by default', () => {
    assert.equal(Buffer.from(senderOnWire('ABCDEFGHIŞ', 'ascii')).toString('latin1'), 'ABCDEFGHIS');
    assert.equal(Buffer.from(senderOnWire('çğıöşü ÇĞİÖŞÜ', 'ascii')).toString('latin1'), 'cgiosu CGIOSU');
    assert.equal(Buffer.from(senderOnWire('A.B-C_D&E+F', 'ascii')).toString('latin1'), 'A.B-C_D&E+F');
  });
  it('writes GSM 7-bit septets with the Turkish single shift for gsm7-turkish', () => {
    assert.equal(hex(senderOnWire('ABCDEFGHIŞ', 'gsm7-turkish')), '4142434445464748491b53');
    // Ç Ö Ü ö ü are in the default alphabet; Ğ İ ç ğ ı ş are ESC + their shift code.
    assert.equal(hex(senderOnWire('ÇÖÜöü', 'gsm7-turkish')), '095c5e7c7e');
    assert.equal(hex(senderOnWire('ĞİçğışA_', 'gsm7-turkish')), '1b471b491b631b671b691b734111');
  });
});

describe('isReservedOtpSender', () => {
  const reserved = [
    'test',
    'TEST',
    'Test',
    'tEsT',
    'api',
    'API',
    'apikey',
    'APIKEY',
    'ApiKey',
    'api_key',
    'API_KEY',
    'test123',
    'TEST123',
    '123',
    '0000',
    '123456789',
    'senderid',
    'SenderID',
    'sender',
    'SENDER',
    'title',
    'TITLE',
    'text',
    'Text',
    'content',
    'CONTENT',
    'TİTLE',
    'tıtle',
    'APİ',
    'apı',
    ' test ',
  ];
  for (const title of reserved) {
    it(`rejects ${JSON.stringify(title)}`, () => assert.equal(isReservedOtpSender(title), true));
  }

  const allowed = [
    'HABERCI',
    'testing',
    'api key',
    'api-key',
    '1234',
    '000',
    'sender1',
    'TEXTS',
    'contents',
    'OTPSMS',
    '',
  ];
  for (const title of allowed) {
    it(`accepts ${JSON.stringify(title)}`, () => assert.equal(isReservedOtpSender(title), false));
  }
});
