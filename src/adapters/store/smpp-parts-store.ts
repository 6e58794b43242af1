/**
 * The parts of concatenated submits not yet all received (src/ports/smpp-parts.ts): a row per
 * message being put together (`smpp_assemblies`, its count of parts) and a row per part.
 */
import { StorePart } from './store-part.js';
import type { SmppAssemblyPartsTable } from './schema.js';
import type { AssemblyPart, PartAdded, SmppPartStore } from '../../ports/smpp-parts.js';

/** The parts of one message share it: source, destination, data_coding, reference and total. */
function assemblyKey(
  p: Pick<AssemblyPart, 'sourceAddr' | 'destination' | 'dataCoding' | 'reference' | 'total'>,
): string {
  return JSON.stringify([p.sourceAddr, p.destination, p.dataCoding, p.reference, p.total]);
}

function partRow(p: AssemblyPart): Omit<SmppAssemblyPartsTable, never> {
  return {
    smpp_user_id: p.smppUserId,
    assembly_key: assemblyKey(p),
    seq: p.seq,
    total: p.total,
    source_addr: p.sourceAddr,
    destination: p.destination,
    data_coding: p.dataCoding,
    payload_hex: p.payload.toString('hex'),
    turkish: p.turkish ? 1 : 0,
    part_id: p.partId,
    receipt: p.receipt ? 1 : 0,
    received_at: p.receivedAt,
    scheduled_at: p.scheduledAt,
  };
}

function partOf(r: SmppAssemblyPartsTable): AssemblyPart {
  const key = JSON.parse(r.assembly_key) as [string, string, number, number, number];
  return {
    smppUserId: r.smpp_user_id,
    sourceAddr: r.source_addr,
    destination: r.destination,
    dataCoding: r.data_coding,
    reference: key[3],
    total: r.total,
    seq: r.seq,
    payload: Buffer.from(r.payload_hex, 'hex'),
    turkish: r.turkish === 1,
    partId: r.part_id,
    receipt: r.receipt === 1,
    receivedAt: Number(r.received_at),
    scheduledAt: r.scheduled_at === null ? null : Number(r.scheduled_at),
  };
}

export class SqlSmppPartStore extends StorePart implements SmppPartStore {
  async addAssemblyPart(input: Omit<AssemblyPart, 'partId'>, maxPending: number): Promise<PartAdded> {
    const key = assemblyKey(input);
    return this.transact(async (self) => {
      const db = self.db;
      const started = await db
        .selectFrom('smpp_assemblies')
        .select('parts')
        .where('smpp_user_id', '=', input.smppUserId)
        .where('assembly_key', '=', key)
        .executeTakeFirst();
      if (!started) {
        const pending = await db
          .selectFrom('smpp_assemblies')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('smpp_user_id', '=', input.smppUserId)
          .executeTakeFirst();
        if (Number(pending?.n ?? 0) >= maxPending) return { kind: 'full' };
        await db
          .insertInto('smpp_assemblies')
          .values({ smpp_user_id: input.smppUserId, assembly_key: key, parts: 0, started_at: input.receivedAt })
          .onConflict((oc) => oc.columns(['smpp_user_id', 'assembly_key']).doNothing())
          .execute();
      }
      const [id = 0] = await self.sql.allocateIds(db, 1);
      const part: AssemblyPart = { ...input, partId: String(id) };
      const inserted = await db
        .insertInto('smpp_assembly_parts')
        .values(partRow(part))
        .onConflict((oc) => oc.columns(['smpp_user_id', 'assembly_key', 'seq']).doNothing())
        .returning('seq')
        .executeTakeFirst();
      if (!inserted) {
        // Sent again: answered with the id it was first given.
        const first = await db
          .selectFrom('smpp_assembly_parts')
          .select('part_id')
          .where('smpp_user_id', '=', part.smppUserId)
          .where('assembly_key', '=', key)
          .where('seq', '=', part.seq)
          .executeTakeFirstOrThrow();
        return { kind: 'pending', partId: first.part_id };
      }
      // The count's row lock orders processes adding parts of one message at once: one of them sees the total.
      const counted = await db
        .updateTable('smpp_assemblies')
        .set((eb) => ({ parts: eb('parts', '+', 1) }))
        .where('smpp_user_id', '=', part.smppUserId)
        .where('assembly_key', '=', key)
        .returning('parts')
        .executeTakeFirstOrThrow();
      if (counted.parts < part.total) return { kind: 'pending', partId: part.partId };
      const rows = await db
        .deleteFrom('smpp_assembly_parts')
        .where('smpp_user_id', '=', part.smppUserId)
        .where('assembly_key', '=', key)
        .returningAll()
        .execute();
      await db
        .deleteFrom('smpp_assemblies')
        .where('smpp_user_id', '=', part.smppUserId)
        .where('assembly_key', '=', key)
        .execute();
      return { kind: 'complete', parts: rows.map(partOf).sort((a, b) => a.seq - b.seq) };
    });
  }

  async restoreAssembly(parts: readonly AssemblyPart[]): Promise<boolean> {
    const first = parts[0];
    if (!first) return true;
    const key = assemblyKey(first);
    return this.transact(async (self) => {
      const made = await self.db
        .insertInto('smpp_assemblies')
        .values({
          smpp_user_id: first.smppUserId,
          assembly_key: key,
          parts: parts.length,
          started_at: Math.min(...parts.map((p) => p.receivedAt)),
        })
        .onConflict((oc) => oc.columns(['smpp_user_id', 'assembly_key']).doNothing())
        .returning('parts')
        .executeTakeFirst();
      if (!made) return false;
      await self.db.insertInto('smpp_assembly_parts').values(parts.map(partRow)).execute();
      return true;
    });
  }

  async expiredAssemblies(before: number): Promise<AssemblyPart[][]> {
    const old = await this.db
      .selectFrom('smpp_assemblies')
      .select(['smpp_user_id', 'assembly_key'])
      .where('started_at', '<', before)
      .orderBy('started_at')
      .limit(1000)
      .execute();
    const out: AssemblyPart[][] = [];
    for (const a of old) {
      const parts = await this.transact(async (self) => {
        // Taken by whichever process deletes the row first.
        const gone = await self.db
          .deleteFrom('smpp_assemblies')
          .where('smpp_user_id', '=', a.smpp_user_id)
          .where('assembly_key', '=', a.assembly_key)
          .where('started_at', '<', before)
          .executeTakeFirst();
        if (Number(gone.numDeletedRows) === 0) return [];
        const rows = await self.db
          .deleteFrom('smpp_assembly_parts')
          .where('smpp_user_id', '=', a.smpp_user_id)
          .where('assembly_key', '=', a.assembly_key)
          .returningAll()
          .execute();
        return rows.map(partOf).sort((x, y) => x.seq - y.seq);
      });
      if (parts.length > 0) out.push(parts);
    }
    return out;
  }
}
