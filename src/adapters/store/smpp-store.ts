/**
 * The store's part for customers over SMPP: SMPP users, the parts of concatenated submits
 * not yet all received, and the binds of every process. (The receipts and inbound messages
 * owed to them are rows of the outbox: outbox-store.ts.)
 *
 * One file, long because these are the tables of one aggregate (the SMPP user's, all keyed
 * by it) and the queries that join them to `messages`; the server reads them together
 * through one port (SmppStore), and a split would cut that port in pieces no caller wants.
 */
import { StorePart } from './store-part.js';
import type { SmppAssemblyPartsTable, SmppUsersTable } from './schema.js';
import type {
  AssemblyPart,
  NewSmppUser,
  PartAdded,
  SmppBind,
  SmppCredentials,
  SmppStore,
  SmppUser,
} from '../../ports/smpp-store.js';

type UserRow = Omit<SmppUsersTable, 'id'> & { id: number };

function userOf(r: UserRow): SmppUser {
  return {
    id: Number(r.id),
    keyId: r.key_id,
    accountId: r.account_id,
    systemId: r.system_id,
    maxBinds: r.max_binds,
    windowSize: r.window_size,
    maxSubmitsPerSecond: r.max_submits_per_second,
    disabledAt: r.disabled_at === null ? null : Number(r.disabled_at),
    createdAt: Number(r.created_at),
  };
}

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

export class SqlSmppStore extends StorePart implements SmppStore {
  async createUser(u: NewSmppUser, now: number): Promise<SmppUser> {
    const row = await this.db
      .insertInto('smpp_users')
      .values({
        key_id: u.keyId,
        account_id: u.accountId,
        system_id: u.systemId,
        password_hash: u.passwordHash,
        max_binds: u.maxBinds,
        window_size: u.windowSize,
        max_submits_per_second: u.maxSubmitsPerSecond,
        disabled_at: null,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return userOf(row);
  }

  async credentials(systemId: string): Promise<SmppCredentials | null> {
    const row = await this.db
      .selectFrom('smpp_users as u')
      .innerJoin('api_keys as k', 'k.id', 'u.key_id')
      .selectAll('u')
      .select('k.key_hash')
      .where('u.system_id', '=', systemId)
      .executeTakeFirst();
    return row ? { user: userOf(row), passwordHash: row.password_hash, keyHash: row.key_hash } : null;
  }

  async getUser(id: number): Promise<SmppUser | null> {
    const row = await this.db.selectFrom('smpp_users').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? userOf(row) : null;
  }

  async users(accountId: number): Promise<SmppUser[]> {
    const rows = await this.db
      .selectFrom('smpp_users')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    return rows.map(userOf);
  }

  async disableUser(id: number, now: number): Promise<SmppUser | null> {
    await this.db
      .updateTable('smpp_users')
      .set({ disabled_at: now })
      .where('id', '=', id)
      .where('disabled_at', 'is', null)
      .execute();
    return this.getUser(id);
  }

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

  async claimBind(bind: SmppBind, maxBinds: number, now: number, expiresAt: number): Promise<boolean> {
    return this.transact(async (self) => {
      const db = self.db;
      // The user's row lock orders binds of one user arriving at several processes at once.
      await self.sql.forUpdate(db.selectFrom('smpp_users').select('id').where('id', '=', bind.smppUserId)).execute();
      await db
        .deleteFrom('smpp_binds')
        .where('smpp_user_id', '=', bind.smppUserId)
        .where('expires_at', '<=', now)
        .execute();
      const live = await db
        .selectFrom('smpp_binds')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('smpp_user_id', '=', bind.smppUserId)
        .executeTakeFirst();
      if (Number(live?.n ?? 0) >= maxBinds) return false;
      await db
        .insertInto('smpp_binds')
        .values({
          session_id: bind.sessionId,
          smpp_user_id: bind.smppUserId,
          account_id: bind.accountId,
          system_id: bind.systemId,
          process: bind.process,
          peer: bind.peer,
          bind_type: bind.bindType,
          bound_at: bind.boundAt,
          expires_at: expiresAt,
        })
        .execute();
      return true;
    });
  }

  async renewBinds(sessionIds: readonly string[], now: number, expiresAt: number): Promise<void> {
    if (sessionIds.length > 0)
      await this.db
        .updateTable('smpp_binds')
        .set({ expires_at: expiresAt })
        .where('session_id', 'in', [...sessionIds])
        .execute();
    await this.db.deleteFrom('smpp_binds').where('expires_at', '<=', now).execute();
  }

  async releaseBinds(sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length === 0) return;
    await this.db
      .deleteFrom('smpp_binds')
      .where('session_id', 'in', [...sessionIds])
      .execute();
  }

  async liveBinds(now: number): Promise<SmppBind[]> {
    const rows = await this.db
      .selectFrom('smpp_binds')
      .selectAll()
      .where('expires_at', '>', now)
      .orderBy('system_id')
      .orderBy('bound_at')
      .limit(10_000)
      .execute();
    return rows.map((r) => ({
      sessionId: r.session_id,
      smppUserId: r.smpp_user_id,
      accountId: r.account_id,
      systemId: r.system_id,
      process: r.process,
      peer: r.peer,
      bindType: r.bind_type === 'transmitter' || r.bind_type === 'receiver' ? r.bind_type : 'transceiver',
      boundAt: Number(r.bound_at),
    }));
  }
}
