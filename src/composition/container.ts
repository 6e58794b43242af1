/**
 * The application container of one thread: the store (by its ports), the services built on
 * it once, and the wakes of this thread's jobs. Every thread of `serve` opens its own, on its
 * own store connection; an admin command opens one for its run.
 */
import { AccountStatements } from '../services/account-statements.js';
import { randomInt } from 'node:crypto';
import pino from 'pino';
import type { Logger } from 'pino';
import { openStore } from '../adapters/store/index.js';
import type { StoreLocation } from '../adapters/store/index.js';
import { systemClock } from '../ports/clock.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { Wakes } from '../ports/wakes.js';
import type { SharedRate } from '../ports/shared-rate.js';
import { AuthService } from '../services/auth.js';
import { AccountQueries } from '../services/account-queries.js';
import { AdminService } from '../services/admin.js';
import { AccountDirectory } from '../services/account-directory.js';
import type { Services } from '../services/services.js';
import { SendService } from '../services/send-service.js';
import { StatusQueries } from '../services/status-queries.js';
import { CampaignService } from '../services/campaign-controls.js';
import { ReportQueries } from '../services/report-queries.js';
import { OtpService } from '../services/otp-service.js';
import { TemplateService } from '../services/template-service.js';
import { ShortLinkService } from '../services/short-link-service.js';
import { GroupService } from '../services/group-service.js';
import { BlocklistService } from '../services/blocklist-service.js';
import { ConsentService } from '../services/consent-service.js';
import { ResellerService } from '../services/reseller-service.js';
import { IysAdmin } from '../services/iys-admin.js';
import { UserService } from '../services/panel/users.js';
import { BrandService } from '../services/brands.js';
import { InboundAdmin } from '../services/inbound-admin.js';
import { SmppUserAdmin } from '../services/smpp-users.js';
import { SenderIdReview } from '../services/sender-id-review.js';
import { AuditLog } from '../services/audit-log.js';
import { OtpSettingsAdmin } from '../services/otp-settings.js';
import { KeyLastUsed } from '../services/key-last-used.js';
import { WakeSignal } from '../jobs/wake-signal.js';

export interface AppContainer {
  store: Store;
  /** Wakes of other processes' job threads, sent through the store (NOTIFY on PostgreSQL). */
  wakes: Wakes;
  /** The per-key request rate counted in the store, for a cluster on PostgreSQL without Redis. */
  rates: SharedRate;
  /** The API's services (endpoints, and the panel's data pages). */
  services: Services;
  /** The provider's commands on accounts, sender IDs and keys (admin CLI, panel). */
  admin: AdminService;
  /** The provider's reads of accounts with their resellers named (admin CLI). */
  accountDirectory: AccountDirectory;
  /** Monthly statements of accounts and resellers from the ledger (admin CLI). */
  statements: AccountStatements;
  /** Panel users on the default session policy (the admin CLI's; the panel's own follows its options). */
  panelUsers: UserService;
  /** Resellers' brands (admin CLI). */
  brands: BrandService;
  /** The provider's inbound routes and messages (admin CLI). */
  inboundAdmin: InboundAdmin;
  /** The provider's SMPP users (admin CLI). */
  smppUsers: SmppUserAdmin;
  /** The provider's İYS settings per account (admin CLI). */
  iysAdmin: IysAdmin;
  /** The provider's decision on a sender ID, whatever its status (admin CLI). */
  senderIdReview: SenderIdReview;
  /** The audit log: rows of the changes made outside the panel (admin CLI). */
  audit: AuditLog;
  /** Keys' OTP settings (admin CLI). */
  otpSettings: OtpSettingsAdmin;
  clock: Clock;
  /** Wakes this process's dispatcher when a send is committed. */
  dispatchWake: WakeSignal;
  /** Wakes this process's webhook courier when message states (and so events) are committed. */
  webhookWake: WakeSignal;
  /** Keys' last use, noted by authentication and written every 30 s (flush() writes now). */
  lastUsed: KeyLastUsed;
  /** Copies the SQLite WAL back into the database file (see the store's checkpoint()); nothing on PostgreSQL. */
  checkpoint(): void;
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** Where a broken PostgreSQL connection is reported (it is replaced by itself). */
  log?: Logger;
  /** SQLite: told of each wait of this thread's connection for the threads' write lock, in seconds (metrics). */
  onWriteLockWait?: (seconds: number) => void;
  /** `serve --short-link-base`, checked: where short links point; unset, `short_links` is refused. */
  shortLinkBase?: string | undefined;
}

