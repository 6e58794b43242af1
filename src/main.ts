/**
 * The composition root: the only place that picks adapters (store dialect, clock, carrier,
 * webhook sender) and builds services on them. Every surface gets them from here: the API
 * (createHttp, in runtime/http-server.ts), the admin CLI (openAppContainer), the job threads (startDispatcher,
 * startWebhooks); `serve` puts them together in runtime/server.ts.
 */
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import pino from 'pino';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { describeLocation, openStore, sqliteFileIn, storeExists } from './adapters/store/index.js';
import type { SqlStore, StoreLocation } from './adapters/store/index.js';
import { systemClock } from './ports/clock.js';
import type { Clock } from './ports/clock.js';
import { AuthService } from './services/auth.js';
import { AccountQueries } from './services/account-queries.js';
import { AdminService } from './services/admin.js';
import type { Services } from './services/services.js';
import { SendService } from './services/send-service.js';
import { StatusQueries } from './services/status-queries.js';
import { InboundService } from './services/inbound-service.js';
import { ReportQueries } from './services/report-queries.js';
import { OtpService } from './services/otp-service.js';
import { GroupService } from './services/group-service.js';
import { BlocklistService } from './services/blocklist-service.js';
import { WakeSignal } from './jobs/wake-signal.js';
import { Dispatcher, defaultDispatcherOptions } from './jobs/dispatcher.js';
import type { DispatcherOptions } from './jobs/dispatcher.js';
import type { DispatchWindow } from './jobs/dispatch-window.js';
import { SimulatorCarrier } from './adapters/carriers/simulator/simulator-carrier.js';
import { loadSmppCarrier } from './adapters/carriers/smpp/load-smpp-carrier.js';
import type { Carrier, CarrierLinks } from './ports/carrier.js';
import { HttpWebhookSender } from './adapters/webhooks/http-webhook-sender.js';
import { WebhookDelivery } from './services/webhook-delivery.js';
import { retryScale } from './domain/webhook.js';
import { WebhookAdmin } from './services/webhook-admin.js';
import { WebhookCourier, defaultWebhookCourierOptions } from './jobs/webhook-courier.js';
import type { WebhookCourierOptions } from './jobs/webhook-courier.js';
import { KeyLastUsed } from './services/key-last-used.js';
import type { CarrierMetrics, MessageMetrics, WebhookMetrics } from './ports/metrics.js';

/**
 * The application container of one thread: the store, the services built on it once, and
 * the wakes of this thread's jobs. Every thread of `serve` opens its own, on its own store
 * connection; an admin command opens one for its run.
 */
