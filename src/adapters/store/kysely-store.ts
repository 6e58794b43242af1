/**
 * The store: accounts and their balance ledger, keys and their request counts, sender IDs,
 * the lookup caches in front of them, and the entry to the message, directory and event
 * stores. Why one file (539 lines): a send charges a balance, counts a request and reads a
 * key and a sender ID in one transaction on one connection, and the caches must see every
 * write to those tables: keeping the writers beside the caches they invalidate is what keeps
 * the caches correct today. The split by aggregate, with invalidation explicit in each
 * aggregate's writes, is the store re-cut of issue 20.
 */
import type { Executor } from './executor.js';
import { sql } from 'kysely';
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, AccountsTable, ApiKeysTable, LedgerTable, SenderIdsTable } from './schema.js';
import type { Db, Dialect } from './database.js';
import { KyselyMessageStore } from './kysely-message-store.js';
import { columnsOf, preparedList, preparedQuery, preparedRows } from './prepared-query.js';
import { LookupCache, oncePerTurn } from './lookup-cache.js';
import { MicroBatcher } from '../../util/micro-batcher.js';
import { KyselyDirectoryStore } from './kysely-directory-store.js';
import type { Account, AccountInput, AccountPatch, ApiKey, BalanceBucket, ChargeEntry, KeySettings, KeyWithAccount, LimitHit, SenderId, Store, UsageWindows } from '../../ports/store.js';
import { KyselyEventStore } from './kysely-event-store.js';
import { KyselyInboundStore } from './kysely-inbound-store.js';
import { KyselyPanelQueries } from './kysely-panel-queries.js';
import { KyselyUserStore } from './user-store.js';
import type { PermissionSet } from '../../domain/permissions.js';
import { retryScheduleFromText, retryScheduleToText, webhookEventsFromText, webhookEventsToText } from '../../domain/webhook.js';
import type { StoredKeyState } from '../../domain/api-key.js';


function parseList(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function toAccount(row: Selectable<AccountsTable>): Account {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    balanceMain: Number(row.balance_main),
    balanceInternational: Number(row.balance_international),
    perMinuteLimit: row.per_minute_limit,
    otpBrand: row.otp_brand,
    ipAllow: parseList(row.ip_allow),
    globalSending: row.global_sending === 1,
    createdAt: Number(row.created_at),
  };
}

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

function toSenderId(row: Selectable<SenderIdsTable>): SenderId {
  return { id: row.id, accountId: row.account_id, title: row.title, status: row.status, createdAt: Number(row.created_at) };
}

type KeyPatch = Partial<KeySettings> & { state?: StoredKeyState; validUntil?: number | null; replacedBy?: number | null };

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

type UsageRequest = { keyId: number; limits: { hourly: number; daily: number; monthly: number }; windows: UsageWindows };
type Usage = { hour: string; hourCount: number; day: string; dayCount: number; month: string; monthCount: number };

/**
 * Counts one request into a key's usage unless a window with a limit is full (a window
 * whose bucket has moved on starts again at zero). When several are full, the longest
 * window is named: its wait is the one the caller must honour.
 */
function countOne(usage: Usage, { limits, windows }: UsageRequest): LimitHit | null {
  if (usage.hour !== windows.hour) Object.assign(usage, { hour: windows.hour, hourCount: 0 });
  if (usage.day !== windows.day) Object.assign(usage, { day: windows.day, dayCount: 0 });
  if (usage.month !== windows.month) Object.assign(usage, { month: windows.month, monthCount: 0 });
  if (limits.monthly > 0 && usage.monthCount >= limits.monthly) return 'monthly';
  if (limits.daily > 0 && usage.dayCount >= limits.daily) return 'daily';
  if (limits.hourly > 0 && usage.hourCount >= limits.hourly) return 'hourly';
  usage.hourCount += 1;
  usage.dayCount += 1;
  usage.monthCount += 1;
  return null;
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
    ]);
}

// The statements of every request and every send batch, compiled once per database.
const keyLookup = preparedQuery((db, p: { hash: string }) => keyLookupQuery(db).where('k.key_hash', '=', p.hash), ['hash']);

const senderLookup = preparedQuery(
  (db, p: { accountId: number; title: string }) =>
    db.selectFrom('sender_ids').select('id').where('account_id', '=', p.accountId).where('title', '=', p.title).where('status', '=', 'approved').limit(1),
  ['accountId', 'title'],
);

const balancesQuery = preparedList((db, _: Record<string, never>, ids: number[]) => db.selectFrom('accounts').select(['id', 'balance_main', 'balance_international']).where('id', 'in', ids), []);

