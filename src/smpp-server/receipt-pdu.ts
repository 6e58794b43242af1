/**
 * The deliver_sm of a receipt to a customer (SMPP 3.4 appendix B): esm_class 0x04, the
 * receipted_message_id and message_state TLVs, and the de-facto standard text
 * "id:ID sub:001 dlvrd:001 submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DELIVRD err:000 text:",
 * whose id is the message_id given in submit_sm_resp (the sms_id in decimal). Dates are UTC.
 */
import type { OwedReceipt } from '../ports/smpp-store.js';
import type { PduOptions } from '../smpp/smpp-wire.js';

const stateOf = {
  delivered: { stat: 'DELIVRD', tlv: 2 },
  expired: { stat: 'EXPIRED', tlv: 3 },
  failed: { stat: 'UNDELIV', tlv: 5 },
} as const;

function smppDate(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;
}

/** The carrier's error code when the message's detail names one ("err:123"), else 000 / 001. */
function errOf(r: OwedReceipt): string {
  const named = r.detail === null ? undefined : /err:(\w{1,3})/i.exec(r.detail)?.[1];
  return (named ?? (r.state === 'delivered' ? '0' : '1')).padStart(3, '0');
}

export function receiptText(r: OwedReceipt): string {
  const { stat } = stateOf[r.state];
  const dlvrd = r.state === 'delivered' ? '001' : '000';
  return `id:${r.messageId} sub:001 dlvrd:${dlvrd} submit date:${smppDate(r.submittedAt)} done date:${smppDate(r.doneAt ?? r.submittedAt)} stat:${stat} err:${errOf(r)} text:`;
}

export function receiptPdu(r: OwedReceipt): PduOptions {
  return {
    service_type: '',
    source_addr_ton: 1,
    source_addr_npi: 1,
    source_addr: r.recipient,
    dest_addr_ton: /^\d+$/.test(r.sourceAddr) ? 1 : 5,
    dest_addr_npi: /^\d+$/.test(r.sourceAddr) ? 1 : 0,
    destination_addr: r.sourceAddr,
    esm_class: 0x04,
    data_coding: 0,
    short_message: Buffer.from(receiptText(r), 'latin1'),
    receipted_message_id: String(r.messageId),
    message_state: stateOf[r.state].tlv,
  };
}
