/**
 * Concatenated submits put back together (docs/smpp.md, "Concatenated submits"): the parts
 * of one message (UDH concatenation IE with an 8- or 16-bit reference, or the sar_* TLVs)
 * are kept per SMPP user in this process, keyed by source, destination, data_coding,
 * reference and total, until every part arrived; the payloads are then joined and decoded
 * once (so an escape or a surrogate pair split across parts reads right). Bounded: at most
 * `maxPending` unfinished assemblies a user (parts a message: submit-read.ts), and an assembly
 * not finished within `timeoutMs` is given up (its parts' receipts say REJECTD).
 */
import type { ShiftTable } from '../domain/gsm-alphabet.js';
import { decodePayload } from '../domain/sms-decoding.js';

export interface Part {
  seq: number;
  payload: Buffer;
  /** The UDH announced the Turkish single shift table. */
  table: ShiftTable;
  /** The message_id this part was (or will be) answered with. */
  partId: string;
  /** registered_delivery asked for a receipt. */
  receipt: boolean;
  at: number;
}

export interface Assembly {
  userId: number;
  reference: number;
  sourceAddr: string;
  destination: string;
  dataCoding: number;
  total: number;
  parts: Map<number, Part>;
  startedAt: number;
}

export interface AssemblyLimits {
  maxPending: number;
  timeoutMs: number;
}

export type Added =
  /** Waiting for more parts: answer the part with its own id. */
  | { kind: 'pending'; partId: string }
  /** Every part is here: the text, and the parts other than the one just added. */
  | { kind: 'complete'; text: string; assembly: Assembly; others: Part[] }
  /** Too many unfinished assemblies for the user. */
  | { kind: 'full' };

export interface PartIn {
  userId: number;
  sourceAddr: string;
  destination: string;
  dataCoding: number;
  reference: number;
  total: number;
  part: Part;
}

function keyOf(
  a: Pick<Assembly, 'userId' | 'sourceAddr' | 'destination' | 'dataCoding' | 'reference' | 'total'>,
): string {
  return [a.userId, a.sourceAddr, a.destination, a.dataCoding, a.reference, a.total].join('\u0000');
}

export class Assemblies {
  private readonly open = new Map<string, Assembly>();
  private readonly perUser = new Map<number, number>();

  constructor(private readonly limits: AssemblyLimits) {}

  get size(): number {
    return this.open.size;
  }

  add(p: PartIn): Added {
    const key = keyOf(p);
    let assembly = this.open.get(key);
    if (!assembly) {
      const pending = this.perUser.get(p.userId) ?? 0;
      if (pending >= this.limits.maxPending) return { kind: 'full' };
      assembly = {
        reference: p.reference,
        userId: p.userId,
        sourceAddr: p.sourceAddr,
        destination: p.destination,
        dataCoding: p.dataCoding,
        total: p.total,
        parts: new Map(),
        startedAt: p.part.at,
      };
      this.open.set(key, assembly);
      this.perUser.set(p.userId, pending + 1);
    }
    // A part sent again (its answer was lost) keeps the id it was first answered with.
    const before = assembly.parts.get(p.part.seq);
    const part = before ? { ...p.part, partId: before.partId, receipt: before.receipt || p.part.receipt } : p.part;
    assembly.parts.set(part.seq, part);
    if (assembly.parts.size < assembly.total) return { kind: 'pending', partId: part.partId };
    this.remove(key, assembly);
    const ordered = [...assembly.parts.values()].sort((a, b) => a.seq - b.seq);
    const table: ShiftTable = ordered.some((x) => x.table === 'turkish') ? 'turkish' : 'default';
    const text = decodePayload(Buffer.concat(ordered.map((x) => x.payload)), assembly.dataCoding, table);
    return { kind: 'complete', text, assembly, others: ordered.filter((x) => x.seq !== part.seq) };
  }

  /**
   * Puts a completed message back without its part `seq`: the API refused it for now
   * (throttled), so the client sends that part again and completes it then. The time-out
   * still runs from the first part. False when the user has no room left for it.
   */
  putBack(assembly: Assembly, seq: number): boolean {
    const key = keyOf(assembly);
    if (this.open.has(key)) return false;
    const pending = this.perUser.get(assembly.userId) ?? 0;
    if (pending >= this.limits.maxPending) return false;
    const parts = new Map([...assembly.parts].filter(([n]) => n !== seq));
    this.open.set(key, { ...assembly, parts });
    this.perUser.set(assembly.userId, pending + 1);
    return true;
  }

  /** The assemblies unfinished for `timeoutMs` since their first part, removed. */
  expire(now: number): Assembly[] {
    const out: Assembly[] = [];
    for (const [key, assembly] of this.open)
      if (now - assembly.startedAt >= this.limits.timeoutMs) {
        this.remove(key, assembly);
        out.push(assembly);
      }
    return out;
  }

  /** Every unfinished assembly, removed (the server stops). */
  drain(): Assembly[] {
    const out = [...this.open.values()];
    this.open.clear();
    this.perUser.clear();
    return out;
  }

  private remove(key: string, assembly: Assembly): void {
    this.open.delete(key);
    const left = (this.perUser.get(assembly.userId) ?? 1) - 1;
    if (left <= 0) this.perUser.delete(assembly.userId);
    else this.perUser.set(assembly.userId, left);
  }
}
