/** The commercial text rules' loose check: the sender named, and an opt-out word with a number. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { commercialTextGaps } from '../../src/domain/commercial-text.js';
import { defaultRetWords } from '../../src/domain/iys.js';

const gaps = (text: string, sender = 'ACME', words = defaultRetWords) => commercialTextGaps(text, sender, words);

it('finds the sender by its sender ID as a word, in any case, or by a MERSIS number', () => {
  assert.deepEqual(gaps('Acme: indirim. RET 3333'), []);
  assert.deepEqual(gaps('acme indirim RET yaz 3333e gönder'), []);
  assert.deepEqual(gaps('ACMEX indirim RET 3333'), ['sender'], 'a longer word is not the sender');
  assert.deepEqual(gaps('İndirim! Mersis no: 0123456789012345, RET 3333'), []);
  assert.deepEqual(gaps('İndirim! MERSIS 12345, RET 3333'), ['sender'], '16 digits');
  assert.deepEqual(gaps('Büyük Mağaza indirim RET 3333', 'BÜYÜK MAĞAZA'), [], 'Turkish letters folded');
});

it('finds the opt-out by a RET word of the account and a number of 3 digits or more', () => {
  assert.deepEqual(gaps('ACME indirim'), ['opt-out']);
  assert.deepEqual(gaps('ACME indirim, RET yazın'), ['opt-out'], 'no number to send it to');
  assert.deepEqual(gaps('ACME indirim, 3333'), ['opt-out'], 'no word');
  assert.deepEqual(gaps('ACME indirim, iptal için İPTAL yazıp 3333’e gönderin'), []);
  assert.deepEqual(gaps('ACME indirim, STOP 12'), ['opt-out']);
  assert.deepEqual(gaps('ACME indirim, DUR 3333', 'ACME', ['DUR']), [], "the account's own words");
  assert.deepEqual(gaps('ACME indirim, RET 3333', 'ACME', ['DUR']), ['opt-out']);
  assert.deepEqual(gaps('indirim'), ['sender', 'opt-out']);
});
