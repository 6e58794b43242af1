/**
 * A customer's submit_sm read as the /sms/send request it stands for: one recipient, the
 * source address as the sender ID (title), the text decoded from its data_coding; or, for
 * one part of a concatenated message (UDH concatenation IE or sar_* TLVs), the part to put
 * together with the others (assemblies.ts).
 */
import type { ShiftTable } from '../domain/gsm-alphabet.js';
import { decodePayload, splitUdh } from '../domain/sms-decoding.js';
import { messageBytes, numberField, stringField } from '../smpp/smpp-wire.js';
import type { Pdu } from '../smpp/smpp-wire.js';
import { CommandStatus } from './status-map.js';

export interface SubmitRequest {
  /** The /sms/send body (without api_key: the bind is the key). */
  body: { sentto: string; title: string; text: string; sms_lang: number };
  sourceAddr: string;
  /** registered_delivery asked for a receipt. */
  receipt: boolean;
  /** One part of a concatenated message: `body.text` is then empty until the parts are put together. */
  part?: { reference: number; total: number; seq: number; payload: Buffer; table: ShiftTable; dataCoding: number };
}

export type SubmitRead = { ok: true; request: SubmitRequest } | { ok: false; status: number };

/** Parts of one concatenated message at most (the API's 2,000 characters are 30 UCS-2 parts). */
export const maxConcatParts = 32;

/** data_coding 8 is UCS-2 (sms_lang 2); the 7-bit and Latin-1 codings go as sms_lang 1 (GSM, Turkish shift when needed). */
function langOf(dataCoding: number): number {
  return dataCoding === 0x08 ? 2 : 1;
}

/** 8-bit binary data (data_coding 2, 4, or the 0xF4 class) is not text: the API sends text. */
function isBinary(dataCoding: number): boolean {
  return dataCoding === 0x02 || dataCoding === 0x04 || (dataCoding & 0xf4) === 0xf4;
}

export function readSubmit(pdu: Pdu): SubmitRead {
  const dataCoding = numberField(pdu, 'data_coding') ?? 0;
  const esmClass = numberField(pdu, 'esm_class') ?? 0;
  if (isBinary(dataCoding)) return { ok: false, status: CommandStatus.RSUBMITFAIL };
  const schedule = stringField(pdu, 'schedule_delivery_time') ?? '';
  if (schedule !== '') return { ok: false, status: CommandStatus.RINVSCHED };
  const { table, concat: udhConcat, payload } = splitUdh(messageBytes(pdu), esmClass);
  const sarTotal = numberField(pdu, 'sar_total_segments');
  const sar =
    sarTotal === undefined
      ? undefined
      : {
          reference: numberField(pdu, 'sar_msg_ref_num') ?? -1,
          total: sarTotal,
          seq: numberField(pdu, 'sar_segment_seqnum') ?? -1,
        };
  const concat = udhConcat ?? sar;
  if (concat && (concat.total < 1 || concat.seq < 1 || concat.seq > concat.total || concat.reference < 0))
    return { ok: false, status: udhConcat ? CommandStatus.RINVESMCLASS : CommandStatus.RINVOPTPARVAL };
  if (concat && concat.total > maxConcatParts) return { ok: false, status: CommandStatus.RINVMSGLEN };
  const sourceAddr = stringField(pdu, 'source_addr') ?? '';
  const destination = (stringField(pdu, 'destination_addr') ?? '').replace(/^\+/, '');
  const many = concat !== undefined && concat.total > 1;
  return {
    ok: true,
    request: {
      body: {
        sentto: destination,
        title: sourceAddr,
        text: many ? '' : decodePayload(payload, dataCoding, table),
        sms_lang: langOf(dataCoding),
      },
      sourceAddr,
      receipt: ((numberField(pdu, 'registered_delivery') ?? 0) & 0x03) !== 0,
      ...(many ? { part: { ...concat, payload, table, dataCoding } } : {}),
    },
  };
}
