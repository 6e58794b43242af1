import smpp from 'smpp';
import type { Pdu, PduOptions } from 'smpp';

/**
 * The one import of the `smpp` package. We own short_message encoding and decoding
 * (domain/sms-encoding.ts): the package's Turkish table is the locking shift table, not
 * the single shift we announce, and its decoder turns unknown septets into spaces. So
 * short_message and message_payload travel as raw bytes in both directions. This changes
 * the package's shared definitions for the whole process, on purpose and once.
 */
for (const command of Object.values(smpp.commands)) {
  const param = command.params?.short_message;
  if (param) delete param.filter;
  // The time fields too: the package made a Date of them on the process clock (a relative
  // time in local time, a malformed one an Invalid Date), so a schedule was never seen as
  // text. They travel as the 16 characters sent; src/domain/smpp-time.ts reads them.
  for (const name of ['schedule_delivery_time', 'validity_period'] as const) {
    const time = command.params?.[name];
    if (time) delete time.filter;
  }
}
const payload = smpp.tlvs.message_payload;
if (payload) delete payload.filter;

export { smpp };
export type { Pdu, PduOptions };

/** Command status values we act on (SMPP 3.4 section 5.1.3). */
export const Status = {
  OK: 0x00,
  INVCMDID: 0x03,
  INVBNDSTS: 0x04,
  SYSERR: 0x08,
  INVDSTADR: 0x0b,
  BINDFAIL: 0x0d,
  MSGQFUL: 0x14,
  THROTTLED: 0x58,
  /** ESME receiver temporary app error: the SMSC delivers the PDU again later. */
  RX_T_APPN: 0x64,
  /** ESME receiver permanent app error: the SMSC gives the PDU up. */
  RX_P_APPN: 0x65,
} as const;

const statusNames = new Map<number, string>(Object.entries(smpp.errors).map(([name, code]) => [code, name]));

/** "ESME_RINVDSTADR", or "other" for a status SMPP 3.4 does not name: a bounded set, for metrics. */
export function statusName(status: number): string {
  return statusNames.get(status) ?? 'other';
}

/** "ESME_RINVDSTADR (0x0b)", for reasons and logs. */
export function statusText(status: number): string {
  return `${statusNames.get(status) ?? 'unknown status'} (0x${status.toString(16).padStart(2, '0')})`;
}

export function makePdu(command: string, options: PduOptions): Pdu {
  return new smpp.PDU(command, options);
}

/** A field as a string, or undefined when absent or of another type. */
export function stringField(pdu: Pdu, name: string): string | undefined {
  const v = pdu[name];
  return typeof v === 'string' ? v : undefined;
}

export function numberField(pdu: Pdu, name: string): number | undefined {
  const v = pdu[name];
  return typeof v === 'number' ? v : undefined;
}

export function bufferField(pdu: Pdu, name: string): Buffer | undefined {
  const v = pdu[name];
  return Buffer.isBuffer(v) ? v : undefined;
}

/** The message bytes of a submit_sm or deliver_sm: short_message, else message_payload. */
export function messageBytes(pdu: Pdu): Buffer {
  const short = bufferField(pdu, 'short_message');
  if (short && short.length > 0) return short;
  return bufferField(pdu, 'message_payload') ?? Buffer.alloc(0);
}
