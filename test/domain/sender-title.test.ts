import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isReservedOtpSender, senderIdRefusal, titleLength, titleTooLong } from '../../src/domain/sender-title.js';

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
  const accepted = ['ACME', 'Acme Shop', 'ABCDEFGHIJK', 'A.B-C_D&E+F', '12345678901', 'x'];
  for (const title of accepted)
    it(`accepts ${JSON.stringify(title)}`, () => assert.equal(senderIdRefusal(title), null));
  const refused: Array<[string, RegExp]> = [
    ['', /empty/],
    ['   ', /empty/],
    ['ABCDEFGHIJKL', /at most 11 .* has 12/], // 12
    ['ABCDEFGHIJKLMNOPQR', /has 18/],
    ['ABCDEFGHIJŞ', /has 12/], // 10 + 2: the send path's length rule
    ['ŞEKER', /ASCII/], // fits, but the carrier sends sender IDs as ASCII
    ['CAFÉ', /ASCII/],
    ['ACME!', /ASCII/],
    ['AC\tME', /ASCII/],
    [' ACME', /space/],
    ['ACME ', /space/],
    ['.-_', /letter or digit/],
  ];
  for (const [title, reason] of refused)
    it(`refuses ${JSON.stringify(title)}`, () => assert.match(senderIdRefusal(title) ?? '', reason));
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
