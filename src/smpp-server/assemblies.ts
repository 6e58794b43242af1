/**
 * Concatenated submits put back together (docs/smpp.md, "Concatenated submits"). The parts
 * of one message (UDH concatenation IE with an 8- or 16-bit reference, or the sar_* TLVs)
 * are kept in the store per SMPP user (services/smpp/concatenated-parts.ts), keyed by source,
 * destination, data_coding, reference and total, so parts sent through binds to different
 * processes, or across a restart, still make one message. When the last part arrives, the
 * payloads are joined and decoded once here, so a GSM escape or a UTF-16 surrogate pair split
 * across parts reads right.
 */
import type { AssemblyPart } from '../services/smpp/concatenated-parts.js';
import { decodePayload } from '../domain/sms-decoding.js';

/** The text of a complete message: its parts' payloads in sequence order, decoded together. */
export function assembleText(parts: readonly AssemblyPart[]): string {
  const ordered = [...parts].sort((a, b) => a.seq - b.seq);
  const dataCoding = ordered[0]?.dataCoding ?? 0;
  const table = ordered.some((p) => p.turkish) ? 'turkish' : 'default';
  return decodePayload(Buffer.concat(ordered.map((p) => p.payload)), dataCoding, table);
}

/**
 * The schedule of a complete message: the latest instant any of its parts asked for (so no
 * part is sent before its schedule_delivery_time), or null when none asked for one.
 */
export function assembledSchedule(parts: readonly AssemblyPart[]): number | null {
  let at: number | null = null;
  for (const p of parts) if (p.scheduledAt !== null && (at === null || p.scheduledAt > at)) at = p.scheduledAt;
  return at;
}
