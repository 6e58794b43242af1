import type { Config } from '../config.js';
import { createHttp, createLogger, openRuntime, storeLocation } from '../main.js';
import type { Runtime } from '../main.js';
import { defaultKeySettings } from '../services/admin.js';
import { MessageChannel } from 'node:worker_threads';
import { DeliveryThread } from '../delivery-thread.js';
import { ThreadWriteLock } from '../adapters/store/thread-write-lock.js';
import { DispatchWindow } from '../jobs/dispatch-window.js';
import { defaultDispatcherOptions } from '../jobs/dispatcher.js';
import { warmUp } from './warm-up.js';

/** On first start with an empty store: a demo account, sender ID and sandbox key, shown once. */
async function createDemo(runtime: Runtime, address: string): Promise<void> {
  if (await runtime.store.hasAccounts()) return;
  const account = await runtime.admin.createAccount({
    name: 'Demo',
    balanceMain: 1000,
    balanceInternational: 100,
    perMinuteLimit: 0,
    otpBrand: 'Haberci',
    ipAllow: [],
    globalSending: false,
  });
  await runtime.admin.addSenderId(account.id, 'HABERCI', 'approved');
  const key = await runtime.admin.createKey(account.id, { ...defaultKeySettings, sandbox: true });
  process.stdout.write(
    [
      '',
      `First start: created demo account ${account.id} (1000 SMS credit, sender ID HABERCI) and a sandbox key.`,
      'The key is shown only this once; keep it:',
      '',
      `  ${key.api_key}`,
      '',
      'Try it:',
      `  curl -s -X POST ${address}/balance/ -H 'Content-Type: application/json' -d '{"api_key":"${key.api_key}"}'`,
      '',
    ].join('\n') + '\n',
  );
}

export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  // Before the store opens and the delivery threads start, so nothing competes with it.
  // It only makes the first seconds faster: if it cannot run, the server starts cold.
  if (config.warmUp > 0) {
    try {
      const warm = await warmUp(config, config.warmUp);
      const fields = { requests: warm.requests, ms: warm.ms, unexpected: warm.unexpected };
      if (warm.unexpected > 0) logger.warn(fields, 'request path warmed up, but some warm-up requests were not answered 200');
      else logger.info(fields, 'request path warmed up');
    } catch (error) {
      logger.warn({ err: error }, 'warm-up skipped: the server starts cold');
    }
  }
  // On SQLite the HTTP thread and the delivery threads share one write lock in memory, and
  // with delivery threads the dispatch thread checkpoints the WAL, so no commit does.
  const stored = storeLocation(config);
  const location =
    stored.dialect === 'sqlite'
      ? { ...stored, threadLock: { buffer: new ThreadWriteLock().buffer, as: { role: 'foreground' as const } }, checkpoints: config.worker ? ('manual' as const) : ('auto' as const) }
      : stored;
  let runtime: Runtime;
  try {
    runtime = await openRuntime(location);
  } catch (error) {
    throw new Error(`cannot open the store: ${error instanceof Error ? error.message : String(error)}`);
  }
  // The delivery threads start first: a bad carrier configuration stops start-up before the
  // port opens. If one dies later, the process goes with it (as an error in the same thread
  // would) so a supervisor restarts the whole service.
  const crashed = (error: Error): void => {
    logger.fatal({ err: error }, 'a delivery thread failed');
    logger.flush();
    process.exit(1);
  };
  let dispatch: DeliveryThread | null = null;
  let webhooks: DeliveryThread | null = null;
  if (config.worker) {
    const between = new MessageChannel();
    const window = new DispatchWindow(defaultDispatcherOptions.maxInFlight);
    try {
      dispatch = await DeliveryThread.start({ part: 'dispatch', location, config, webhookWakes: between.port1, dispatchWindow: window.buffer }, crashed);
      webhooks = await DeliveryThread.start({ part: 'webhooks', location, config, webhookWakes: between.port2 }, crashed);
    } catch (error) {
      await dispatch?.stop();
      await runtime.close();
      throw new Error(`cannot start the delivery worker: ${error instanceof Error ? error.message : String(error)}`);
    }
    const [toDispatch, toWebhooks] = [dispatch, webhooks];
    runtime.dispatchWake.relayTo(() => toDispatch.wake());
    runtime.webhookWake.relayTo(() => toWebhooks.wake());
    // Sends accepted here go straight to the dispatch thread, already leased to it.
    runtime.services.sends.handOffTo({ leaseMs: config.leaseMs, reserve: (n) => window.reserve(n), release: (n) => window.release(n), hand: (messages) => toDispatch.hand(messages) });
  }
  // Dispatching stops first: its last outcomes may add events for the webhook thread.
  const stopDelivery = async (): Promise<void> => {
    await dispatch?.stop();
    await webhooks?.stop();
  };
  const app = await createHttp(runtime, config, logger);
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await stopDelivery();
    await runtime.close();
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new Error(`cannot listen on ${config.host}:${config.port}: the port is already in use`);
    if (code === 'EADDRNOTAVAIL') throw new Error(`cannot listen on ${config.host}:${config.port}: the address is not on this machine`);
    throw new Error(`cannot listen on ${config.host}:${config.port}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (config.demo) await createDemo(runtime, address);
  // The ready line is written whatever the log level: scripts wait for it.
  logger.child({}, { level: 'info' }).info({ address }, `haberci ready on ${address}`);

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: no new requests, finishing the ones in flight');
    // close() stops accepting connections and waits for in-flight requests to finish.
    await app.close();
    // Submits and webhook attempts in flight finish and are recorded before the store
    // closes (what is not yet attempted stays pending in the store).
    await stopDelivery();
    await runtime.close();
    logger.info('stopped');
    logger.flush();
    process.exit(0);
  };
  process.once('SIGTERM', (s) => void stop(s));
  process.once('SIGINT', (s) => void stop(s));
}
