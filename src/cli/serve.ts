import type { Config } from '../config.js';
import { createHttp, createLogger, openRuntime, stopHttp, storeLocation } from '../main.js';
import type { Runtime } from '../main.js';
import { defaultKeySettings } from '../services/admin.js';
import { MessageChannel } from 'node:worker_threads';
import { DeliveryThread } from '../delivery-thread.js';
import { ThreadWriteLock } from '../adapters/store/thread-write-lock.js';
import { DispatchWindow } from '../jobs/dispatch-window.js';
import { defaultDispatcherOptions } from '../jobs/dispatcher.js';
import { WarmUp } from './warm-up.js';
import { loadSmppConfig } from '../adapters/carriers/smpp/smpp-config.js';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import { UserService } from '../services/panel-users.js';

/** The demo account's panel user: its password, like the key, is shown this once. */
const demoEmail = 'demo@haberci.local';

/** On first start with an empty store: a demo account, sender ID, sandbox key and panel user, shown once. */
async function createDemo(runtime: Runtime, address: string, panel: boolean): Promise<void> {
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
  const password = randomBytes(12).toString('base64url');
  await new UserService(runtime.store, runtime.clock).create({ accountId: account.id, email: demoEmail, password });
  const panelUrl = `${address}/panel/`;
  const curl = `curl -s -X POST ${address}/balance/ -H 'Content-Type: application/json' -d '{"api_key":"${key.api_key}"}'`;
  if (process.stdout.isTTY) {
    process.stdout.write(
      [
        '',
        `First start: created demo account ${account.id} (1000 SMS credit, sender ID HABERCI) and a sandbox key.`,
        'The key is shown only this once; keep it:',
        '',
        `  ${key.api_key}`,
        '',
        'Try it:',
        `  ${curl}`,
        '',
        ...(panel ? [`Panel: ${panelUrl}`, `  sign in as ${demoEmail} with the password ${password} (shown only this once)`, ''] : []),
      ].join('\n') + '\n',
    );
    return;
  }
  // Not a terminal: stdout is a stream of JSON lines (a log collector's), and this is one
  // of them, whatever the log level. The key is its `demo_api_key`, shown this once.
  const line = {
    level: 30,
    time: Date.now(),
    service: 'haberci',
    msg: 'first start: created a demo account and a sandbox key; the key is shown only this once',
    demo_account_id: account.id,
    demo_sender_id: 'HABERCI',
    demo_api_key: key.api_key,
    try: curl,
    ...(panel ? { panel_url: panelUrl, demo_panel_email: demoEmail, demo_panel_password: password } : {}),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  // The warm-up's store first (before the real store opens and threads start on it), so
  // nothing competes with it. It only makes the first seconds faster: if it cannot run, the
  // server starts cold.
  let warm: WarmUp | null = null;
  // A bad carrier configuration fails start-up at once, not after the warm-up.
  if (config.worker && config.smppConfig !== '') {
    const loaded = await loadSmppConfig(config.smppConfig);
    if (!loaded.ok) throw new Error(`cannot start the delivery worker: ${loaded.message}`);
  }
  if (config.warmUp > 0) {
    try {
      warm = await WarmUp.prepare(config);
    } catch (error) {
      logger.warn({ err: error }, 'warm-up skipped: the server starts cold');
    }
  }
  try {
    return await serveWarmed(config, logger, warm);
  } finally {
    // On a failed start: every thread has left the warm-up's store by now (stopped).
    await warm?.close();
  }
}

/** Runs the warm-up's requests (with the delivery threads on its store when they are there) and logs what it did. */
async function runWarmUp(config: Config, logger: Logger, warm: WarmUp, threads: { dispatch: DeliveryThread; webhooks: DeliveryThread } | null): Promise<void> {
  const failure = threads?.dispatch.warmUpFailure ?? threads?.webhooks.warmUpFailure ?? null;
  if (threads && failure === null) {
    const { dispatch, webhooks } = threads;
    warm.handTo((messages) => dispatch.hand(messages), { dispatch: () => dispatch.wake(), webhooks: () => webhooks.wake() });
  } else if (failure !== null) {
    logger.warn({ reason: failure }, 'delivery warm-up skipped: the delivery threads start cold');
  }
  try {
    const result = await warm.run(config, config.warmUp);
    const fields = { requests: result.requests, ms: result.ms, unexpected: result.unexpected };
    if (result.unexpected > 0) logger.warn(fields, 'request path warmed up, but some warm-up requests were not answered 200');
    else logger.info(fields, 'request path warmed up');
    const delivery = result.delivery;
    if (delivery && delivery.webhooks < delivery.messages) logger.warn(delivery, 'delivery threads warmed up, but not every warm-up message was delivered in time');
    else if (delivery) logger.info(delivery, 'delivery threads warmed up');
  } catch (error) {
    logger.warn({ err: error }, 'warm-up skipped: the server starts cold');
  }
}

async function serveWarmed(config: Config, logger: Logger, warm: WarmUp | null): Promise<void> {
  // On SQLite the HTTP thread and the delivery threads share one write lock in memory, and
  // with delivery threads the dispatch thread checkpoints the WAL, so no commit does.
  const stored = storeLocation(config);
  const location =
    stored.dialect === 'sqlite'
      ? { ...stored, threadLock: { buffer: new ThreadWriteLock().buffer, as: { role: 'foreground' as const } }, checkpoints: config.worker ? ('manual' as const) : ('auto' as const) }
      : stored;
  const open = async (): Promise<Runtime> => {
    try {
      return await openRuntime(location, undefined, logger);
    } catch (error) {
      throw new Error(`cannot open the store: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  // The HTTP thread opens (and migrates) the real store before any delivery thread works
  // on it: threads that warm up start on the warm-up's store and move over afterwards;
  // without a warm-up they start live, so the store is opened first.
  const warmUp = config.worker ? warm?.delivery : undefined;
  let runtime: Runtime | null = warmUp ? null : await open();
  // The delivery threads start before the port opens: a bad carrier configuration stops
  // start-up. If one dies later, the process goes with it (as an error in the same thread
  // would) so a supervisor restarts the whole service.
  const crashed = (error: Error): void => {
    logger.fatal({ err: error }, 'a delivery thread failed');
    logger.flush();
    process.exit(1);
  };
  let dispatch: DeliveryThread | null = null;
  let webhooks: DeliveryThread | null = null;
  const window = new DispatchWindow(defaultDispatcherOptions.maxInFlight);
  // Dispatching stops first: its last outcomes may add events for the webhook thread.
  const stopDelivery = async (): Promise<void> => {
    await dispatch?.stop();
    await webhooks?.stop();
  };
  if (config.worker) {
    const between = new MessageChannel();
    try {
      dispatch = await DeliveryThread.start({ part: 'dispatch', location, config, webhookWakes: between.port1, dispatchWindow: window.buffer, warmUp }, crashed);
      webhooks = await DeliveryThread.start({ part: 'webhooks', location, config, webhookWakes: between.port2, warmUp }, crashed);
    } catch (error) {
      await stopDelivery();
      await runtime?.close();
      throw new Error(`cannot start the delivery worker: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (warm) await runWarmUp(config, logger, warm, dispatch && webhooks && warmUp ? { dispatch, webhooks } : null);
  if (!runtime) {
    try {
      runtime = await open();
    } catch (error) {
      await stopDelivery();
      throw error;
    }
  }
  if (dispatch && webhooks) {
    try {
      // After the HTTP thread opened (and migrated) the store.
      await dispatch.goLive();
      await webhooks.goLive();
    } catch (error) {
      await stopDelivery();
      await runtime.close();
      throw new Error(`cannot start the delivery worker: ${error instanceof Error ? error.message : String(error)}`);
    }
    const [toDispatch, toWebhooks] = [dispatch, webhooks];
    runtime.dispatchWake.relayTo(() => toDispatch.wake());
    runtime.webhookWake.relayTo(() => toWebhooks.wake());
    // Sends accepted here go straight to the dispatch thread, already leased to it.
    runtime.services.sends.handOffTo({ leaseMs: config.leaseMs, reserve: (n) => window.reserve(n), release: (n) => window.release(n), hand: (messages) => toDispatch.hand(messages) });
  }
  // No thread is on the warm-up's store any more: it is removed before the port opens.
  await warm?.close();
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
  if (config.demo) await createDemo(runtime, address, config.panel);
  // The ready line is written whatever the log level: scripts wait for it.
  logger.child({}, { level: 'info' }).info({ address }, `haberci ready on ${address}`);

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: no new requests, finishing the ones in flight');
    // Keep-alive clients get an answer with Connection: close for what they still send,
    // then close() stops accepting connections and waits for in-flight requests to finish.
    await stopHttp(app, config);
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
