import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { operatorLabels, operatorName, operatorOf } from '../../src/domain/operators.js';

describe('operatorOf', () => {
  const cases: Array<[string, string]> = [
    ['905011234567', 'TURK TELEKOM'],
    ['905051234567', 'TURK TELEKOM'],
    ['905071234567', 'TURK TELEKOM'],
    ['905511234567', 'TURK TELEKOM'],
    ['905551234567', 'TURK TELEKOM'],
    ['905591234567', 'TURK TELEKOM'],
    ['905301234567', 'TURKCELL'],
    ['905321234567', 'TURKCELL'],
    ['905331234567', 'TURKCELL'],
    ['905338234567', 'TURKCELL'], // 533 82: not the KKTC sub-range
    ['905391234567', 'TURKCELL'],
    ['905611234567', 'TURKCELL'],
    ['905401234567', 'VODAFONE'],
    ['905421234567', 'VODAFONE'],
    ['905428912345', 'VODAFONE'], // 542 89: not the KKTC sub-range
    ['905491234567', 'VODAFONE'],
    ['905338312345', 'KKTCELL'],
    ['905338712345', 'KKTCELL'],
    ['905428512345', 'KKTC TELSIM'],
    ['905428812345', 'KKTC TELSIM'],
    ['905021234567', 'UNKNOWN'], // 502: not allocated
    ['905101234567', 'UNKNOWN'], // mobile range with no known operator
    ['905561234567', 'UNKNOWN'],
    ['902121234567', 'UNKNOWN'], // landline
    ['90532123456', 'UNKNOWN'], // too short
    ['9053212345678', 'UNKNOWN'], // too long
    ['447700900123', 'INTERNATIONAL'],
    ['12025550100', 'INTERNATIONAL'],
    ['12', 'UNKNOWN'],
    ['abc', 'UNKNOWN'],
    ['', 'UNKNOWN'],
  ];
  for (const [n, label] of cases) it(`${JSON.stringify(n)} -> ${label}`, () => assert.equal(operatorOf(n), label));
});

describe('operator labels', () => {
  it('are six, in upper case', () => {
    assert.equal(operatorLabels.length, 6);
    for (const label of operatorLabels) assert.equal(label, label.toUpperCase());
  });
});

describe('operatorName', () => {
  const cases: Array<[string, string]> = [
    ['905321234567', 'Turkcell'],
    ['905421234567', 'Vodafone'],
    ['905051234567', 'Türk Telekom'],
    ['905338312345', 'Kuzey Kıbrıs Turkcell'],
    ['905428512345', 'KKTC Telsim'],
    ['447700900123', 'International'],
    ['902121234567', ''],
  ];
  for (const [n, name] of cases) it(`${n} -> ${JSON.stringify(name)}`, () => assert.equal(operatorName(n), name));
});
