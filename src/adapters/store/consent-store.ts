/**
 * Consents for commercial messages (migrations 0024, 0028, 0031) on either dialect: see
 * src/ports/consent-store.ts. One file, long because the three things it does
 * read and write the same rows under one rule (the newest consent date wins, a version
 * guard on each sync outcome): recording, the commercial filter's lookup (with its index in
 * memory, consent-index.ts), the sync queue of the İYS sync job, and the panel's reads
 * (a number's records, an export's pages, the RETs by reply).
 */
import { sql } from 'kysely';
import type { IysConsentsTable, IysSettingsTable } from './schema-panel.js';
import { StorePart } from './store-part.js';
import type {
  ConsentEntry,
  ConsentKey,
  ConsentOrigin,
  ConsentStore,
  ConsentToSync,
  IysSettings,
  IysSettingsPatch,
  SyncOutcome,
  SyncState,
  SyncSummary,
} from '../../ports/consent-store.js';
import { consentMark } from '../../domain/iys.js';
import type { Consent, ConsentMarks, ConsentStatus, RecipientType } from '../../domain/iys.js';
import { ConsentIndexes } from './consent-index.js';
import type { ConsentIndexOptions } from './consent-index.js';

/** Recipients per lookup statement: well inside both dialects' bound-parameter limits. */
const lookupChunk = 2000;
/** Rows per upsert statement (12 parameters a row). */
const writeChunk = 400;

const keyOf = (type: string, recipient: string): string => `${type}|${recipient}`;

function toConsent(
  row: Pick<IysConsentsTable, 'recipient' | 'recipient_type' | 'status' | 'source' | 'consent_date'>,
): Consent {
  return {
    recipient: row.recipient,
    recipientType: row.recipient_type as RecipientType,
    status: row.status as ConsentStatus,
    source: row.source,
    consentDate: Number(row.consent_date),
  };
}

function toEntry(
  row: Pick<
    IysConsentsTable,
    'recipient' | 'recipient_type' | 'status' | 'source' | 'consent_date' | 'recorded_at' | 'sync_state' | 'sync_error'
  >,
): ConsentEntry {
  return {
    ...toConsent(row),
    recordedAt: Number(row.recorded_at),
    syncState: row.sync_state as SyncState,
    syncError: row.sync_error,
  };
}

function toSettings(r: IysSettingsTable): IysSettings {
  return {
    accountId: r.account_id,
    iysCode: r.iys_code,
    brandCode: r.brand_code,
    url: r.url,
    username: r.username,
    passwordSecret: r.password_secret,
    retWords: r.ret_words,
    refuseTextRules: Number(r.refuse_text_rules) === 1,
    updatedAt: Number(r.updated_at),
  };
}

export class SqlConsentStore extends StorePart implements ConsentStore {
  /** The consent indexes of this connection (made at the first large commercial send outside a transaction). */
  private indexes: ConsentIndexes | null = null;

  async record(
    accountId: number,
    consents: readonly Consent[],
    now: number,
    origin: ConsentOrigin = 'local',
  ): Promise<boolean[]> {
    if (consents.length === 0) return [];
    return this.transact(async (self) => {
      const inForce = new Map<string, number>();
      for (const type of new Set(consents.map((c) => c.recipientType))) {
        const recipients = [...new Set(consents.filter((c) => c.recipientType === type).map((c) => c.recipient))];
        for (let start = 0; start < recipients.length; start += lookupChunk) {
          const rows = await self.db
            .selectFrom('iys_consents')
            .select(['recipient', 'consent_date'])
            .where('account_id', '=', accountId)
            .where('recipient_type', '=', type)
            .where('recipient', 'in', recipients.slice(start, start + lookupChunk))
            .execute();
          for (const r of rows) inForce.set(keyOf(type, r.recipient), Number(r.consent_date));
        }
      }
      const taken: boolean[] = [];
      const winners = new Map<string, Consent>();
      for (const c of consents) {
        const key = keyOf(c.recipientType, c.recipient);
        const current = inForce.get(key);
        if (current !== undefined && c.consentDate < current) {
          taken.push(false);
          continue;
        }
        inForce.set(key, c.consentDate);
        winners.set(key, c);
        taken.push(true);
      }
      const rows = [...winners.values()].map((c) => ({
        account_id: accountId,
        recipient_type: c.recipientType,
        recipient: c.recipient,
        status: c.status,
        source: c.source,
        consent_date: c.consentDate,
        recorded_at: now,
        // Ours are pushed to İYS by the sync; what came from İYS is not pushed back.
        sync_state: origin === 'iys' ? 'from_iys' : 'pending',
        sync_attempts: 0,
        sync_due_at: origin === 'iys' ? null : now,
        synced_at: null,
        sync_error: null,
      }));
      for (let start = 0; start < rows.length; start += writeChunk) {
        await self.db
          .insertInto('iys_consents')
          .values(rows.slice(start, start + writeChunk))
          .onConflict((oc) =>
            oc.columns(['account_id', 'recipient_type', 'recipient']).doUpdateSet((eb) => ({
              status: eb.ref('excluded.status'),
              source: eb.ref('excluded.source'),
              consent_date: eb.ref('excluded.consent_date'),
              recorded_at: eb.ref('excluded.recorded_at'),
              sync_state: eb.ref('excluded.sync_state'),
              sync_attempts: eb.ref('excluded.sync_attempts'),
              sync_due_at: eb.ref('excluded.sync_due_at'),
              synced_at: eb.ref('excluded.synced_at'),
              sync_error: eb.ref('excluded.sync_error'),
            })),
          )
          .execute();
      }
      return taken;
    });
  }

