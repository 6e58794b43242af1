/**
 * API keys and the lookup of every request (the key cache in front, where the store has one); the request
 * counts' statements are in request-counts.ts (and postgres/request-counts.ts).
 */
import { sql } from 'kysely';
import type { Selectable, Updateable } from 'kysely';
import type { ApiKeysTable } from './schema.js';
import type { ApiKey, KeyPatch, KeySettings, KeyStore, KeyWithAccount } from '../../ports/keys.js';
import type { PermissionSet } from '../../domain/permissions.js';
import { allPermissions } from '../../domain/permissions.js';
import type { LimitHit, UsageRequest, UsageWindows } from '../../domain/request-limits.js';
import { countInTransaction } from './request-counts.js';
import {
  retryScheduleFromText,
  retryScheduleToText,
  webhookEventsFromText,
  webhookEventsToText,
} from '../../domain/webhook.js';
import { MicroBatcher } from '../../util/micro-batcher.js';
import { StorePart } from './store-part.js';
import type { Executor } from './executor.js';
import { preparedQuery } from './prepared-query.js';
import { balanceOf, parseList, toAccount } from './accounts-store.js';

function toKey(row: Selectable<ApiKeysTable>): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    keyHint: row.key_hint,
    state: row.state,
    // Permissions added after a key was stored are off for it (manage_iys).
    permissions: { ...allPermissions(false), ...(JSON.parse(row.permissions) as Partial<PermissionSet>) },
    ipAllow: parseList(row.ip_allow),
    hourlyLimit: row.hourly_limit,
    dailyLimit: row.daily_limit,
    monthlyLimit: row.monthly_limit,
    expiresOn: row.expires_on,
    validUntil: row.valid_until === null ? null : Number(row.valid_until),
    replacedBy: row.replaced_by,
    webhookUrl: row.webhook_url,
    webhookSecret: row.webhook_secret,
    webhookAttempts: row.webhook_attempts,
    webhookEvents: webhookEventsFromText(row.webhook_events),
    webhookRetryScheduleMs: retryScheduleFromText(row.webhook_retry_schedule),
    webhookBatch: row.webhook_batch,
    webhookBatchWaitMs: row.webhook_batch_wait_ms,
    sandbox: row.sandbox === 1,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function keyColumns(patch: KeyPatch): Updateable<ApiKeysTable> {
  const out: Updateable<ApiKeysTable> = {};
  if (patch.permissions !== undefined) out.permissions = JSON.stringify(patch.permissions);
  if (patch.ipAllow !== undefined) out.ip_allow = JSON.stringify(patch.ipAllow);
  if (patch.hourlyLimit !== undefined) out.hourly_limit = patch.hourlyLimit;
  if (patch.dailyLimit !== undefined) out.daily_limit = patch.dailyLimit;
  if (patch.monthlyLimit !== undefined) out.monthly_limit = patch.monthlyLimit;
  if (patch.expiresOn !== undefined) out.expires_on = patch.expiresOn;
  if (patch.webhookUrl !== undefined) out.webhook_url = patch.webhookUrl;
  if (patch.webhookSecret !== undefined) out.webhook_secret = patch.webhookSecret;
  if (patch.webhookAttempts !== undefined) out.webhook_attempts = patch.webhookAttempts;
  if (patch.webhookEvents !== undefined) out.webhook_events = webhookEventsToText(patch.webhookEvents);
  if (patch.webhookRetryScheduleMs !== undefined)
    out.webhook_retry_schedule = retryScheduleToText(patch.webhookRetryScheduleMs);
  if (patch.webhookBatch !== undefined) out.webhook_batch = patch.webhookBatch;
  if (patch.webhookBatchWaitMs !== undefined) out.webhook_batch_wait_ms = patch.webhookBatchWaitMs;
  if (patch.sandbox !== undefined) out.sandbox = patch.sandbox ? 1 : 0;
  if (patch.state !== undefined) out.state = patch.state;
  if (patch.validUntil !== undefined) out.valid_until = patch.validUntil;
  if (patch.replacedBy !== undefined) out.replaced_by = patch.replacedBy;
  return out;
}

function keyLookupQuery(db: Executor) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .selectAll('k')
    .select([
      'a.name as a_name',
      'a.status as a_status',
      'a.balance_main as a_balance_main',
      'a.balance_international as a_balance_international',
      'a.per_minute_limit as a_per_minute_limit',
      'a.otp_brand as a_otp_brand',
      'a.ip_allow as a_ip_allow',
      'a.global_sending as a_global_sending',
      'a.created_at as a_created_at',
      'a.send_defaults as a_send_defaults',
    ]);
}

// The statement of every request, compiled once per database.
const keyLookup = preparedQuery(
  (db, p: { hash: string }) => keyLookupQuery(db).where('k.key_hash', '=', p.hash),
  ['hash'],
);

type KeyLookupRow = Awaited<ReturnType<ReturnType<typeof keyLookupQuery>['executeTakeFirstOrThrow']>>;

