/**
 * The store over SQL (SQLite or PostgreSQL): one part per aggregate on one executor, the
 * database or a transaction. `transaction()` builds the same parts on a new transaction.
 */
import { sql } from 'kysely';
import type { Store, StoreHealth } from '../../ports/store.js';
import { latestMigration } from './migrations/index.js';
import type { StoreConnection } from './connection.js';
import { boundTo, withTransaction } from './store-part.js';
import type { PartContext } from './store-part.js';
import { SqlAccountStore } from './accounts-store.js';
import { SqlKeyStore } from './keys-store.js';
import { SqlSenderIdStore } from './sender-ids-store.js';
import { SqlMessageStore } from './messages/message-store.js';
import { SqlDispatchQueue } from './messages/dispatch-queue.js';
import { SqlReportStore } from './messages/report-store.js';
import { SqlCampaignControls } from './messages/campaign-controls.js';
import { SqlIdempotencyStore } from './idempotency-store.js';
import { SqlEventStore } from './event-store.js';
import { SqlDirectoryStore } from './directory-store.js';
import { SqlInboundStore } from './inbound-store.js';
import { SqlSmppUserStore } from './smpp-users-store.js';
import { SqlSmppPartStore } from './smpp-parts-store.js';
import { SqlSmppBindStore } from './smpp-binds-store.js';
import { SqlOutboxStore } from './outbox-store.js';
import { SqlCarrierBinds } from './carrier-binds-store.js';
import { SqlPanelQueries } from './panel-queries-store.js';
import { SqlUserStore } from './user-store.js';
import { SqlAuditStore } from './audit-store.js';
import { SqlConsoleQueries } from './console-queries-store.js';
import { SqlMonitoringStore } from './monitoring-store.js';
import { SqlRateWindows } from './rate-windows-store.js';
import { SqlWakes } from './wakes-store.js';
import { SqlRetentionStore } from './retention-store.js';
import { SqlOtpStore } from './otp-store.js';
import { SqlDerivedCounts } from './derived-counts-store.js';
import { SqlTemplateStore } from './template-store.js';
import { SqlLinkStore } from './link-store.js';
import { SqlBrandStore } from './brand-store.js';

/** A write lock held this long without changing hands is stuck (transactions take milliseconds; busy_timeout is 5 s). */
const stuckLockMs = 30_000;
import { SqlConsentStore } from './consent-store.js';

export class SqlStore implements Store {
  readonly accounts: SqlAccountStore;
  readonly keys: SqlKeyStore;
  readonly senderIds: SqlSenderIdStore;
  readonly messages: SqlMessageStore;
  readonly queue: SqlDispatchQueue;
  readonly reports: SqlReportStore;
  readonly campaigns: SqlCampaignControls;
  readonly idempotency: SqlIdempotencyStore;
  readonly events: SqlEventStore;
  readonly directory: SqlDirectoryStore;
  readonly inbound: SqlInboundStore;
  readonly smppUsers: SqlSmppUserStore;
  readonly smppParts: SqlSmppPartStore;
  readonly smppBinds: SqlSmppBindStore;
  readonly outbox: SqlOutboxStore;
  readonly carrierBinds: SqlCarrierBinds;
  readonly panel: SqlPanelQueries;
  readonly users: SqlUserStore;
  readonly audit: SqlAuditStore;
  readonly console: SqlConsoleQueries;
  readonly monitoring: SqlMonitoringStore;
  /** The per-key request rate shared by the processes of a PostgreSQL store. */
  readonly rates: SqlRateWindows;
  /** Wakes of other processes' job threads (NOTIFY on PostgreSQL). */
  readonly wakes: SqlWakes;
  readonly retention: SqlRetentionStore;
  readonly otp: SqlOtpStore;
  readonly consents: SqlConsentStore;
  readonly derived: SqlDerivedCounts;
  readonly templates: SqlTemplateStore;
  readonly links: SqlLinkStore;
  readonly brands: SqlBrandStore;

  /** `connection`: null for a store bound to a transaction (it closes nothing). */
  constructor(
    private readonly context: PartContext,
    private readonly connection: StoreConnection | null,
  ) {
    this.accounts = new SqlAccountStore(context);
    this.keys = new SqlKeyStore(context);
    this.senderIds = new SqlSenderIdStore(context);
    this.messages = new SqlMessageStore(context);
    this.queue = new SqlDispatchQueue(context);
    this.reports = new SqlReportStore(context);
    this.campaigns = new SqlCampaignControls(context);
    this.idempotency = new SqlIdempotencyStore(context);
    this.events = new SqlEventStore(context);
    this.directory = new SqlDirectoryStore(context);
    this.inbound = new SqlInboundStore(context);
    this.smppUsers = new SqlSmppUserStore(context);
    this.smppParts = new SqlSmppPartStore(context);
    this.smppBinds = new SqlSmppBindStore(context);
    this.outbox = new SqlOutboxStore(context);
    this.carrierBinds = new SqlCarrierBinds(context);
    this.panel = new SqlPanelQueries(context);
    this.users = new SqlUserStore(context);
    this.audit = new SqlAuditStore(context);
    this.console = new SqlConsoleQueries(context);
    this.monitoring = new SqlMonitoringStore(context);
    this.rates = new SqlRateWindows(context);
    this.wakes = new SqlWakes(context);
    this.retention = new SqlRetentionStore(context);
    this.otp = new SqlOtpStore(context);
    this.consents = new SqlConsentStore(context);
    this.derived = new SqlDerivedCounts(context);
    this.templates = new SqlTemplateStore(context);
    this.links = new SqlLinkStore(context);
    this.brands = new SqlBrandStore(context);
  }

  transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return withTransaction(this.context.db, (trx) =>
      work(trx === this.context.db ? this : new SqlStore(boundTo(this.context, trx), null)),
    );
  }

  async savepoint<T>(work: () => Promise<T>): Promise<T> {
    const db = this.context.db;
    // Outside a transaction SQLite's SAVEPOINT would begin one, past the write lock.
    if (!db.isTransaction) throw new Error('a savepoint is taken inside a transaction');
    // One name serves every savepoint: both dialects roll back to the newest of a name. A
    // savepoint is not released: the commit takes its writes in, and a RELEASE would cost
    // PostgreSQL a round trip each.
    await sql`savepoint store_work`.execute(db);
    try {
      return await work();
    } catch (error) {
      // After SQLITE_FULL or an I/O error SQLite may have rolled the whole transaction back,
      // the savepoint with it: the error that matters is the first one.
      await sql`rollback to savepoint store_work`.execute(db).catch(() => undefined);
      throw error;
    }
  }

  stuck(): string | null {
    const heldMs = this.connection?.writeLockHeldMs?.() ?? 0;
    return heldMs > stuckLockMs
      ? `the store's write lock has not changed hands for ${Math.round(heldMs / 1000)} s`
      : null;
  }

  async health(): Promise<StoreHealth> {
    // Kysely's own table, in the store's schema; its name is its primary key.
    const { rows } = await sql<{
      name: string;
    }>`select name from kysely_migration where name = ${latestMigration}`.execute(this.context.db);
    const writeFault = this.connection?.writeFault?.() ?? null;
    return writeFault === null ? { migrated: rows.length === 1 } : { migrated: rows.length === 1, writeFault };
  }

  /** SQLite: copies the WAL back into the database file (see StoreConnection.checkpoint); nothing on PostgreSQL. */
  checkpoint(): void {
    this.connection?.checkpoint?.();
  }

  async close(): Promise<void> {
    await this.connection?.close();
  }
}
