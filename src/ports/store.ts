/**
 * The store, one part per aggregate. Every part of a store runs on the same connection, or
 * inside `transaction()` on the same transaction: a part's methods that need several
 * statements take a transaction of their own unless they already run in one.
 */
import type { AccountStore } from './accounts.js';
import type { KeyStore } from './keys.js';
import type { SenderIdStore } from './sender-ids.js';
import type { MessageStore } from './messages.js';
import type { DispatchQueue } from './dispatch-queue.js';
import type { ReportStore } from './reports.js';
import type { CampaignControls } from './campaign-controls.js';
import type { IdempotencyStore } from './idempotency.js';
import type { EventStore } from './event-store.js';
import type { DirectoryStore } from './directory-store.js';
import type { InboundStore } from './inbound-store.js';
import type { SmppUserStore } from './smpp-users.js';
import type { SmppPartStore } from './smpp-parts.js';
import type { SmppBindStore } from './smpp-binds.js';
import type { OutboxStore } from './outbox.js';
import type { CarrierBinds } from './carrier-binds.js';
import type { PanelQueries } from './panel-queries.js';
import type { UserStore } from './user-store.js';
import type { AuditStore } from './audit-store.js';
import type { ConsoleQueries } from './console-queries.js';
import type { MonitoringStore } from './monitoring-store.js';
import type { RetentionStore } from './retention.js';
import type { OtpStore } from './otp-store.js';
import type { ConsentStore } from './consent-store.js';
import type { DerivedCounts } from './derived-counts.js';
import type { TemplateStore } from './template-store.js';
import type { LinkStore } from './link-store.js';
import type { BrandStore } from './brand-store.js';

/** What the store says to a readiness probe. */
export interface StoreHealth {
  /** Every migration of this build has run on the store. */
  migrated: boolean;
  /** Why writes fail now (SQLite: the disk is full), if they do; absent while they go through. */
  writeFault?: string;
}

export interface Store {
  /** Accounts and their balance ledger. */
  readonly accounts: AccountStore;
  /** API keys and their request counts. */
  readonly keys: KeyStore;
  readonly senderIds: SenderIdStore;
  /** Sends and messages as the send paths write them, and bulk sends written out later. */
  readonly messages: MessageStore;
  /** Messages claimed, submitted and settled by receipts (the job threads). */
  readonly queue: DispatchQueue;
  /** The customer's reads of sends and messages (/sms/status, /reports). */
  readonly reports: ReportStore;
  /** A customer's cancel, pause and resume of its sends (src/ports/campaign-controls.ts). */
  readonly campaigns: CampaignControls;
  readonly idempotency: IdempotencyStore;
  /** Webhook events: the outbox and its attempts. */
  readonly events: EventStore;
  /** Contact groups, their numbers, and the number blocking list. */
  readonly directory: DirectoryStore;
  /** Mobile-originated messages and their routes. */
  readonly inbound: InboundStore;
  /** Customers over SMPP: their SMPP users (system_id, password, bind limits). */
  readonly smppUsers: SmppUserStore;
  /** The parts of their concatenated submits, kept until the last one comes. */
  readonly smppParts: SmppPartStore;
  /** Their binds across the cluster, each with a lease. */
  readonly smppBinds: SmppBindStore;
  /** Consequences of commits, written in them, until their consumers carry them out. */
  readonly outbox: OutboxStore;
  /** The live carrier's binds across the cluster, and its shared rate cuts (src/ports/carrier-binds.ts). */
  readonly carrierBinds: CarrierBinds;
  /** The panel's read queries. */
  readonly panel: PanelQueries;
  /** The customer panel's users, sessions and notes (src/ports/user-store.ts). */
  readonly users: UserStore;
  /** The audit log of actions that changed something. */
  readonly audit: AuditStore;
  /** The provider console's reads. */
  readonly console: ConsoleQueries;
  /** The operations' reads: the queues' depths for metrics (src/ports/monitoring-store.ts). */
  readonly monitoring: MonitoringStore;
  /** Removing old finished data, a batch at a time (src/ports/retention.ts). */
  readonly retention: RetentionStore;
  /** One-time codes as keyed hashes, their tries, and the keys' OTP settings. */
  readonly otp: OtpStore;
  /** Consents for commercial messages (İYS, src/ports/consent-store.ts). */
  readonly consents: ConsentStore;
  /** Derived data written after the commit: the panel's rollups (src/ports/derived-counts.ts). */
  readonly derived: DerivedCounts;
  /** Saved texts with placeholders and the contact fields that fill them (src/ports/template-store.ts). */
  readonly templates: TemplateStore;
  /** Short links of sends and their clicks (src/ports/link-store.ts). */
  readonly links: LinkStore;
  /** Resellers' brands: what their panel shows on their host (src/ports/brand-store.ts). */
  readonly brands: BrandStore;
  /** Runs work in one transaction against a store bound to it (this store, inside one). */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  /**
   * Inside a transaction: runs work so that, if it throws, its writes alone are undone (a
   * savepoint) and the transaction can go on; the error is thrown again. Its writes are
   * committed with the transaction.
   */
  savepoint<T>(work: () => Promise<T>): Promise<T>;
  /**
   * One trivial query, for readiness probes: resolves with whether every migration this
   * build knows is recorded in the store; rejects when the store does not answer.
   */
  health(): Promise<StoreHealth>;
  /**
   * What keeps this process from ever writing again, read at once (no query): SQLite's
   * write lock held far longer than any transaction takes. Null while there is none; absent
   * where it cannot happen (PostgreSQL). What /healthz (liveness) checks.
   */
  stuck?(): string | null;
  close(): Promise<void>;
}