  async find(accountId: number, recipient: string, type: RecipientType): Promise<Consent | null> {
    const row = await this.db
      .selectFrom('iys_consents')
      .select(['recipient', 'recipient_type', 'status', 'source', 'consent_date'])
      .where('account_id', '=', accountId)
      .where('recipient_type', '=', type)
      .where('recipient', '=', recipient)
      .executeTakeFirst();
    return row ? toConsent(row) : null;
  }

  async statusesOf(accountId: number, type: RecipientType, recipients: readonly string[]): Promise<ConsentMarks> {
    if (recipients.length === 0) return new Uint8Array(0);
    // A large send outside a transaction reads the account's index in memory, when fresh.
    if (!this.db.isTransaction) {
      this.indexes ??= new ConsentIndexes();
      const fromMemory = await this.indexes.statuses(accountId, type, recipients, {
        version: () => this.versionOf(accountId),
        page: (after, limit) => this.pageOf(accountId, type, after, limit),
      });
      if (fromMemory) return fromMemory;
    }
    return this.probe(accountId, type, recipients);
  }

  /** Replaces this connection's consent indexes (tests, the bench: other bounds). */
  indexWith(options: Partial<ConsentIndexOptions>): ConsentIndexes {
    this.indexes = new ConsentIndexes(options);
    return this.indexes;
  }

  private async probe(accountId: number, type: RecipientType, recipients: readonly string[]): Promise<ConsentMarks> {
    // One statement, the numbers one bound parameter: an index probe each, nothing compiled per number.
    const rows = await this.db
      .selectFrom('iys_consents')
      .select(['recipient', 'status'])
      .where('account_id', '=', accountId)
      .where('recipient_type', '=', type)
      .where('recipient', 'in', this.sql.textList(recipients))
      .execute();
    const found = new Map<string, number>();
    for (const r of rows) found.set(r.recipient, r.status === 'RET' ? consentMark.ret : consentMark.onay);
    return Uint8Array.from(recipients, (r) => found.get(r) ?? consentMark.none);
  }

  private async versionOf(accountId: number): Promise<string> {
    const row = await this.db
      .selectFrom('iys_consent_versions')
      .select('n')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return String(row?.n ?? 0);
  }

  private pageOf(
    accountId: number,
    type: RecipientType,
    after: string | null,
    limit: number,
  ): Promise<{ recipient: string; status: string }[]> {
    let query = this.db
      .selectFrom('iys_consents')
      .select(['recipient', 'status'])
      .where('account_id', '=', accountId)
      .where('recipient_type', '=', type);
    if (after !== null) query = query.where('recipient', '>', after);
    return query.orderBy('recipient').limit(limit).execute();
  }

  async entriesOf(accountId: number, recipient: string): Promise<ConsentEntry[]> {
    const rows = await this.entries(accountId).where('recipient', '=', recipient).orderBy('recipient_type').execute();
    return rows.map(toEntry);
  }

  async entriesAfter(accountId: number, after: ConsentKey | null, limit: number): Promise<ConsentEntry[]> {
    let query = this.entries(accountId);
    if (after !== null)
      query = query.where((eb) =>
        eb.or([
          eb('recipient_type', '>', after.recipientType),
          eb.and([eb('recipient_type', '=', after.recipientType), eb('recipient', '>', after.recipient)]),
        ]),
      );
    const rows = await query.orderBy('recipient_type').orderBy('recipient').limit(limit).execute();
    return rows.map(toEntry);
  }

  async retsByReply(accountId: number, limit: number): Promise<ConsentEntry[]> {
    // A RET by reply is one row per type: read twice the limit, keep the first per recipient.
    // Literals, not parameters: the partial index iys_consents_rets (migration 0031) matches them.
    const rows = await this.entries(accountId)
      .where('status', '=', sql.lit<string>('RET'))
      .where('source', '=', sql.lit<string>('HS_MESAJ'))
      .orderBy('consent_date', 'desc')
      .orderBy('recipient')
      .orderBy('recipient_type')
      .limit(limit * 2)
      .execute();
    const seen = new Set<string>();
    const out: ConsentEntry[] = [];
    for (const r of rows) {
      if (seen.has(r.recipient)) continue;
      seen.add(r.recipient);
      out.push(toEntry(r));
      if (out.length === limit) break;
    }
    return out;
  }

  private entries(accountId: number) {
    return this.db
      .selectFrom('iys_consents')
      .select([
        'recipient',
        'recipient_type',
        'status',
        'source',
        'consent_date',
        'recorded_at',
        'sync_state',
        'sync_error',
      ])
      .where('account_id', '=', accountId);
  }

