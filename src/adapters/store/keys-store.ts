/**
 * API keys, the lookup of every request (SQLite's key cache in front), and request counts.
 * Over 300 lines on purpose: the counts of a batch are one statement that locks the keys'
 * rows in the order the lookup reads them, and both stay beside the cache they share.
 */
import { sql } from 'kysely';
import type { Selectable, Updateable } from 'kysely';
import type { ApiKeysTable } from './schema.js';
import type { ApiKey, KeyPatch, KeySettings, KeyStore, KeyWithAccount } from '../../ports/keys.js';
import type { PermissionSet } from '../../domain/permissions.js';
import { countOne } from '../../domain/request-limits.js';
import type { LimitHit, RequestLimits, Usage, UsageWindows } from '../../domain/request-limits.js';
import { retryScheduleFromText, retryScheduleToText, webhookEventsFromText, webhookEventsToText } from '../../domain/webhook.js';
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
    permissions: JSON.parse(row.permissions) as PermissionSet,
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
  if (patch.webhookRetryScheduleMs !== undefined) out.webhook_retry_schedule = retryScheduleToText(patch.webhookRetryScheduleMs);
  if (patch.sandbox !== undefined) out.sandbox = patch.sandbox ? 1 : 0;
  if (patch.state !== undefined) out.state = patch.state;
  if (patch.validUntil !== undefined) out.valid_until = patch.validUntil;
  if (patch.replacedBy !== undefined) out.replaced_by = patch.replacedBy;
  return out;
}

type UsageRequest = { keyId: number; limits: RequestLimits; windows: UsageWindows };

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
    ]);
}