/** Takes a charge from one balance unless it no longer covers it; answers the balance after. */
function chargeOf(column: 'balance_main' | 'balance_international') {
  return preparedQuery(
    (db, p: { accountId: number; amount: number }) =>
      db
        .updateTable('accounts')
        .set({ [column]: sql`${sql.ref(column)} - ${p.amount}` })
        .where('id', '=', p.accountId)
        .where(sql.ref(column), '>=', p.amount)
        .returning(sql<number>`${sql.ref(column)}`.as('balance')),
    ['accountId', 'amount'],
  );
}

const chargeQuery: Record<BalanceBucket, ReturnType<typeof chargeOf>> = { main: chargeOf('balance_main'), international: chargeOf('balance_international') };

type LedgerRow = Omit<Insertable<LedgerTable>, 'id'>;
const ledgerColumns = columnsOf<LedgerRow>({ account_id: true, bucket: true, delta: true, balance_after: true, reason: true, reference: true, created_at: true });
/** Ledger rows per INSERT: the row count of a send batch's charges, well inside the parameter limits. */
const ledgerChunk = 256;
const ledgerInsert = preparedRows((db, rows: LedgerRow[]) => db.insertInto('ledger').values(rows), ledgerColumns);

export class KyselyStore implements Store {
  readonly messages: KyselyMessageStore;
  readonly directory: KyselyDirectoryStore;
  readonly events: KyselyEventStore;
  readonly inbound: KyselyInboundStore;
  readonly panel: KyselyPanelQueries;
  readonly users: KyselyUserStore;

  constructor(
    private readonly db: Executor,
    readonly dialect: Dialect,
    private readonly handle: Db | null,
  ) {
    this.messages = new KyselyMessageStore(db, dialect);
    this.directory = new KyselyDirectoryStore(db, dialect);
    this.events = new KyselyEventStore(db, dialect);
    this.inbound = new KyselyInboundStore(db);
    this.panel = new KyselyPanelQueries(db);
    this.users = new KyselyUserStore(db);
  }

  /** Only the store outside transactions caches: inside one, reads must see its own writes. */
  private keyCache: LookupCache<KeyWithAccount> | null = null;
  /** Sender ID checks by account and title, approved or not (bounded, so unknown titles cannot grow it). */
  private senderCache: LookupCache<boolean> | null = null;
  /**
   * Balances by account, laid over the cached key's account: every send charges one, so
   * they have a signal of their own, and a charge leaves the key and sender caches alone.
   */
  private balanceCache: LookupCache<Record<BalanceBucket, number>> | null = null;

  /** SQLite: the counters that tell the lookup caches what changed (Db.changes); undefined on PostgreSQL. */
  get changes(): Db['changes'] {
    return this.handle?.changes;
  }

  static open(handle: Db): KyselyStore {
    const store = new KyselyStore(handle.db, handle.dialect, handle);
    const changes = handle.changes;
    if (changes) {
      const external = oncePerTurn(changes.external);
      const lookups = (): number => external().lookups;
      store.keyCache = new LookupCache({ external: lookups, local: changes.keys });
      store.senderCache = new LookupCache({ external: lookups, local: changes.senders });
      // Both counters only move, so their sum moves whenever either does.
      store.balanceCache = new LookupCache({
        external: () => {
          const counts = external();
          return counts.lookups + counts.balances;
        },
        local: () => changes.keys() + changes.balances(),
      });
    }
    return store;
  }

