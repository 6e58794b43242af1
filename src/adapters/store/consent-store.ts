/** Consents for commercial messages (migration 0024) on either dialect: see src/ports/consent-store.ts. */
import type { Kysely } from 'kysely';
import { StorePart } from './store-part.js';
import type { PartContext } from './store-part.js';
import type { ConsentStore } from '../../ports/consent-store.js';
import type { Consent, ConsentStatus, RecipientType } from '../../domain/iys.js';

export interface IysConsentsTable {
  account_id: number;
  recipient_type: string;
  recipient: string;
  status: string;
  source: string;
  consent_date: number;
  recorded_at: number;
  sync_state: string;
  sync_attempts: number;
  sync_due_at: number | null;
  synced_at: number | null;
  sync_error: string | null;
}

export type ConsentDb = Kysely<{ iys_consents: IysConsentsTable }>;

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

export class SqlConsentStore extends StorePart implements ConsentStore {
  private readonly tables: ConsentDb;

  constructor(context: PartContext) {
    super(context);
    // Declared here, not in the shared schema: the İYS parts alone use the table.
    this.tables = context.db as unknown as ConsentDb;
  }

  async record(accountId: number, consents: readonly Consent[], now: number): Promise<boolean[]> {
    if (consents.length === 0) return [];
    return this.transact(async (self) => {
      const inForce = new Map<string, number>();
      for (const type of new Set(consents.map((c) => c.recipientType))) {
        const recipients = [...new Set(consents.filter((c) => c.recipientType === type).map((c) => c.recipient))];
        for (let start = 0; start < recipients.length; start += lookupChunk) {
          const rows = await self.tables
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
        sync_state: 'pending',
        sync_attempts: 0,
        sync_due_at: now,
        synced_at: null,
        sync_error: null,
      }));
      for (let start = 0; start < rows.length; start += writeChunk) {
        await self.tables
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
    const row = await this.tables
      .selectFrom('iys_consents')
      .select(['recipient', 'recipient_type', 'status', 'source', 'consent_date'])
      .where('account_id', '=', accountId)
      .where('recipient_type', '=', type)
      .where('recipient', '=', recipient)
      .executeTakeFirst();
    return row ? toConsent(row) : null;
  }

  async statusesOf(
    accountId: number,
    type: RecipientType,
    recipients: readonly string[],
  ): Promise<Map<string, ConsentStatus>> {
    const out = new Map<string, ConsentStatus>();
    for (let start = 0; start < recipients.length; start += lookupChunk) {
      const rows = await this.tables
        .selectFrom('iys_consents')
        .select(['recipient', 'status'])
        .where('account_id', '=', accountId)
        .where('recipient_type', '=', type)
        .where('recipient', 'in', recipients.slice(start, start + lookupChunk))
        .execute();
      for (const r of rows) out.set(r.recipient, r.status as ConsentStatus);
    }
    return out;
  }
}
