import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { contactEntries, contactList, groupName } from '../../src/domain/contacts.js';

describe('contactEntries', () => {
  it('splits a string on commas, semicolons and line breaks, trimming and dropping empty entries', () => {
    assert.deepEqual(contactEntries(' 0532 123 45 67 ,5331234567;\n;\r\n00905341234567\r'), [
      '0532 123 45 67',
      '5331234567',
      '00905341234567',
    ]);
    assert.deepEqual(contactEntries(''), []);
  });

  it('takes one entry per array item; numbers as digits, other items as text', () => {
    assert.deepEqual(contactEntries(['0532, 1', 905331234567, ' ', null, { a: 1 }]), [
      '0532, 1',
      '905331234567',
      'null',
      '{"a":1}',
    ]);
    assert.deepEqual(contactEntries(5321234567), ['5321234567']);
  });

  it('refuses other types', () => {
    for (const value of [undefined, null, true, { a: 1 }]) assert.equal(contactEntries(value), null);
  });
});

describe('contactList', () => {
  it('normalises, keeps the first of repeats and counts implausible entries', () => {
    assert.deepEqual(
      contactList(['05321234567', '905321234567', '5321234567', '4915112345678', 'abc', '1234567', '9053212345']),
      {
        numbers: ['905321234567', '4915112345678'],
        invalid: 3,
      },
    );
  });
});

describe('groupName', () => {
  it('removes surrounding whitespace only', () => {
    assert.equal(groupName('  VIP  Customers \n'), 'VIP  Customers');
  });
});
