/**
 * An inbound (MO) message as the deliver_sm a customer's receiver gets
 * (src/smpp-server/receipt-pdu.ts): esm_class 0, GSM 03.38 unpacked when the default
 * alphabet holds every character, UCS-2 otherwise, message_payload past 254 octets; and a
 * part's receipt under the part's own id.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { moPdu, receiptPdu } from '../../src/smpp-server/receipt-pdu.js';
import { decodeShortMessage } from '../../src/domain/sms-decoding.js';

const mo = (text: string) => ({
  id: 1,
  accountId: 1,
  from: '+905321112233',
  to: '4444',
  text,
  receivedAt: 0,
});

describe('MO messages and part receipts as deliver_sm', () => {
  it('sends a text of the GSM default alphabet as unpacked septets (data_coding 0), esm_class 0', () => {
    const pdu = moPdu(mo('Merhaba {dünya} €'));
    assert.equal(pdu.esm_class, 0);
    assert.equal(pdu.data_coding, 0);
    assert.equal(pdu.source_addr, '905321112233');
    assert.equal(pdu.source_addr_ton, 1);
    assert.equal(pdu.destination_addr, '4444');
    const bytes = pdu.short_message as Buffer;
    assert.equal(decodeShortMessage(bytes, 0, 0).text, 'Merhaba {dünya} €');
    // The braces and the euro sign are escapes (two septets each).
    assert.equal(bytes.length, 'Merhaba {dünya} €'.length + 3);
  });

  it('sends other texts as UCS-2, and a long one in message_payload', () => {
    const turkish = moPdu(mo('ğış 😀'));
    assert.equal(turkish.data_coding, 8);
    assert.equal(decodeShortMessage(turkish.short_message as Buffer, 8, 0).text, 'ğış 😀');
    const long = moPdu(mo('ş'.repeat(200)));
    assert.equal((long.short_message as Buffer).length, 0);
    assert.equal(decodeShortMessage(long.message_payload as Buffer, 8, 0).text, 'ş'.repeat(200));
  });

  it('gives a part\u2019s receipt the part\u2019s own id, and REJECTD (8) to a part never made a message', () => {
    const pdu = receiptPdu(
      {
        messageId: 0,
        sourceAddr: 'ACME',
        recipient: '905321112233',
        state: 'rejected',
        detail: null,
        submittedAt: Date.UTC(2026, 10, 27, 9, 30),
        doneAt: Date.UTC(2026, 10, 27, 9, 31),
      },
      '1234567',
    );
    assert.equal(pdu.receipted_message_id, '1234567');
    assert.equal(pdu.message_state, 8);
    assert.equal(
      (pdu.short_message as Buffer).toString('latin1'),
      'id:1234567 sub:001 dlvrd:000 submit date:2611270930 done date:2611270931 stat:REJECTD err:001 text:',
    );
  });
});
