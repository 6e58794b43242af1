import { decodeSeptets } from './gsm-alphabet.js';
import type { ShiftTable } from './gsm-alphabet.js';
import { ESM_CLASS_UDHI } from './sms-encoding.js';

/**
 * Decoding of a received short_message (deliver_sm): the inverse of encodeForSubmit for
 * the data codings SMSCs use for mobile-originated text.
 */

export interface DecodedSms {
  text: string;
  /** Present when the UDH carries a concatenation IE (8-bit or 16-bit reference). */
  concat?: { reference: number; total: number; seq: number };
}

interface Udh {
  table: ShiftTable;
  concat?: { reference: number; total: number; seq: number };
}

/** Reads the information elements we understand; unknown IEs are skipped by their length. */
function readUdh(udh: Buffer): Udh {
  const out: Udh = { table: 'default' };
  let i = 0;
  while (i + 1 < udh.length) {
    const id = udh[i] ?? 0;
    const len = udh[i + 1] ?? 0;
    const v = udh.subarray(i + 2, i + 2 + len);
    if (id === 0x00 && len === 3) out.concat = { reference: v[0] ?? 0, total: v[1] ?? 0, seq: v[2] ?? 0 };
    if (id === 0x08 && len === 4) out.concat = { reference: v.readUInt16BE(0), total: v[2] ?? 0, seq: v[3] ?? 0 };
    if (id === 0x24 && len === 1 && v[0] === 0x01) out.table = 'turkish';
    i += 2 + len;
  }
  return out;
}

function decodeUcs2(bytes: Buffer): string {
  const even = bytes.subarray(0, bytes.length - (bytes.length % 2));
  return Buffer.from(even).swap16().toString('utf16le');
}

/** The UDH of a short_message (when esm_class has the UDH indicator) read, and the payload after it. */
export function splitUdh(
  bytes: Buffer,
  esmClass: number,
): { table: ShiftTable; concat?: DecodedSms['concat']; payload: Buffer } {
  if ((esmClass & ESM_CLASS_UDHI) === 0 || bytes.length === 0) return { table: 'default', payload: bytes };
  const udhl = bytes[0] ?? 0;
  return { ...readUdh(bytes.subarray(1, 1 + udhl)), payload: bytes.subarray(1 + udhl) };
}

/**
 * data_coding 0 (and the GSM 7-bit message classes 0xF0..0xF3) as unpacked septets,
 * 8 as UCS-2, 3 as Latin-1; anything else is read as Latin-1 rather than refused, so a
 * message always reaches the customer in some form.
 */
export function decodePayload(payload: Buffer, dataCoding: number, table: ShiftTable): string {
  if (dataCoding === 0x00 || (dataCoding & 0xfc) === 0xf0) return decodeSeptets(payload, table);
  if (dataCoding === 0x08) return decodeUcs2(payload);
  return payload.toString('latin1');
}

export function decodeShortMessage(bytes: Buffer, dataCoding: number, esmClass: number): DecodedSms {
  const { table, concat, payload } = splitUdh(bytes, esmClass);
  const text = decodePayload(payload, dataCoding, table);
  return concat ? { text, concat } : { text };
}
