/**
 * The composition root: the only place that picks adapters (store dialect, clock, carrier)
 * and wires services to them.
 */
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import pino from 'pino';
import type { Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { migrate, openDb, sqliteFileIn } from './adapters/store/database.js';
import type { StoreLocation } from './adapters/store/database.js';
import { KyselyStore } from './adapters/store/kysely-store.js';
import { describeLocation, storeExists } from './adapters/store/store-presence.js';
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
import { panelDataServices } from './services/panel/panel-data-services.js';
import { WakeSignal } from './jobs/wake-signal.js';
import { Dispatcher, defaultDispatcherOptions } from './jobs/dispatcher.js';
import type { DispatcherOptions } from './jobs/dispatcher.js';
import type { DispatchWindow } from './jobs/dispatch-window.js';
import { SimulatorCarrier } from './adapters/carriers/simulator/simulator-carrier.js';
import { SmppCarrier } from './adapters/carriers/smpp/smpp-carrier.js';
import { loadSmppConfig } from './adapters/carriers/smpp/smpp-config.js';
import type { Carrier } from './ports/carrier.js';
import { HttpWebhookSender } from './adapters/webhooks/http-webhook-sender.js';
import { WebhookDelivery } from './services/webhook-delivery.js';
import { retryScale } from './domain/webhook.js';
import { WebhookAdmin } from './services/webhook-admin.js';
import { KeyLastUsed } from './services/key-last-used.js';
import { WebhookWorker, defaultWebhookWorkerOptions } from './jobs/webhook-worker.js';
import type { WebhookWorkerOptions } from './jobs/webhook-worker.js';
import type { PanelPluginOptions } from './panel/plugin.js';

export interface Runtime {
  store: KyselyStore;
  services: Services;
  admin: AdminService;
  clock: Clock;
  /** Wakes this process's dispatcher when a send is committed. */
  dispatchWake: WakeSignal;
  /** Wakes this process's webhook worker when message states (and so events) are committed. */
  webhookWake: WakeSignal;
  /** Keys' last use, noted by authentication and written every 30 s (flush() writes now). */
  lastUsed: KeyLastUsed;
  /** Copies the SQLite WAL back into the database file (see Db.checkpoint); nothing on PostgreSQL. */
  checkpoint(): void;
  close(): Promise<void>;
}

export function storeLocation(config: Pick<Config, 'data' | 'database'>): StoreLocation {
  return config.database ? { dialect: 'postgres', url: config.database } : { dialect: 'sqlite', file: sqliteFileIn(config.data) };
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
  if (!config.database && !existsSync(resolve(config.data))) throw new MissingStoreError(`${start} ${resolve(config.data)} ${hint}`);
  const location = storeLocation(config);
  if (!(await storeExists(location))) throw new MissingStoreError(`${start} ${describeLocation(location)} ${hint}`);
  return location;
}

/** `admin store init`: creates the store, or brings an existing one's schema up to date. */
export async function initStore(config: Pick<Config, 'data' | 'database'>): Promise<{ store: string; created: boolean }> {
  const location = storeLocation(config);
  const created = !(await storeExists(location));
  const runtime = await openRuntime(location);
  await runtime.close();
  return { store: describeLocation(location), created };
}

/** Opens (and migrates) the store and builds the services on it. */
/** `log`: where a broken PostgreSQL connection is reported (it is replaced by itself). */
export async function openRuntime(location: StoreLocation, clock: Clock = systemClock, log?: Logger): Promise<Runtime> {
  const handle = openDb(location, (error) => log?.warn({ err: { message: error.message, code: (error as { code?: unknown }).code } }, 'store: a database connection broke; it is replaced at the next query'));
  try {
    await migrate(handle);
  } catch (error) {
    await handle.close();
    throw error;
  }
  const store = KyselyStore.open(handle);
  const lastUsed = new KeyLastUsed(store.users);
  const dispatchWake = new WakeSignal();
  const sends = new SendService(store, clock, () => dispatchWake.notify());
  const services: Services = {
    clock,
    auth: new AuthService(store, clock, (keyId, at) => lastUsed.seen(keyId, at)),
    accounts: new AccountQueries(store),
    sends,
    status: new StatusQueries(store.messages),
    reports: new ReportQueries(store.messages, () => clock.now()),
    // OTP codes come from the CSPRNG; randomInt draws uniformly (no modulo bias).
    otp: new OtpService(sends, randomInt),
    groups: new GroupService(store.directory, clock),
    blocklist: new BlocklistService(store.directory, clock),
  };
  services.panelData = panelDataServices({ store, clock, sends, groups: services.groups, blocklist: services.blocklist });
  return {
    store,
    services,
    admin: new AdminService(store, clock),
    clock,
    dispatchWake,
    webhookWake: new WakeSignal(),
    checkpoint: () => handle.checkpoint?.(),
    lastUsed,
    close: async () => {
      await lastUsed.flush();
      await store.close();
    },
  };
}

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'haberci' },
    // Secrets never reach the logs, whatever object is logged.
    redact: { paths: ['api_key', '*.api_key', '*.*.api_key', 'webhook_secret', '*.webhook_secret', 'otp_code', '*.otp_code'], censor: '[redacted]' },
  });
}

