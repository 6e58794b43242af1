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

/**
 * A command_length below the 16 bytes of the header (0 among them): the package waited for
 * more (0) or read past the PDU; the stream cannot be read further. Thrown by the package's
 * reader, so the session emits it as an error and reads nothing more: the server closes the
 * connection without an answer, the client to a carrier drops the link.
 */
export class ShortPduError extends Error {
  constructor(readonly commandLength: number) {
    super(`command_length ${commandLength} is shorter than the 16-byte header`);
  }
}

const readLength = smpp.PDU.commandLength.bind(smpp.PDU);
smpp.PDU.commandLength = (stream: unknown): number | false => {
  const length = readLength(stream);
  if (length !== false && length < 16) throw new ShortPduError(length);
  return length;
};

/**
 * What of a request's body runs past its command_length: `message` (sm_length), `command`
 * (a C-string without its NUL, another length-prefixed field, a TLV header or length), or
 * null. The package reads such a body silently short; the server refuses it (smpp-server.ts).
 * A body that ends between two fields is not a fault here: the package leaves those fields
 * unset, as SMPP clients that omit trailing fields expect.
 */
export type BodyFault = 'message' | 'command';

const faults = new WeakMap<object, BodyFault>();

function faultOf(buffer: Buffer): BodyFault | null {
  const length = Math.min(buffer.length, buffer.readUInt32BE(0));
  const command = smpp.commandsById[buffer.readUInt32BE(4)];
  // An unknown command_id is answered generic_nack ESME_RINVCMDID whatever its body.
  if (!command) return null;
  const params = command.params ?? {};
  const { types } = smpp;
  const fixed = new Map([
    [types.int8, 1],
    [types.int16, 2],
    [types.int32, 4],
  ]);
  let offset = 16;
  for (const [name, param] of Object.entries(params)) {
    if (offset >= length) return null;
    const size = fixed.get(param.type);
    if (size !== undefined) offset += size;
    else if (param.type === types.cstring) {
      const end = buffer.indexOf(0, offset);
      if (end < 0 || end >= length) return 'command';
      offset = end + 1;
    } else if (param.type === types.buffer || param.type === types.string) {
      offset += 1 + buffer.readUInt8(offset);
      if (offset > length) return name === 'short_message' ? 'message' : 'command';
    } else return null; // the arrays of submit_multi (not offered): not walked
    if (offset > length) return 'command';
  }
  while (offset < length) {
    if (offset + 4 > length) return 'command';
    offset += 4 + buffer.readUInt16BE(offset + 2);
    if (offset > length) return 'command';
  }
  return null;
}

const decode = smpp.PDU.prototype.fromBuffer;
smpp.PDU.prototype.fromBuffer = function (this: Pdu, buffer: Buffer): unknown {
  const decoded = decode.call(this, buffer);
  if (!(this.command_id & 0x80000000)) {
    const fault = faultOf(buffer);
    if (fault !== null) faults.set(this, fault);
  }
  return decoded;
};

/** The fault of a received request's body (faultOf), or null. */
export function bodyFault(pdu: Pdu): BodyFault | null {
  return faults.get(pdu) ?? null;
}

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
