/**
 * A customer's submit_sm read as the /sms/send request it stands for: one recipient, the
 * source address as the sender ID (title), the text decoded from its data_coding, the
 * schedule_delivery_time as the send's schedule; or, for one part of a concatenated message
 * (UDH concatenation IE or sar_* TLVs), the part to put together with the others (assemblies.ts).
 */
import type { ShiftTable } from '../domain/gsm-alphabet.js';
import { decodePayload, splitUdh } from '../domain/sms-decoding.js';
import { scheduleFieldsAt } from '../domain/schedule.js';
import { smppSchedule } from '../domain/smpp-time.js';
import { messageBytes, numberField, stringField } from '../smpp/smpp-wire.js';
import type { Pdu } from '../smpp/smpp-wire.js';
import { CommandStatus } from './status-map.js';

export interface SubmitRequest {
  /** The /sms/send body (without api_key: the bind is the key). */
  body: { sentto: string; title: string; text: string; sms_lang: number };
  sourceAddr: string;
  /** registered_delivery asked for a receipt. */
  receipt: boolean;
  /** schedule_delivery_time: not before this instant; null: now. */
  scheduledAt: number | null;
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

/** `now`: the instant a relative schedule_delivery_time counts from, and past which one is refused. */
export function readSubmit(pdu: Pdu, now: number): SubmitRead {
  const dataCoding = numberField(pdu, 'data_coding') ?? 0;
  const esmClass = numberField(pdu, 'esm_class') ?? 0;
  if (isBinary(dataCoding)) return { ok: false, status: CommandStatus.RSUBMITFAIL };
  // Malformed, or further in the past than the grace: refused here, so a part of a
  // concatenated message is refused at once rather than when the message is complete.
  const schedule = smppSchedule(stringField(pdu, 'schedule_delivery_time') ?? '', now);
  if (!schedule.ok) return { ok: false, status: CommandStatus.RINVSCHED };
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
      scheduledAt: schedule.at,
      ...(many ? { part: { ...concat, payload, table, dataCoding } } : {}),
    },
  };
}

/**
 * The /sms/send body of a submit, or of a message put together from parts (`text` then the
 * joined text), with the schedule as the API's fields. A schedule less than a second ahead
 * of `now` is sent now: the API schedules to the second and refuses one that is not ahead
 * when it checks (a few milliseconds later). One that came due meanwhile (the parts took
 * that long) is sent now too.
 */
export function sendBody(
  request: SubmitRequest,
  text: string,
  scheduledAt: number | null,
  now: number,
): Record<string, unknown> {
  const later = scheduledAt !== null && scheduledAt - now >= 1000;
  return { ...request.body, text, ...(later ? scheduleFieldsAt(scheduledAt) : {}) };
}