export async function createHttp(runtime: Runtime, config: Config, logger: Logger): Promise<FastifyInstance> {
  // Loaded here, not at the top: admin commands share this module and need no HTTP server.
  const { buildApp } = await import('./http/app.js');
  return buildApp({
    ...(config.panel ? { panel: await panelOptions(runtime, config) } : {}),
    services: runtime.services,
    logger,
    trustedProxies: config.trustedProxies,
    requestsPerSecond: config.requestsPerSecond,
    connections: {
      headersTimeoutMs: config.headersTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      idleTimeoutMs: config.idleTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
      maxConnections: config.maxConnections,
      maxConnectionsPerAddress: config.maxConnectionsPerAddress,
    },
  });
}

/** What the customer panel works with: the runtime's store and services, scoped per account by AccountPanel. */
async function panelOptions(runtime: Runtime, config: Config): Promise<PanelPluginOptions> {
  const { UserService } = await import('./services/panel-users.js');
  const { AccountPanel } = await import('./services/account-panel.js');
  const webhooks = webhookAdmin(runtime, config);
  return {
    users: new UserService(runtime.store, runtime.clock),
    account: new AccountPanel(runtime.store, runtime.admin, webhooks.admin, runtime.clock),
    services: runtime.services,
    clock: runtime.clock,
    close: () => webhooks.close(),
  };
}

/** Stops the HTTP side: a drain of `--drain-ms` for keep-alive clients, then the requests in flight finish. */
export async function stopHttp(app: FastifyInstance, config: Pick<Config, 'drainMs'>): Promise<void> {
  const { stopApp } = await import('./http/app.js');
  await stopApp(app, config.drainMs);
}

/**
 * The delivery worker of this process: the configured carrier for live keys and the
 * built-in simulator for sandbox keys (and for live keys unless another carrier is set).
 */
/** The carrier for live keys: SMPP when connections are configured, else the simulator. */
async function liveCarrier(config: Pick<Config, 'smppConfig'>, simulator: SimulatorCarrier, runtime: Runtime, logger: Logger): Promise<Carrier> {
  if (config.smppConfig === '') return simulator;
  const loaded = await loadSmppConfig(config.smppConfig);
  if (!loaded.ok) throw new Error(loaded.message);
  return new SmppCarrier(loaded.config, { log: logger.child({ component: 'smpp' }), clock: runtime.clock });
}

/** `window`: shared with the HTTP thread when it hands messages over (DispatchHandoff). */
export async function startDelivery(
  runtime: Runtime,
  config: Pick<Config, 'simDelayMs' | 'leaseMs' | 'smppConfig'>,
  logger: Logger,
  options: Partial<DispatcherOptions> = {},
  window?: DispatchWindow,
): Promise<Dispatcher> {
  const simulator = new SimulatorCarrier(config.simDelayMs, runtime.clock);
  const inbound = new InboundService(runtime.store, () => runtime.webhookWake.notify());
  const dispatcher = new Dispatcher(
    runtime.store.messages,
    { live: await liveCarrier(config, simulator, runtime, logger), sandbox: simulator },
    runtime.clock,
    logger,
    { ...defaultDispatcherOptions, leaseMs: config.leaseMs, ...options },
    // Only changes that wrote an event wake the webhook worker (with no webhook set up,
    // none do, and a wake would be an empty claim).
    (transitions) => {
      if (transitions.some((t) => t.webhookEvent === true)) runtime.webhookWake.notify();
    },
    runtime.dispatchWake,
    (message) => inbound.receive(message),
  );
  if (window) dispatcher.shareWindow(window);
  await dispatcher.start();
  // The simulator keeps nothing: reports it owed before a restart are owed again.
  simulator.replay(await runtime.store.messages.awaitingReports(simulator.name, 1_000_000));
  return dispatcher;
}

type WebhookConfig = Pick<Config, 'webhookAllowPrivate' | 'webhookTimeoutMs' | 'webhookRetryBaseMs'>;

/** Webhook attempts over HTTP, with the address guard unless private destinations are allowed. */
export function webhookDelivery(runtime: Runtime, config: WebhookConfig): WebhookDelivery {
  const sender = new HttpWebhookSender({ allowPrivate: config.webhookAllowPrivate });
  return new WebhookDelivery(sender, runtime.clock, { timeoutMs: config.webhookTimeoutMs, backoff: { scale: retryScale(config.webhookRetryBaseMs) } });
}

/** The provider's webhook commands; close() releases the sender's connections. */
export function webhookAdmin(runtime: Runtime, config: WebhookConfig): { admin: WebhookAdmin; close(): void } {
  const delivery = webhookDelivery(runtime, config);
  return { admin: new WebhookAdmin(runtime.store, delivery, runtime.clock), close: () => delivery.close() };
}

/** The webhook worker of this process, started; stop() finishes its attempts in flight. */
export function startWebhooks(
  runtime: Runtime,
  config: WebhookConfig & Pick<Config, 'webhookConcurrency'> & Partial<Pick<Config, 'webhookDestinationConcurrency'>>,
  logger: Logger,
  options: Partial<WebhookWorkerOptions> = {},
): { worker: WebhookWorker; stop(): Promise<void> } {
  const delivery = webhookDelivery(runtime, config);
  const worker = new WebhookWorker(
    runtime.store.events,
    delivery,
    runtime.clock,
    logger,
    {
      ...defaultWebhookWorkerOptions,
      concurrency: config.webhookConcurrency,
      ...((config.webhookDestinationConcurrency ?? 0) > 0 ? { destinations: { concurrency: config.webhookDestinationConcurrency } } : {}),
      ...options,
    },
    runtime.webhookWake,
  );
  worker.start();
  return {
    worker,
    async stop() {
      await worker.stop();
      delivery.close();
    },
  };
}
