import { septetsOf } from './gsm-alphabet.js';
import type { ShiftTable } from './gsm-alphabet.js';

/**
 * Wire encoding of one SMS for SMPP submit_sm: character set, concatenation and the
 * Turkish single shift.
 *
 * - lang 0: GSM 7-bit default alphabet and extension table.
 * - lang 1: as lang 0 when that suffices; otherwise GSM 7-bit with the Turkish single
 *   shift table, announced by UDH IE 0x24 value 0x01 in every part.
 * - lang 2: UCS-2 (UTF-16BE; a character outside the BMP is two code units).
 * - A character the chosen 7-bit tables cannot carry sends the whole message as UCS-2,
 *   so nothing is replaced or lost.
 *
 * 7-bit parts carry unpacked septets (one per octet, data_coding 0, as SMPP usually
 * does); capacities are still those of the packed air interface, where a UDH of n octets
 * takes ceil(8n/7) septets of the 160.
 */

export type SmsLang = 0 | 1 | 2;

export interface EncodedSms {
  /** 0: SMSC default alphabet (GSM 7-bit); 8: UCS-2. */
  dataCoding: number;
  /** short_message of each part, UDH included. */
  parts: Buffer[];
  /** 0x40 (UDH indicator) when the parts carry a UDH, else 0. */
  esmClass: number;
}

export const DATA_CODING_GSM7 = 0x00;
export const DATA_CODING_UCS2 = 0x08;
export const ESM_CLASS_UDHI = 0x40;

/** Concatenated SMS with an 8-bit reference: IE 0x00, length 3 (ref, total, seq). */
const CONCAT_IE_OCTETS = 5;
/** National language single shift: IE 0x24, length 1, value 0x01 (Turkish). */
const TURKISH_SHIFT_IE = [0x24, 0x01, 0x01] as const;
const MAX_OCTETS = 140;
const MAX_PARTS = 255;

type Plan = { kind: 'gsm7'; table: ShiftTable; units: number[][] } | { kind: 'ucs2'; units: number[][] };

/** One unit per character: its septets, or its UTF-16 code units; never split across parts. */
function gsmUnits(text: string, table: ShiftTable): number[][] | undefined {
  const units: number[][] = [];
  for (const char of text) {
    const septets = septetsOf(char, table);
    if (septets === undefined) return undefined;
    units.push(septets);
  }
  return units;
}

function ucs2Units(text: string): number[][] {
  const units: number[][] = [];
  for (const char of text) {
    const codeUnits: number[] = [];
    for (let i = 0; i < char.length; i++) codeUnits.push(char.charCodeAt(i));
    units.push(codeUnits);
  }
  return units;
}

function plan(text: string, lang: SmsLang): Plan {
  if (lang !== 2) {
    const plain = gsmUnits(text, 'default');
    if (plain) return { kind: 'gsm7', table: 'default', units: plain };
    const turkish = lang === 1 ? gsmUnits(text, 'turkish') : undefined;
    if (turkish) return { kind: 'gsm7', table: 'turkish', units: turkish };
  }
  return { kind: 'ucs2', units: ucs2Units(text) };
}

/** Units (septets or UCS-2 code units) that fit in one part beside a UDH of `udhOctets`. */
export function partCapacity(kind: 'gsm7' | 'ucs2', udhOctets: number): number {
  if (kind === 'ucs2') return Math.floor((MAX_OCTETS - udhOctets) / 2);
  return Math.floor((MAX_OCTETS * 8) / 7) - Math.ceil((udhOctets * 8) / 7);
}

/** Length of the UDH (UDHL octet included), 0 when there is none. */
function udhLength(concatenated: boolean, turkish: boolean): number {
  const ies = (concatenated ? CONCAT_IE_OCTETS : 0) + (turkish ? TURKISH_SHIFT_IE.length : 0);
  return ies === 0 ? 0 : ies + 1;
}

/** Greedy split by whole units: a part never ends inside an ESC pair or a surrogate pair. */
function split(units: number[][], single: number, multi: number): number[][][] {
  const size = (us: number[][]): number => us.reduce((n, u) => n + u.length, 0);
  if (size(units) <= single) return [units];
  const parts: number[][][] = [];
  let current: number[][] = [];
  let used = 0;
  for (const unit of units) {
    if (used + unit.length > multi) {
      parts.push(current);
      current = [];
      used = 0;
    }
    current.push(unit);
    used += unit.length;
  }
  parts.push(current);
  return parts;
}

function udh(reference: number, total: number, seq: number, turkish: boolean): number[] {
  const ies: number[] = [];
  if (total > 1) ies.push(0x00, 0x03, reference & 0xff, total, seq);
  if (turkish) ies.push(...TURKISH_SHIFT_IE);
  return ies.length === 0 ? [] : [ies.length, ...ies];
}

function body(kind: 'gsm7' | 'ucs2', units: number[][]): number[] {
  const flat = units.flat();
  if (kind === 'gsm7') return flat;
  return flat.flatMap((cu) => [cu >> 8, cu & 0xff]);
}

/**
 * Encodes a text for submit_sm. `reference` (0..255) ties the parts of one message
 * together; callers vary it between messages to the same recipient.
 * Throws RangeError past 255 parts, which the spec's 2,000-character limit never reaches.
 */
export function encodeForSubmit(text: string, lang: SmsLang, reference: number): EncodedSms {
  const p = plan(text, lang);
  const turkish = p.kind === 'gsm7' && p.table === 'turkish';
  const single = partCapacity(p.kind, udhLength(false, turkish));
  const multi = partCapacity(p.kind, udhLength(true, turkish));
  const chunks = split(p.units, single, multi);
  if (chunks.length > MAX_PARTS)
    throw new RangeError(`text needs ${chunks.length} parts; at most ${MAX_PARTS} can be concatenated`);
  const parts = chunks.map((chunk, i) =>
    Buffer.from([...udh(reference, chunks.length, i + 1, turkish), ...body(p.kind, chunk)]),
  );
  const hasUdh = chunks.length > 1 || turkish;
  return {
    dataCoding: p.kind === 'gsm7' ? DATA_CODING_GSM7 : DATA_CODING_UCS2,
    parts,
    esmClass: hasUdh ? ESM_CLASS_UDHI : 0,
  };
}
