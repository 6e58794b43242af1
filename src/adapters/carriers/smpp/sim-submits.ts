import { receiptOutcome } from './sim-receipts.js';
import type { ReceiptInput } from './sim-receipts.js';
import { messageBytes, numberField, stringField } from '../../../smpp/smpp-wire.js';
import type { Pdu } from '../../../smpp/smpp-wire.js';

/** A submit_sm as the SMSC simulator received it, kept for tests to inspect. */
export interface ReceivedSubmit {
  systemId: string;
  source: string;
  destination: string;
  dataCoding: number;
  esmClass: number;
  registeredDelivery: number;
  /** validity_period as sent ('' for none). */
  validityPeriod: string;
  /** short_message as received, UDH included. */
  shortMessage: Buffer;
  udh: Buffer | undefined;
  /** The message_id we answered with; undefined when throttled. */
  messageId: string | undefined;
  /** The order it came in: the simulator's count of submit_sm so far (lanes are tested by it). */
  seq: number;
  /** When it came (epoch ms), for benches that time the way to the SMSC. */
  at: number;
}

export function readSubmit(pdu: Pdu, systemId: string): ReceivedSubmit {
  const shortMessage = messageBytes(pdu);
  const esmClass = numberField(pdu, 'esm_class') ?? 0;
  return {
    systemId,
    source: stringField(pdu, 'source_addr') ?? '',
    destination: stringField(pdu, 'destination_addr') ?? '',
    dataCoding: numberField(pdu, 'data_coding') ?? 0,
    esmClass,
    registeredDelivery: numberField(pdu, 'registered_delivery') ?? 0,
    validityPeriod: stringField(pdu, 'validity_period') ?? '',
    shortMessage,
    udh: (esmClass & 0x40) !== 0 ? shortMessage.subarray(0, 1 + (shortMessage[0] ?? 0)) : undefined,
    messageId: undefined,
    seq: 0,
    at: Date.now(),
  };
}

/** The receipt an accepted submit earns, or undefined (0002, or no receipt requested). */
export function receiptFor(record: ReceivedSubmit, messageId: string, withTlvs: boolean): ReceiptInput | undefined {
  const stat = receiptOutcome(record.destination);
  if (stat === 'none' || (record.registeredDelivery & 0x03) === 0) return undefined;
  const submittedAt = Date.now();
  return {
    messageId,
    stat,
    source: record.source,
    destination: record.destination,
    submittedAt,
    doneAt: submittedAt,
    sample: record.shortMessage.subarray(record.udh?.length ?? 0),
    withTlvs,
  };
}
