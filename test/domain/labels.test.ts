import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  contentTypeLabel,
  countryLabel,
  isContentType,
  isSmsLang,
  smsLangLabel,
  type ContentType,
  type SmsLang,
} from '../../src/domain/labels.js';

describe('smsLangLabel', () => {
  const cases: Array<[SmsLang, string]> = [
    [0, 'English'],
    [1, 'Turkish'],
    [2, 'Arabic'],
  ];
  for (const [lang, label] of cases) it(`${lang} -> ${label}`, () => assert.equal(smsLangLabel(lang), label));
});

describe('contentTypeLabel', () => {
  const cases: Array<[ContentType, string]> = [
    [0, 'Transactional'],
    [1, 'High Quality'],
    [2, 'Advertising'],
  ];
  for (const [type, label] of cases) it(`${type} -> ${label}`, () => assert.equal(contentTypeLabel(type), label));
});

describe('isSmsLang and isContentType', () => {
  const cases: Array<[unknown, boolean]> = [
    [0, true],
    [1, true],
    [2, true],
    [3, false],
    [-1, false],
    [1.5, false],
    ['1', false],
    [undefined, false],
    [null, false],
  ];
  for (const [value, expected] of cases) {
    it(`${JSON.stringify(value) ?? 'undefined'} -> ${expected}`, () => {
      assert.equal(isSmsLang(value), expected);
      assert.equal(isContentType(value), expected);
    });
  }
});

describe('countryLabel', () => {
  const cases: Array<[string, string]> = [
    ['905321234567', 'Turkey-TR'],
    ['902121234567', 'GlobalSMS-GL'],
    ['447700900123', 'GlobalSMS-GL'],
    ['abc', 'GlobalSMS-GL'],
  ];
  for (const [n, label] of cases) it(`${n} -> ${label}`, () => assert.equal(countryLabel(n), label));
});