export class SqlKeyStore extends StorePart implements KeyStore {
  /**
   * PostgreSQL: the lookups of one turn of the event loop share one round trip, which is
   * what a request costs there (nothing tells this process when another changed a key, so
   * it does not cache). Made at first use: parts bound to transactions never use it.
   */
  private batchedKeyLookup: MicroBatcher<string, KeyLookupRow | null> | null = null;

  async createKey(accountId: number, hash: string, hint: string, settings: KeySettings, now: number): Promise<ApiKey> {
    const row = await this.db
      .insertInto('api_keys')
      .values({
        account_id: accountId,
        key_hash: hash,
        key_hint: hint,
        state: 'Active',
        permissions: JSON.stringify(settings.permissions),
        ip_allow: JSON.stringify(settings.ipAllow),
        hourly_limit: settings.hourlyLimit,
        daily_limit: settings.dailyLimit,
        monthly_limit: settings.monthlyLimit,
        expires_on: settings.expiresOn,
        valid_until: null,
        replaced_by: null,
        webhook_url: settings.webhookUrl,
        webhook_secret: settings.webhookSecret,
        webhook_attempts: settings.webhookAttempts,
        webhook_events: webhookEventsToText(settings.webhookEvents),
        webhook_retry_schedule: retryScheduleToText(settings.webhookRetryScheduleMs),
        webhook_batch: settings.webhookBatch,
        webhook_batch_wait_ms: settings.webhookBatchWaitMs,
        sandbox: settings.sandbox ? 1 : 0,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    this.context.caches?.keysChanged();
    return toKey(row);
  }

  async getKey(id: number): Promise<ApiKey | null> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toKey(row) : null;
  }

  async updateKey(id: number, patch: KeyPatch, now: number): Promise<ApiKey | null> {
    const values = keyColumns(patch);
    if (Object.keys(values).length > 0) {
      await this.db
        .updateTable('api_keys')
        .set({ ...values, updated_at: now })
        .where('id', '=', id)
        .execute();
      // A paused, revoked or changed key must be seen so by the next request.
      this.context.caches?.keysChanged();
    }
    return this.getKey(id);
  }

  async findKeyByHash(hash: string): Promise<KeyWithAccount | null> {
    const caches = this.readCaches;
    if (!caches) return this.loadKey(hash);
    const found = await caches.keys.lookup(hash, () => this.loadKey(hash));
    if (!found) return null;
    const balance = await balanceOf(this.context, found.account.id);
    if (!balance) return null;
    return {
      key: found.key,
      account: { ...found.account, balanceMain: balance.main, balanceInternational: balance.international },
    };
  }

  private async loadKey(hash: string): Promise<KeyWithAccount | null> {
    // On PostgreSQL the lookups of one turn (every lookup without a cache, its misses with
    // one) share one round trip.
    const row =
      this.sql.batchesReads && !this.db.isTransaction
        ? await this.batched().add(hash)
        : // One prepared round trip on the hot path of every request.
          (await this.db.executeQuery(keyLookup(this.db, { hash }))).rows[0];
    if (!row) return null;
    const account = toAccount({
      id: row.account_id,
      name: row.a_name,
      status: row.a_status,
      balance_main: row.a_balance_main,
      balance_international: row.a_balance_international,
      per_minute_limit: row.a_per_minute_limit,
      otp_brand: row.a_otp_brand,
      ip_allow: row.a_ip_allow,
      global_sending: row.a_global_sending,
      created_at: row.a_created_at,
      send_defaults: row.a_send_defaults,
    });
    return { key: toKey(row), account };
  }

  private batched(): MicroBatcher<string, KeyLookupRow | null> {
    return (this.batchedKeyLookup ??= new MicroBatcher(async (hashes: string[]) => {
      const rows = await keyLookupQuery(this.db)
        .where('k.key_hash', 'in', [...new Set(hashes)])
        .execute();
      const byHash = new Map(rows.map((r) => [r.key_hash, r]));
      return hashes.map((h) => byHash.get(h) ?? null);
    }, 500));
  }

  async refundRequest(keyId: number, windows: UsageWindows, count = 1): Promise<void> {
    await this.db
      .updateTable('key_usage')
      .set({
        hour_count: sql<number>`case when hour_bucket = ${windows.hour} then (case when hour_count > ${count} then hour_count - ${count} else 0 end) else hour_count end`,
        day_count: sql<number>`case when day_bucket = ${windows.day} then (case when day_count > ${count} then day_count - ${count} else 0 end) else day_count end`,
        month_count: sql<number>`case when month_bucket = ${windows.month} then (case when month_count > ${count} then month_count - ${count} else 0 end) else month_count end`,
      })
      .where('key_id', '=', keyId)
      .execute();
  }

  /** The requests of one turn counted (request-counts.ts): in one statement where the dialect can, else in one transaction. */
  async consumeRequests(items: readonly UsageRequest[]): Promise<(LimitHit | null)[]> {
    if (items.length === 0) return [];
    if (!this.db.isTransaction) {
      const counted = await this.sql.countRequests(this.db, items);
      if (counted !== null) return counted;
    }
    return this.transact((self) => countInTransaction(self.db, self.sql, items));
  }
}
