/**
 * The composition root: the only place that picks adapters (store dialect, clock, carrier)
 * and wires services to them.
 */
import pino from 'pino';
import type { Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { migrate, openDb, sqliteFileIn } from './adapters/store/database.js';
import type { StoreLocation } from './adapters/store/database.js';
import { KyselyStore } from './adapters/store/kysely-store.js';
import { systemClock } from './ports/clock.js';
import type { Clock } from './ports/clock.js';
import { AuthService } from './services/auth.js';
import { AccountQueries } from './services/account-queries.js';
import { AdminService } from './services/admin.js';
import type { Services } from './services/services.js';
import { buildApp } from './http/app.js';
import { SendService } from './services/send-service.js';
import { StatusQueries } from './services/status-queries.js';
import { WakeSignal } from './jobs/wake-signal.js';
import { Dispatcher, defaultDispatcherOptions } from './jobs/dispatcher.js';
import type { DispatcherOptions } from './jobs/dispatcher.js';
import { SimulatorCarrier } from './adapters/carriers/simulator/simulator-carrier.js';
import { HttpWebhookSender } from './adapters/webhooks/http-webhook-sender.js';
import { WebhookDelivery } from './services/webhook-delivery.js';
import { WebhookAdmin } from './services/webhook-admin.js';
import { WebhookWorker, defaultWebhookWorkerOptions } from './jobs/webhook-worker.js';
import type { WebhookWorkerOptions } from './jobs/webhook-worker.js';

export interface Runtime {
  store: KyselyStore;
  services: Services;
  admin: AdminService;
  clock: Clock;
  /** Wakes this process's dispatcher when a send is committed. */
  dispatchWake: WakeSignal;
  /** Wakes this process's webhook worker when message states (and so events) are committed. */
  webhookWake: WakeSignal;
  close(): Promise<void>;
}

export function storeLocation(config: Pick<Config, 'data' | 'database'>): StoreLocation {
  return config.database ? { dialect: 'postgres', url: config.database } : { dialect: 'sqlite', file: sqliteFileIn(config.data) };
}

/** Opens (and migrates) the store and builds the services on it. */
export async function openRuntime(location: StoreLocation, clock: Clock = systemClock): Promise<Runtime> {
  const handle = openDb(location);
  try {
    await migrate(handle);
  } catch (error) {
    await handle.close();
    throw error;
  }
  const store = KyselyStore.open(handle);
  const dispatchWake = new WakeSignal();
  const services: Services = {
    clock,
    auth: new AuthService(store, clock),
    accounts: new AccountQueries(store),
    sends: new SendService(store, clock, () => dispatchWake.notify()),
    status: new StatusQueries(store.messages),
  };
  return { store, services, admin: new AdminService(store, clock), clock, dispatchWake, webhookWake: new WakeSignal(), close: () => store.close() };
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
  return buildApp({
    services: runtime.services,
    logger,
    trustedProxies: config.trustedProxies,
    requestsPerSecond: config.requestsPerSecond,
  });
}

/**
 * The delivery worker of this process: the configured carrier for live keys and the
 * built-in simulator for sandbox keys (and for live keys unless another carrier is set).
 */
export async function startDelivery(runtime: Runtime, config: Pick<Config, 'simDelayMs' | 'leaseMs'>, logger: Logger, options: Partial<DispatcherOptions> = {}): Promise<Dispatcher> {
  const simulator = new SimulatorCarrier(config.simDelayMs, runtime.clock);
  const dispatcher = new Dispatcher(
    runtime.store.messages,
    { live: simulator, sandbox: simulator },
    runtime.clock,
    logger,
    { ...defaultDispatcherOptions, leaseMs: config.leaseMs, ...options },
    (transitions) => {
      if (transitions.length > 0) runtime.webhookWake.notify();
    },
    runtime.dispatchWake,
  );
  await dispatcher.start();
  // The simulator keeps nothing: reports it owed before a restart are owed again.
  simulator.replay(await runtime.store.messages.awaitingReports(simulator.name, 1_000_000));
  return dispatcher;
}

type WebhookConfig = Pick<Config, 'webhookAllowPrivate' | 'webhookTimeoutMs' | 'webhookRetryBaseMs'>;

/** Webhook attempts over HTTP, with the address guard unless private destinations are allowed. */
export function webhookDelivery(runtime: Runtime, config: WebhookConfig): WebhookDelivery {
  const sender = new HttpWebhookSender({ allowPrivate: config.webhookAllowPrivate });
  return new WebhookDelivery(sender, runtime.clock, { timeoutMs: config.webhookTimeoutMs, backoff: { baseMs: config.webhookRetryBaseMs } });
}

/** The provider's webhook commands; close() releases the sender's connections. */
export function webhookAdmin(runtime: Runtime, config: WebhookConfig): { admin: WebhookAdmin; close(): void } {
  const delivery = webhookDelivery(runtime, config);
  return { admin: new WebhookAdmin(runtime.store, delivery, runtime.clock), close: () => delivery.close() };
}

/** The webhook worker of this process, started; stop() finishes its attempts in flight. */
export function startWebhooks(
  runtime: Runtime,
  config: WebhookConfig & Pick<Config, 'webhookConcurrency'>,
  logger: Logger,
  options: Partial<WebhookWorkerOptions> = {},
): { worker: WebhookWorker; stop(): Promise<void> } {
  const delivery = webhookDelivery(runtime, config);
  const worker = new WebhookWorker(
    runtime.store.events,
    delivery,
    runtime.clock,
    logger,
    { ...defaultWebhookWorkerOptions, concurrency: config.webhookConcurrency, ...options },
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