// The statement of every request, compiled once per database.
const keyLookup = preparedQuery((db, p: { hash: string }) => keyLookupQuery(db).where('k.key_hash', '=', p.hash), ['hash']);

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
    return { key: found.key, account: { ...found.account, balanceMain: balance.main, balanceInternational: balance.international } };
  }

  private async loadKey(hash: string): Promise<KeyWithAccount | null> {
    // Without a cache (PostgreSQL), the lookups of one turn share one round trip.
    const row =
      this.context.caches === null && !this.db.isTransaction
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
    });
    return { key: toKey(row), account };
  }

  private batched(): MicroBatcher<string, KeyLookupRow | null> {
    return (this.batchedKeyLookup ??= new MicroBatcher(async (hashes: string[]) => {
      const rows = await keyLookupQuery(this.db).where('k.key_hash', 'in', [...new Set(hashes)]).execute();
      const byHash = new Map(rows.map((r) => [r.key_hash, r]));
      return hashes.map((h) => byHash.get(h) ?? null);
    }, 500));
  }

  async refundRequest(keyId: number, windows: UsageWindows): Promise<void> {
    await this.db
      .updateTable('key_usage')
      .set({
        hour_count: sql<number>`case when hour_bucket = ${windows.hour} and hour_count > 0 then hour_count - 1 else hour_count end`,
        day_count: sql<number>`case when day_bucket = ${windows.day} and day_count > 0 then day_count - 1 else day_count end`,
        month_count: sql<number>`case when month_bucket = ${windows.month} and month_count > 0 then month_count - 1 else month_count end`,
      })
      .where('key_id', '=', keyId)
      .execute();
  }

  async consumeRequests(items: readonly UsageRequest[]): Promise<(LimitHit | null)[]> {
    if (items.length === 0) return [];
    if (this.dialect === 'postgres' && !this.db.isTransaction) {
      const counted = await this.consumeInOneStatement(items);
      if (counted !== null) return counted;
    }
    // One transaction for the requests of one turn of the event loop, and three statements
    // per key whatever its number of requests: the key's row is locked (a write first, so
    // SQLite takes its write lock before reading; FOR UPDATE on PostgreSQL), the requests
    // are decided in arrival order in memory, and the counts written back once.
    return this.transact(async (self) => {
      const answers = new Map<UsageRequest, LimitHit | null>();
      const byKey = new Map<number, UsageRequest[]>();
      for (const item of items) byKey.set(item.keyId, [...(byKey.get(item.keyId) ?? []), item]);
      for (const [keyId, requests] of [...byKey].sort((a, b) => a[0] - b[0])) {
        const first = requests[0]?.windows ?? { hour: '', day: '', month: '' };
        await self.db
          .insertInto('key_usage')
          .values({ key_id: keyId, hour_bucket: first.hour, hour_count: 0, day_bucket: first.day, day_count: 0, month_bucket: first.month, month_count: 0 })
          .onConflict((oc) => oc.column('key_id').doNothing())
          .execute();
        const row = await self.db
          .selectFrom('key_usage')
          .selectAll()
          .where('key_id', '=', keyId)
          .$call((qb) => self.sql.forUpdate(qb))
          .executeTakeFirstOrThrow();
        const usage = { hour: row.hour_bucket, hourCount: row.hour_count, day: row.day_bucket, dayCount: row.day_count, month: row.month_bucket, monthCount: row.month_count };
        for (const request of requests) answers.set(request, countOne(usage, request.limits, request.windows));
        await self.db
          .updateTable('key_usage')
          .set({ hour_bucket: usage.hour, hour_count: usage.hourCount, day_bucket: usage.day, day_count: usage.dayCount, month_bucket: usage.month, month_count: usage.monthCount })
          .where('key_id', '=', keyId)
          .execute();
      }
      return items.map((item) => answers.get(item) ?? null);
    });
  }

  /**
   * PostgreSQL: the requests of a batch counted in one statement, one round trip (the
   * transaction below takes five): each key's row is locked (FOR UPDATE, in key order) and
   * its counts raised by as many of its requests as its limits admit, the windows that
   * moved on starting again at zero. The statement returns the counts it found, from which
   * each request's answer is decided in memory by the same rule (countOne), in arrival order.
   * Null when a key's requests of the batch differ in limits or windows (a limit changed, an
   * hour began): the transaction decides those. Keys without a usage row yet get one first.
   */
  private async consumeInOneStatement(items: readonly UsageRequest[]): Promise<(LimitHit | null)[] | null> {
    const byKey = new Map<number, UsageRequest[]>();
    for (const item of items) {
      const list = byKey.get(item.keyId);
      if (list === undefined) byKey.set(item.keyId, [item]);
      else list.push(item);
    }
    const same = (a: UsageRequest, b: UsageRequest): boolean =>
      a.limits.hourly === b.limits.hourly &&
      a.limits.daily === b.limits.daily &&
      a.limits.monthly === b.limits.monthly &&
      a.windows.hour === b.windows.hour &&
      a.windows.day === b.windows.day &&
      a.windows.month === b.windows.month;
    const firsts: UsageRequest[] = [];
    for (const list of byKey.values()) {
      const first = list[0] as UsageRequest;
      if (!list.every((r) => same(r, first))) return null;
      firsts.push(first);
    }
    firsts.sort((x, y) => x.keyId - y.keyId);
    const found = await this.raiseCounts(firsts, byKey);
    const missing = firsts.filter((f) => !found.has(f.keyId));
    if (missing.length > 0) {
      await this.db
        .insertInto('key_usage')
        .values(missing.map((f) => ({ key_id: f.keyId, hour_bucket: f.windows.hour, hour_count: 0, day_bucket: f.windows.day, day_count: 0, month_bucket: f.windows.month, month_count: 0 })))
        .onConflict((oc) => oc.column('key_id').doNothing())
        .execute();
      for (const [keyId, usage] of await this.raiseCounts(missing, byKey)) found.set(keyId, usage);
    }
    const answers = new Map<UsageRequest, LimitHit | null>();
    for (const [keyId, requests] of byKey) {
      const usage = found.get(keyId);
      if (usage === undefined) throw new Error(`no request counts of key ${keyId}`);
      for (const request of requests) answers.set(request, countOne(usage, request.limits, request.windows));
    }
    return items.map((item) => answers.get(item) ?? null);
  }

  /** The statement of consumeInOneStatement: the counts each key's row held before it, by key (keys with no row are absent). */
  private async raiseCounts(firsts: readonly UsageRequest[], byKey: ReadonlyMap<number, readonly UsageRequest[]>): Promise<Map<number, Usage>> {
    const ids = firsts.map((f) => f.keyId);
    const current = (bucket: string, count: string, window: string): string => `(case when o.${bucket} = r.${window} then o.${count} else 0 end)`;
    const h = current('hour_bucket', 'hour_count', 'hb');
    const d = current('day_bucket', 'day_count', 'db');
    const m = current('month_bucket', 'month_count', 'mb');
    const left = (limit: string, count: string): string => `(case when r.${limit} > 0 then r.${limit} - ${count} else r.n end)`;
    const admitted = sql.raw(`greatest(0, least(r.n, ${left('hl', h)}, ${left('dl', d)}, ${left('ml', m)}))`);
    const { rows } = await sql<{ key_id: number; hour_bucket: string; hour_count: number; day_bucket: string; day_count: number; month_bucket: string; month_count: number }>`
      update key_usage u set
        hour_bucket = r.hb, hour_count = ${sql.raw(h)} + ${admitted},
        day_bucket = r.db, day_count = ${sql.raw(d)} + ${admitted},
        month_bucket = r.mb, month_count = ${sql.raw(m)} + ${admitted}
      from (select * from key_usage where key_id = any(${ids}::int[]) order by key_id for update) o,
        unnest(${ids}::int[], ${firsts.map((f) => byKey.get(f.keyId)?.length ?? 0)}::int[], ${firsts.map((f) => f.limits.hourly)}::int[],
          ${firsts.map((f) => f.limits.daily)}::int[], ${firsts.map((f) => f.limits.monthly)}::int[], ${firsts.map((f) => f.windows.hour)}::text[],
          ${firsts.map((f) => f.windows.day)}::text[], ${firsts.map((f) => f.windows.month)}::text[]) as r(key_id, n, hl, dl, ml, hb, db, mb)
      where u.key_id = o.key_id and o.key_id = r.key_id
      returning o.key_id, o.hour_bucket, o.hour_count, o.day_bucket, o.day_count, o.month_bucket, o.month_count`.execute(this.db);
    return new Map(
      rows.map((row) => [
        row.key_id,
        { hour: row.hour_bucket, hourCount: row.hour_count, day: row.day_bucket, dayCount: row.day_count, month: row.month_bucket, monthCount: row.month_count },
      ]),
    );
  }
}
