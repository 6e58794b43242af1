import type { PduOptions } from '../../../smpp/smpp-wire.js';
import type { FinalState } from '../../../domain/delivery-state.js';
import { simulatedOutcome } from '../../../domain/simulator-outcome.js';

/**
 * Delivery receipts of the SMSC simulator. The outcome is the built-in simulator's rule
 * (domain/simulator-outcome.ts), so the two agree on every number: 0000 UNDELIV, 0001
 * EXPIRED, 0002 no receipt ever, anything else DELIVRD.
 */

export type ReceiptStat = 'DELIVRD' | 'UNDELIV' | 'EXPIRED';

const receiptStats: Record<FinalState, ReceiptStat> = { delivered: 'DELIVRD', failed: 'UNDELIV', expired: 'EXPIRED' };

/** 'none' also for a destination that is no number: it is refused at submit and earns no receipt. */
export function receiptOutcome(destination: string): ReceiptStat | 'none' {
  const outcome = simulatedOutcome(destination);
  return outcome === 'no-report' || outcome === 'refused' ? 'none' : receiptStats[outcome];
}

/** message_state TLV values (SMPP 3.4 5.3.2.35). */
const messageState: Record<ReceiptStat, number> = { DELIVRD: 2, EXPIRED: 3, UNDELIV: 5 };
const errorCode: Record<ReceiptStat, string> = { DELIVRD: '000', EXPIRED: '000', UNDELIV: '001' };

/** YYMMDDhhmm in UTC, as receipt texts carry it. */
export function receiptDate(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/^\d\d(\d\d)-(\d\d)-(\d\d)T(\d\d):(\d\d).*$/, '$1$2$3$4$5');
}

export interface ReceiptInput {
  messageId: string;
  stat: ReceiptStat;
  /** The submit's source and destination; the receipt travels the other way. */
  source: string;
  destination: string;
  submittedAt: number;
  doneAt: number;
  /** The first bytes of the submitted message, shown after "text:". */
  sample: Buffer;
  withTlvs: boolean;
}

export function receiptPdu(r: ReceiptInput): PduOptions {
  const sample = r.sample
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '.')
    .slice(0, 20);
  const text =
    `id:${r.messageId} sub:001 dlvrd:${r.stat === 'DELIVRD' ? '001' : '000'} submit date:${receiptDate(r.submittedAt)}` +
    ` done date:${receiptDate(r.doneAt)} stat:${r.stat} err:${errorCode[r.stat]} text:${sample}`;
  const pdu: PduOptions = {
    service_type: '',
    source_addr_ton: 1,
    source_addr_npi: 1,
    source_addr: r.destination,
    dest_addr_ton: 0,
    dest_addr_npi: 0,
    destination_addr: r.source,
    esm_class: 0x04,
    data_coding: 0,
    short_message: Buffer.from(text, 'latin1'),
  };
  if (r.withTlvs) {
    pdu.receipted_message_id = r.messageId;
    pdu.message_state = messageState[r.stat];
  }
  return pdu;
}