  async settingsOf(accountId: number): Promise<IysSettings | null> {
    const r = await this.db
      .selectFrom('iys_settings')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return r ? toSettings(r) : null;
  }

  async syncingAccounts(): Promise<IysSettings[]> {
    const rows = await this.db
      .selectFrom('iys_settings')
      .selectAll()
      .where('url', 'is not', null)
      .orderBy('account_id')
      .execute();
    return rows.map(toSettings);
  }

  async dueForSync(accountId: number, now: number, limit: number): Promise<ConsentToSync[]> {
    const rows = await this.db
      .selectFrom('iys_consents')
      .select(['recipient', 'recipient_type', 'status', 'source', 'consent_date', 'recorded_at', 'sync_attempts'])
      .where('sync_state', '=', 'pending')
      .where('sync_due_at', '<=', now)
      .where('account_id', '=', accountId)
      .orderBy('sync_due_at')
      .orderBy('recipient')
      .orderBy('recipient_type')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      ...toConsent(r),
      recordedAt: Number(r.recorded_at),
      attempts: Number(r.sync_attempts),
    }));
  }

  async settleSync(accountId: number, outcomes: readonly SyncOutcome[], now: number): Promise<void> {
    if (outcomes.length === 0) return;
    await this.transact(async (self) => {
      for (const o of outcomes) {
        const c = o.consent;
        const changes =
          o.result === 'synced'
            ? { sync_state: 'synced', synced_at: now, sync_error: null, sync_due_at: null }
            : o.result === 'failed'
              ? { sync_state: 'failed', sync_error: o.error, sync_due_at: null }
              : { sync_error: o.error, sync_due_at: o.dueAt };
        await self.db
          .updateTable('iys_consents')
          .set({ ...changes, sync_attempts: sql<number>`sync_attempts + 1` })
          .where('account_id', '=', accountId)
          .where('recipient_type', '=', c.recipientType)
          .where('recipient', '=', c.recipient)
          // The record pushed, not one recorded since (which stays pending for its own push).
          .where('sync_state', '=', 'pending')
          .where('status', '=', c.status)
          .where('consent_date', '=', c.consentDate)
          .where('recorded_at', '=', c.recordedAt)
          .execute();
      }
    });
  }

  async syncSummary(accountId: number): Promise<SyncSummary> {
    // Counted by migration 0036's triggers; the newest error by its partial index.
    const counts = await this.db
      .selectFrom('iys_consent_sync_counts')
      .select(['sync_state', 'n'])
      .where('account_id', '=', accountId)
      .execute();
    const of = (state: string): number => Number(counts.find((c) => c.sync_state === state)?.n ?? 0);
    const last = await this.db
      .selectFrom('iys_consents')
      .select('sync_error')
      .where('account_id', '=', accountId)
      .where('sync_error', 'is not', null)
      .where('sync_state', 'in', ['pending', 'failed'])
      .orderBy('recorded_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return {
      pending: of('pending'),
      synced: of('synced'),
      failed: of('failed'),
      fromIys: of('from_iys'),
      lastError: last?.sync_error ?? null,
    };
  }

  async pullCursor(accountId: number): Promise<string | null> {
    const r = await this.db
      .selectFrom('iys_settings')
      .select('pull_cursor')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return r?.pull_cursor ?? null;
  }

  exclusively(work: () => Promise<void>): Promise<boolean> {
    return this.sql.exclusively(this.db, 'haberci.iys-sync', work);
  }

  async savePullCursor(accountId: number, cursor: string): Promise<void> {
    await this.db
      .updateTable('iys_settings')
      .set({ pull_cursor: cursor })
      .where('account_id', '=', accountId)
      .execute();
  }

  async saveSettings(accountId: number, patch: IysSettingsPatch, now: number): Promise<IysSettings> {
    return this.transact(async (self) => {
      const current = await self.settingsOf(accountId);
      const row = {
        account_id: accountId,
        iys_code: patch.iysCode,
        brand_code: patch.brandCode,
        url: patch.url !== undefined ? patch.url : (current?.url ?? null),
        username: patch.username !== undefined ? patch.username : (current?.username ?? null),
        password_secret: patch.passwordSecret !== undefined ? patch.passwordSecret : (current?.passwordSecret ?? null),
        ret_words: patch.retWords !== undefined ? patch.retWords : (current?.retWords ?? null),
        refuse_text_rules:
          patch.refuseTextRules !== undefined ? (patch.refuseTextRules ? 1 : 0) : current?.refuseTextRules ? 1 : 0,
        pull_cursor: null,
        updated_at: now,
      };
      if (current) {
        const { account_id: _id, pull_cursor: _p, ...changes } = row;
        await self.db.updateTable('iys_settings').set(changes).where('account_id', '=', accountId).execute();
      } else {
        await self.db.insertInto('iys_settings').values(row).execute();
      }
      const saved = await self.settingsOf(accountId);
      if (!saved) throw new Error('İYS settings not saved');
      return saved;
    });
  }
}