/** Opens (and migrates) the store and builds the services on it. */
export async function openAppContainer(
  location: StoreLocation,
  clock: Clock = systemClock,
  options: ContainerOptions = {},
): Promise<AppContainer> {
  const { log, onWriteLockWait } = options;
  const store = await openStore(location, {
    ...(log ? { log } : {}),
    ...(onWriteLockWait ? { onWriteLockWait } : {}),
    onConnectionError: (error) =>
      log?.warn(
        { err: { message: error.message, code: (error as { code?: unknown }).code } },
        'store: a database connection broke; it is replaced at the next query',
      ),
  });
  const lastUsed = new KeyLastUsed(store.users);
  const dispatchWake = new WakeSignal();
  const webhookWake = new WakeSignal();
  const services = apiServices(store, clock, lastUsed, {
    sendCommitted: () => dispatchWake.notify(),
    eventWritten: () => webhookWake.notify(),
    links: new ShortLinkService(store, clock, shortLinkBaseOf(options.shortLinkBase), () => webhookWake.notify()),
  });
  return {
    store,
    wakes: store.wakes,
    rates: store.rates,
    services,
    admin: new AdminService(store, clock),
    accountDirectory: new AccountDirectory(store),
    statements: new AccountStatements(store),
    panelUsers: new UserService(store, clock),
    brands: new BrandService(store, clock),
    inboundAdmin: new InboundAdmin(store, clock),
    smppUsers: new SmppUserAdmin(store, clock),
    iysAdmin: new IysAdmin(store, clock),
    senderIdReview: new SenderIdReview(store, clock),
    audit: new AuditLog(store, clock),
    otpSettings: new OtpSettingsAdmin(store, clock),
    clock,
    dispatchWake,
    webhookWake,
    checkpoint: () => store.checkpoint(),
    lastUsed,
    close: async () => {
      await lastUsed.flush();
      await services.auth.close();
      await store.close();
    },
  };
}

/** A short link base as links are written: without a trailing slash; null when unset. */
function shortLinkBaseOf(base: string | undefined): string | null {
  return base === undefined || base === '' ? null : base.replace(/\/+$/, '');
}

/** The services of the API and the panel's data pages, on one store. */
function apiServices(
  store: Store,
  clock: Clock,
  lastUsed: KeyLastUsed,
  wakes: { sendCommitted: () => void; eventWritten: () => void; links: ShortLinkService },
): Services {
  const sends = new SendService(store, clock, wakes.sendCommitted);
  const services: Services = {
    links: wakes.links,
    clock,
    auth: new AuthService(store.keys, clock, (keyId, at) => lastUsed.seen(keyId, at)),
    accounts: new AccountQueries(store.senderIds),
    sends,
    status: new StatusQueries(store.reports),
    reports: new ReportQueries(store.reports, () => clock.now(), wakes.links),
    // OTP codes come from the CSPRNG; randomInt draws uniformly (no modulo bias).
    otp: new OtpService(sends, randomInt, store, clock, wakes.eventWritten),
    groups: new GroupService(store.directory, clock, store.templates),
    templates: new TemplateService(store.templates, clock),
    blocklist: new BlocklistService(store.directory, clock),
    consents: new ConsentService(store.consents, clock),
    resellers: new ResellerService(store, clock),
    campaigns: new CampaignService(store.campaigns, clock, wakes.sendCommitted),
  };
  return services;
}

/** The process's logger: JSON lines on stdout (`destination`: elsewhere, for tests). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'haberci' },
    // Secrets never reach the logs, whatever object is logged.
    redact: {
      paths: ['api_key', '*.api_key', '*.*.api_key', 'webhook_secret', '*.webhook_secret', 'otp_code', '*.otp_code'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
