import type { ReceiptStatus } from '../../../ports/carrier.js';

/**
 * Delivery receipts in deliver_sm (SMPP 3.4 appendix B). The receipted_message_id and
 * message_state TLVs win when present; otherwise the de-facto standard text
 * "id:... sub:... dlvrd:... submit date:... done date:... stat:DELIVRD err:... text:...".
 */

export interface ReceiptFields {
  esmClass: number;
  receiptedMessageId?: string;
  messageState?: number;
  /** short_message read as Latin-1 (receipt texts are ASCII). */
  text: string;
}

/**
 * final: a report for the pipeline. intermediate: ENROUTE/ACCEPTD, acknowledged and
 * dropped. invalid: looks like a receipt but no id or state can be read.
 */
export type ReceiptParse =
  | { kind: 'final'; carrierMessageId: string; status: ReceiptStatus; detail: string }
  | { kind: 'intermediate'; carrierMessageId: string; state: string }
  | { kind: 'invalid'; reason: string };

/** esm_class message type bits 5..2 = 0001 (SMSC delivery receipt), or the TLV. */
export function isReceipt(fields: Pick<ReceiptFields, 'esmClass' | 'receiptedMessageId'>): boolean {
  return (fields.esmClass & 0x04) !== 0 || fields.receiptedMessageId !== undefined;
}

type Outcome = ReceiptStatus | 'intermediate';

const stateByTlv: Record<number, [string, Outcome]> = {
  1: ['ENROUTE', 'intermediate'],
  2: ['DELIVRD', 'delivered'],
  3: ['EXPIRED', 'expired'],
  4: ['DELETED', 'failed'],
  5: ['UNDELIV', 'failed'],
  6: ['ACCEPTD', 'intermediate'],
  7: ['UNKNOWN', 'failed'],
  8: ['REJECTD', 'failed'],
};

const stateByText: Record<string, Outcome> = {
  DELIVRD: 'delivered',
  EXPIRED: 'expired',
  UNDELIV: 'failed',
  REJECTD: 'failed',
  DELETED: 'failed',
  UNKNOWN: 'failed',
  ACCEPTD: 'intermediate',
  ENROUTE: 'intermediate',
};

function textField(text: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}:(\\S*)`, 'i').exec(text);
  return match?.[1];
}

export function parseReceipt(fields: ReceiptFields): ReceiptParse {
  const id = fields.receiptedMessageId || textField(fields.text, 'id');
  if (!id) return { kind: 'invalid', reason: 'no message id in receipt' };
  let stateName: string | undefined;
  let outcome: Outcome | undefined;
  const tlv = fields.messageState === undefined ? undefined : stateByTlv[fields.messageState];
  if (tlv) [stateName, outcome] = tlv;
  else {
    stateName = textField(fields.text, 'stat')?.toUpperCase();
    outcome = stateName === undefined ? undefined : stateByText[stateName];
  }
  if (stateName === undefined || outcome === undefined)
    return { kind: 'invalid', reason: `unknown receipt state ${stateName ?? fields.messageState ?? '(none)'}` };
  if (outcome === 'intermediate') return { kind: 'intermediate', carrierMessageId: id, state: stateName };
  const err = textField(fields.text, 'err');
  return {
    kind: 'final',
    carrierMessageId: id,
    status: outcome,
    detail: err === undefined ? `stat:${stateName}` : `stat:${stateName} err:${err}`,
  };
}