export interface AppContainer {
  store: SqlStore;
  services: Services;
  admin: AdminService;
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

export function storeLocation(config: Pick<Config, 'data' | 'database'>): StoreLocation {
  return config.database
    ? { dialect: 'postgres', url: config.database }
    : { dialect: 'sqlite', file: sqliteFileIn(config.data) };
}

/** No store where the options point: only `serve` and `admin store init` create one. */
export class MissingStoreError extends Error {}

/**
 * The store the options name, if it exists (for the admin commands, which never create
 * one). A missing --data folder is not made: sqliteFileIn would make it.
 */
export async function existingStoreLocation(config: Pick<Config, 'data' | 'database'>): Promise<StoreLocation> {
  const start = 'no store at';
  const hint = '(`haberci serve` or `haberci admin store init` creates one)';
  if (!config.database && !existsSync(resolve(config.data)))
    throw new MissingStoreError(`${start} ${resolve(config.data)} ${hint}`);
  const location = storeLocation(config);
  if (!(await storeExists(location))) throw new MissingStoreError(`${start} ${describeLocation(location)} ${hint}`);
  return location;
}

/** `admin store init`: creates the store, or brings an existing one's schema up to date. */
export async function initStore(
  config: Pick<Config, 'data' | 'database'>,
): Promise<{ store: string; created: boolean }> {
  const location = storeLocation(config);
  const created = !(await storeExists(location));
  const container = await openAppContainer(location);
  await container.close();
  return { store: describeLocation(location), created };
}

/** Opens (and migrates) the store and builds the services on it. */
/** `log`: where a broken PostgreSQL connection is reported (it is replaced by itself). */
export async function openAppContainer(
  location: StoreLocation,
  clock: Clock = systemClock,
  log?: Logger,
): Promise<AppContainer> {
  const store = await openStore(location, {
    ...(log ? { log } : {}),
    onConnectionError: (error) =>
      log?.warn(
        { err: { message: error.message, code: (error as { code?: unknown }).code } },
        'store: a database connection broke; it is replaced at the next query',
      ),
  });
  const lastUsed = new KeyLastUsed(store.users);
  const dispatchWake = new WakeSignal();
  const sends = new SendService(store, clock, () => dispatchWake.notify());
  const services: Services = {
    clock,
    auth: new AuthService(store.keys, clock, (keyId, at) => lastUsed.seen(keyId, at)),
    accounts: new AccountQueries(store.senderIds),
    sends,
    status: new StatusQueries(store.reports),
    reports: new ReportQueries(store.reports, () => clock.now()),
    // OTP codes come from the CSPRNG; randomInt draws uniformly (no modulo bias).
    otp: new OtpService(sends, randomInt),
    groups: new GroupService(store.directory, clock),
    blocklist: new BlocklistService(store.directory, clock),
  };
  return {
    store,
    services,
    admin: new AdminService(store, clock),
    clock,
    dispatchWake,
    webhookWake: new WakeSignal(),
    checkpoint: () => store.checkpoint(),
    lastUsed,
    close: async () => {
      await lastUsed.flush();
      await services.auth.close();
      await store.close();
    },
  };
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

/** What a carrier adapter's loader gives: a checked configuration to build the carrier from, or why it cannot be used. */
type CarrierLoad =
  | { ok: true; open(options: { log: Logger; clock: Clock; metrics?: CarrierMetrics }): Carrier }
  | { ok: false; message: string };

/**
 * The carriers for live keys, by the option (config.ts) that configures each: the first
 * whose option is set is used, else the built-in simulator. Sandbox keys always get the
 * simulator. A new carrier adapter is its folder under adapters/carriers/ (with a loader)
 * and one line here, beside its option.
 */
const liveCarriers: readonly { option: 'smppConfig'; name: string; load(value: string): Promise<CarrierLoad> }[] = [
  { option: 'smppConfig', name: 'smpp', load: loadSmppCarrier },
];

/** The options of every live carrier: what a job thread needs to choose one. */
export type CarrierConfig = Pick<Config, (typeof liveCarriers)[number]['option']>;

/** The configured live carrier's name and checked configuration; null when none is configured (the simulator). */
async function loadLiveCarrier(config: CarrierConfig): Promise<{ name: string; loaded: CarrierLoad } | null> {
  const chosen = liveCarriers.find((c) => config[c.option] !== '');
  return chosen ? { name: chosen.name, loaded: await chosen.load(config[chosen.option]) } : null;
}

async function liveCarrier(
  config: CarrierConfig,
  simulator: SimulatorCarrier,
  container: AppContainer,
  logger: Logger,
  metrics?: CarrierMetrics,
): Promise<Carrier> {
  const live = await loadLiveCarrier(config);
  if (live === null) return simulator;
  if (!live.loaded.ok) throw new Error(live.loaded.message);
  return live.loaded.open({
    log: logger.child({ component: live.name }),
    clock: container.clock,
    ...(metrics ? { metrics } : {}),
  });
}

/**
 * Who watches a dispatcher: `messages` counts its messages' steps (the metrics, the console's
 * traffic); `carrierMetrics` (when metrics are on) its carrier's connections; `carrier` is
 * given the live carrier once built (its connections' state for the provider's console).
 */
export interface DispatchObservers {
  messages?: MessageMetrics;
  carrierMetrics?: CarrierMetrics;
  carrier?: (live: Carrier) => void;
}

/**
 * The dispatcher of this thread, started: the configured carrier for live keys and the
 * built-in simulator for sandbox keys (and for live keys unless another carrier is set).
 * `window`: shared with the HTTP thread when it hands messages off (DispatchHandoff).
 * `onLinks`: told how many connections of the live carrier are bound, now and on every
 * change, when it holds connections (SMPP; the simulator has none).
 */
export async function startDispatcher(
  container: AppContainer,
  config: Pick<Config, 'simDelayMs' | 'leaseMs'> & CarrierConfig,
  logger: Logger,
  options: Partial<DispatcherOptions> = {},
  window?: DispatchWindow,
  onLinks?: (links: CarrierLinks) => void,
  observers: DispatchObservers = {},
): Promise<Dispatcher> {
  const simulator = new SimulatorCarrier(config.simDelayMs, container.clock);
  const inbound = new InboundService(container.store, () => container.webhookWake.notify());
  const live = await liveCarrier(config, simulator, container, logger, observers.carrierMetrics);
  const counted = observers.messages;
  observers.carrier?.(live);
  if (onLinks) live.watchLinks?.(onLinks);
  const dispatcher = new Dispatcher({
    store: container.store.queue,
    carriers: { live, sandbox: simulator },
    clock: container.clock,
    log: logger,
    options: { ...defaultDispatcherOptions, leaseMs: config.leaseMs, ...options },
    // Only changes that wrote an event wake the webhook courier (with no webhook set up,
    // none do, and a wake would be an empty claim).
    onTransitions: (transitions) => {
      if (counted) countTransitions(counted, transitions);
      if (transitions.some((t) => t.webhookEvent === true)) container.webhookWake.notify();
    },
    wake: container.dispatchWake,
    inbound: (message) => inbound.receive(message),
  });
  if (window) dispatcher.shareHandoffWindow(window);
  await dispatcher.start();
  // The simulator keeps nothing: reports it owed before a restart are owed again.
  simulator.replay(await container.store.queue.awaitingReports(simulator.name, 1_000_000));
  return dispatcher;
}

/** Messages' steps from the dispatcher's state changes: sent is submitted; the final states as they are. */
function countTransitions(metrics: MessageMetrics, transitions: readonly { state: string }[]): void {
  for (const t of transitions) {
    if (t.state === 'sent') metrics.messages('submitted', 1);
    else if (t.state === 'delivered' || t.state === 'failed' || t.state === 'expired') metrics.messages(t.state, 1);
  }
}

type WebhookConfig = Pick<Config, 'webhookAllowPrivate' | 'webhookTimeoutMs' | 'webhookRetryBaseMs'>;

/** Webhook attempts over HTTP, with the address guard unless private destinations are allowed. */
export function webhookDelivery(container: AppContainer, config: WebhookConfig): WebhookDelivery {
  const sender = new HttpWebhookSender({ allowPrivate: config.webhookAllowPrivate });
  return new WebhookDelivery(sender, container.clock, {
    timeoutMs: config.webhookTimeoutMs,
    backoff: { scale: retryScale(config.webhookRetryBaseMs) },
  });
}

/** The provider's webhook commands; close() releases the sender's connections. */
export function webhookAdmin(container: AppContainer, config: WebhookConfig): { admin: WebhookAdmin; close(): void } {
  const delivery = webhookDelivery(container, config);
  return { admin: new WebhookAdmin(container.store, delivery, container.clock), close: () => delivery.close() };
}

/** The webhook courier of this thread, started; stop() finishes its attempts in flight. */
export function startWebhooks(
  container: AppContainer,
  config: WebhookConfig & Pick<Config, 'webhookConcurrency'> & Partial<Pick<Config, 'webhookDestinationConcurrency'>>,
  logger: Logger,
  options: Partial<WebhookCourierOptions> = {},
  metrics?: WebhookMetrics,
): { courier: WebhookCourier; stop(): Promise<void> } {
  const delivery = webhookDelivery(container, config);
  const courier = new WebhookCourier({
    store: container.store.events,
    delivery,
    clock: container.clock,
    log: logger,
    options: {
      ...defaultWebhookCourierOptions,
      concurrency: config.webhookConcurrency,
      ...((config.webhookDestinationConcurrency ?? 0) > 0
        ? { destinations: { concurrency: config.webhookDestinationConcurrency } }
        : {}),
      ...options,
    },
    wake: container.webhookWake,
    ...(metrics ? { metrics } : {}),
  });
  courier.start();
  return {
    courier,
    async stop() {
      await courier.stop();
      delivery.close();
    },
  };
}
