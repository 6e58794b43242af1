/**
 * The deliver_sm of a receipt to a customer (SMPP 3.4 appendix B): esm_class 0x04, the
 * receipted_message_id and message_state TLVs, and the de-facto standard text
 * "id:ID sub:001 dlvrd:001 submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DELIVRD err:000 text:",
 * whose id is the message_id given in submit_sm_resp (the sms_id in decimal, or a part's
 * own id). Dates are UTC. And the deliver_sm of an inbound (MO) message: esm_class 0.
 */
import type { InboundRecord } from '../services/smpp/smpp-service.js';
import type { DueReceipt } from '../services/smpp/owed-to-customers.js';
import type { PduOptions } from '../smpp/smpp-wire.js';
import { septetsOf } from '../domain/gsm-alphabet.js';

const stateOf = {
  delivered: { stat: 'DELIVRD', tlv: 2 },
  expired: { stat: 'EXPIRED', tlv: 3 },
  failed: { stat: 'UNDELIV', tlv: 5 },
  rejected: { stat: 'REJECTD', tlv: 8 },
} as const;

function smppDate(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;
}

/** What a receipt says: the message (or part) as far as it went, under the id the customer was given. */
export type ReceiptFacts = Omit<DueReceipt, 'id' | 'messageId'> & { messageId: string | number };

/** The carrier's error code when the message's detail names one ("err:123"), else 000 / 001. */
function errOf(r: ReceiptFacts): string {
  const named = r.detail === null ? undefined : /err:(\w{1,3})/i.exec(r.detail)?.[1];
  return (named ?? (r.state === 'delivered' ? '0' : '1')).padStart(3, '0');
}

/** `id`: the message_id the customer was given for the submit (a part's own id for a concatenated part). */
export function receiptText(r: ReceiptFacts, id: string = String(r.messageId)): string {
  const { stat } = stateOf[r.state];
  const dlvrd = r.state === 'delivered' ? '001' : '000';
  return `id:${id} sub:001 dlvrd:${dlvrd} submit date:${smppDate(r.submittedAt)} done date:${smppDate(r.doneAt ?? r.submittedAt)} stat:${stat} err:${errOf(r)} text:`;
}

export function receiptPdu(r: ReceiptFacts, id: string = String(r.messageId)): PduOptions {
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
    short_message: Buffer.from(receiptText(r, id), 'latin1'),
    receipted_message_id: id,
    message_state: stateOf[r.state].tlv,
  };
}

/** GSM 03.38 default alphabet unpacked (data_coding 0) when every character has septets there, else UCS-2 (8). */
function moBody(text: string): { dataCoding: number; bytes: Buffer } {
  const septets: number[] = [];
  for (const char of text) {
    const s = septetsOf(char, 'default');
    if (s === undefined) return { dataCoding: 0x08, bytes: Buffer.from(text, 'utf16le').swap16() };
    septets.push(...s);
  }
  return { dataCoding: 0x00, bytes: Buffer.from(septets) };
}

/** An inbound message as deliver_sm: short_message up to 254 octets, message_payload beyond. */
export function moPdu(m: InboundRecord): PduOptions {
  const { dataCoding, bytes } = moBody(m.text);
  const numeric = (a: string): boolean => /^\+?\d+$/.test(a);
  return {
    service_type: '',
    source_addr_ton: numeric(m.from) ? 1 : 5,
    source_addr_npi: numeric(m.from) ? 1 : 0,
    source_addr: m.from.replace(/^\+/, ''),
    dest_addr_ton: numeric(m.to) ? 1 : 5,
    dest_addr_npi: numeric(m.to) ? 1 : 0,
    destination_addr: m.to.replace(/^\+/, ''),
    esm_class: 0x00,
    data_coding: dataCoding,
    ...(bytes.length <= 254 ? { short_message: bytes } : { short_message: Buffer.alloc(0), message_payload: bytes }),
  };
}