  async transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    return (this.db as Kysely<Database>).transaction().execute((trx) => work(new KyselyStore(trx, this.dialect, null)));
  }

  async savepoint<T>(work: () => Promise<T>): Promise<T> {
    // Outside a transaction SQLite's SAVEPOINT would begin one, past the write lock.
    if (!this.db.isTransaction) throw new Error('a savepoint is taken inside a transaction');
    // One name serves every savepoint: both dialects roll back to the newest of a name. A
    // savepoint is not released: the commit takes its writes in, and a RELEASE would cost
    // PostgreSQL a round trip each.
    await sql`savepoint store_work`.execute(this.db);
    try {
      return await work();
    } catch (error) {
      await sql`rollback to savepoint store_work`.execute(this.db);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.handle?.close();
  }

  async createAccount(input: AccountInput, now: number): Promise<Account> {
    return this.transaction(async (store) => {
      const self = store as KyselyStore;
      const row = await self.db
        .insertInto('accounts')
        .values({
          name: input.name,
          status: 'Active',
          balance_main: 0,
          balance_international: 0,
          per_minute_limit: input.perMinuteLimit,
          otp_brand: input.otpBrand,
          ip_allow: JSON.stringify(input.ipAllow),
          global_sending: input.globalSending ? 1 : 0,
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (input.balanceMain > 0) await self.adjustBalance(row.id, 'main', input.balanceMain, 'opening balance', null, now);
      if (input.balanceInternational > 0) await self.adjustBalance(row.id, 'international', input.balanceInternational, 'opening balance', null, now);
      const account = await self.getAccount(row.id);
      if (!account) throw new Error('account vanished inside its own transaction');
      return account;
    });
  }

  async hasAccounts(): Promise<boolean> {
    return (await this.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  async getAccount(id: number): Promise<Account | null> {
    const row = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toAccount(row) : null;
  }

  async updateAccount(id: number, patch: AccountPatch): Promise<Account | null> {
    const values: Updateable<AccountsTable> = {};
    if (patch.name !== undefined) values.name = patch.name;
    if (patch.status !== undefined) values.status = patch.status;
    if (patch.perMinuteLimit !== undefined) values.per_minute_limit = patch.perMinuteLimit;
    if (patch.otpBrand !== undefined) values.otp_brand = patch.otpBrand;
    if (patch.ipAllow !== undefined) values.ip_allow = JSON.stringify(patch.ipAllow);
    if (patch.globalSending !== undefined) values.global_sending = patch.globalSending ? 1 : 0;
    if (Object.keys(values).length > 0) {
      await this.db.updateTable('accounts').set(values).where('id', '=', id).execute();
    }
    return this.getAccount(id);
  }

  async adjustBalance(id: number, bucket: BalanceBucket, delta: number, reason: string, reference: string | null, now: number): Promise<Account | 'insufficient' | null> {
    const column = bucket === 'main' ? 'balance_main' : 'balance_international';
    return this.transaction(async (store) => {
      const self = store as KyselyStore;
      // The guard in WHERE keeps concurrent spenders from racing below zero; the CHECK
      // constraint on the column is the last line behind it.
      const updated = await self.db
        .updateTable('accounts')
        .set({ [column]: sql`${sql.ref(column)} + ${delta}` })
        .where('id', '=', id)
        .where(sql.ref(column), '>=', -delta)
        .returning([column])
        .executeTakeFirst();
      if (!updated) {
        const exists = await self.db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst();
        return exists ? 'insufficient' : null;
      }
      const balanceAfter = Number((updated as Record<string, unknown>)[column]);
      await self.db
        .insertInto('ledger')
        .values({ account_id: id, bucket, delta, balance_after: balanceAfter, reason, reference, created_at: now })
        .execute();
      return self.getAccount(id);
    });
  }

  async addSenderId(accountId: number, title: string, status: SenderId['status'], now: number): Promise<SenderId | null> {
    // The unique index of migration 0012 decides, so two adds at once cannot both succeed.
    const row = await this.db
      .insertInto('sender_ids')
      .values({ account_id: accountId, title, status, created_at: now })
      .onConflict((c) => c.columns(['account_id', 'title']).doNothing())
      .returningAll()
      .executeTakeFirst();
    return row ? toSenderId(row) : null;
  }

  async getSenderId(id: number): Promise<SenderId | null> {
    const row = await this.db.selectFrom('sender_ids').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toSenderId(row) : null;
  }

  async senderIds(accountId: number): Promise<SenderId[]> {
    const rows = await this.db.selectFrom('sender_ids').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
    return rows.map(toSenderId);
  }

  async removeSenderId(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('sender_ids').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async approvedSenderIds(accountId: number): Promise<SenderId[]> {
    const rows = await this.db
      .selectFrom('sender_ids')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', 'approved')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toSenderId);
  }

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
    return toKey(row);
  }

  async getKey(id: number): Promise<ApiKey | null> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toKey(row) : null;
  }

  /**
   * PostgreSQL: the lookups of one turn of the event loop share one round trip, which is
   * what a request costs there (nothing tells this process when another changed a key, so
   * it does not cache).
   */
  private readonly batchedKeyLookup = new MicroBatcher(async (hashes: string[]) => {
    const rows = await keyLookupQuery(this.db).where('k.key_hash', 'in', [...new Set(hashes)]).execute();
    const byHash = new Map(rows.map((r) => [r.key_hash, r]));
    return hashes.map((h) => byHash.get(h) ?? null);
  }, 500);

  async findKeyByHash(hash: string): Promise<KeyWithAccount | null> {
    if (!this.keyCache || !this.balanceCache) return this.loadKey(hash);
    const found = await this.keyCache.lookup(hash, () => this.loadKey(hash));
    if (!found) return null;
    const id = found.account.id;
    const balance = await this.balanceCache.lookup(String(id), async () => (await this.balancesOf([id])).get(id) ?? null);
    if (!balance) return null;
    return { key: found.key, account: { ...found.account, balanceMain: balance.main, balanceInternational: balance.international } };
  }

  private async loadKey(hash: string): Promise<KeyWithAccount | null> {
    const row =
      this.dialect === 'postgres' && !this.db.isTransaction
        ? await this.batchedKeyLookup.add(hash)
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

  async hasApprovedSender(accountId: number, title: string): Promise<boolean> {
    const load = async () => (await this.db.executeQuery(senderLookup(this.db, { accountId, title }))).rows.length > 0;
    // Refusals are remembered too: the cache is bounded, and emptied by the same signals.
    return this.senderCache ? (await this.senderCache.lookup(`${accountId}:${title}`, load)) === true : load();
  }

  async lockAccounts(ids: readonly number[]): Promise<void> {
    if (this.dialect !== 'postgres' || ids.length === 0) return;
    await this.db
      .selectFrom('accounts')
      .select('id')
      .where('id', 'in', [...ids])
      .orderBy('id')
      .forUpdate()
      .execute();
  }

  async balancesOf(ids: readonly number[]): Promise<Map<number, Record<BalanceBucket, number>>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.db.executeQuery(balancesQuery(this.db, {}, ids));
    return new Map(rows.map((r) => [r.id, { main: Number(r.balance_main), international: Number(r.balance_international) }]));
  }

  async applyCharges(charges: readonly ChargeEntry[], now: number): Promise<void> {
    const totals = new Map<string, { accountId: number; bucket: BalanceBucket; amount: number }>();
    for (const c of charges) {
      const key = `${c.accountId}:${c.bucket}`;
      const t = totals.get(key) ?? { accountId: c.accountId, bucket: c.bucket, amount: 0 };
      t.amount += c.amount;
      totals.set(key, t);
    }
    const after = new Map<string, number>();
    for (const [key, t] of totals) {
      const updated = (await this.db.executeQuery(chargeQuery[t.bucket](this.db, { accountId: t.accountId, amount: t.amount }))).rows[0];
      if (!updated) throw new Error(`balance of account ${t.accountId} no longer covers ${t.amount}`);
      // Ledger rows carry the balance after each charge, so work back from the final one.
      after.set(key, Number(updated.balance) + t.amount);
    }
    const rows = charges.map((c) => {
      const key = `${c.accountId}:${c.bucket}`;
      const balance = (after.get(key) ?? 0) - c.amount;
      after.set(key, balance);
      return { account_id: c.accountId, bucket: c.bucket, delta: -c.amount, balance_after: balance, reason: c.reason, reference: c.reference, created_at: now };
    });
    for (let i = 0; i < rows.length; i += ledgerChunk) await this.db.executeQuery(ledgerInsert(this.db, rows.slice(i, i + ledgerChunk)));
  }

  async updateKey(id: number, patch: KeyPatch, now: number): Promise<ApiKey | null> {
    const values = keyColumns(patch);
    if (Object.keys(values).length > 0) {
      await this.db
        .updateTable('api_keys')
        .set({ ...values, updated_at: now })
        .where('id', '=', id)
        .execute();
    }
    return this.getKey(id);
  }

  async consumeRequest(keyId: number, limits: { hourly: number; daily: number; monthly: number }, windows: UsageWindows): Promise<LimitHit | null> {
    return (await this.consumeRequests([{ keyId, limits, windows }]))[0] ?? null;
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
    // One transaction for the requests of one turn of the event loop, and three statements
    // per key whatever its number of requests: the key's row is locked (a write first, so
    // SQLite takes its write lock before reading; FOR UPDATE on PostgreSQL), the requests
    // are decided in arrival order in memory, and the counts written back once.
    return this.transaction(async (store) => {
      const self = store as KyselyStore;
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
          .$if(self.dialect === 'postgres', (qb) => qb.forUpdate())
          .executeTakeFirstOrThrow();
        const usage = { hour: row.hour_bucket, hourCount: row.hour_count, day: row.day_bucket, dayCount: row.day_count, month: row.month_bucket, monthCount: row.month_count };
        for (const request of requests) answers.set(request, countOne(usage, request));
        await self.db
          .updateTable('key_usage')
          .set({ hour_bucket: usage.hour, hour_count: usage.hourCount, day_bucket: usage.day, day_count: usage.dayCount, month_bucket: usage.month, month_count: usage.monthCount })
          .where('key_id', '=', keyId)
          .execute();
      }
      return items.map((item) => answers.get(item) ?? null);
    });
  }
}
