/** The delivery thread's entry point (see delivery-thread.ts): the workers of `serve`, on a store connection of their own. */
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { createLogger, openRuntime, startDelivery, startWebhooks } from './main.js';
import type { DeliveryStart, FromDelivery, ToDelivery } from './delivery-thread.js';
import type { Runtime } from './main.js';
import type { Dispatcher } from './jobs/dispatcher.js';
import type { WakeSignal } from './jobs/wake-signal.js';
import { DispatchWindow } from './jobs/dispatch-window.js';
import { defaultDispatcherOptions } from './jobs/dispatcher.js';
import type { HandedMessage } from './ports/dispatch-handoff.js';

/**
 * How often the dispatch thread checkpoints the WAL: at full load some hundreds of pages
 * are written in this time, so each checkpoint stays short and the WAL file small.
 */
const checkpointEveryMs = 200;

async function run(port: MessagePort, { part, location, config, webhookWakes, dispatchWindow }: DeliveryStart): Promise<void> {
  const post = (message: FromDelivery): void => port.postMessage(message);
  const logger = createLogger(config.logLevel);
  let runtime: Runtime;
  try {
    // The HTTP thread goes first for the write lock, for up to --delivery-yield-ms.
    const background = location.dialect === 'sqlite' && location.threadLock ? { ...location, threadLock: { buffer: location.threadLock.buffer, as: { role: 'background' as const, yieldMs: config.deliveryYieldMs } } } : location;
    runtime = await openRuntime(background);
  } catch (error) {
    post({ type: 'failed', message: `cannot open the store: ${error instanceof Error ? error.message : String(error)}` });
    return;
  }
  let stop: () => Promise<void>;
  let wake: WakeSignal;
  let receive: (messages: HandedMessage[]) => void = () => undefined;
  if (part === 'dispatch') {
    let dispatcher: Dispatcher;
    try {
      const window = dispatchWindow ? new DispatchWindow(defaultDispatcherOptions.maxInFlight, dispatchWindow) : undefined;
      dispatcher = await startDelivery(runtime, config, logger, {}, window);
    } catch (error) {
      await runtime.close();
      post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
      return;
    }
    // Events written here are delivered by the webhook thread.
    runtime.webhookWake.relayTo(() => webhookWakes.postMessage(null));
    wake = runtime.dispatchWake;
    receive = (messages) => dispatcher.receive(messages);
    // No connection of `serve` checkpoints in its commits (checkpoints: 'manual'): this
    // thread does, off the HTTP thread and outside the write lock.
    const checkpoints = setInterval(() => {
      try {
        runtime.checkpoint();
      } catch (error) {
        // A checkpoint that did not happen now happens at the next tick; it must not end the thread.
        logger.warn({ err: error }, 'WAL checkpoint failed; trying again shortly');
      }
    }, checkpointEveryMs);
    stop = async () => {
      clearInterval(checkpoints);
      await dispatcher.stop();
    };
  } else {
    const webhooks = startWebhooks(runtime, config, logger);
    webhookWakes.on('message', () => runtime.webhookWake.notify());
    wake = runtime.webhookWake;
    stop = () => webhooks.stop();
  }
  port.on('message', (message: ToDelivery) => {
    if (message.type === 'wake') {
      wake.notify();
      return;
    }
    if (message.type === 'handed') {
      receive(message.messages);
      return;
    }
    void (async () => {
      // Submits or webhook attempts in flight finish and their outcomes are stored; what
      // is left stays in the store.
      await stop();
      await runtime.close();
      logger.flush();
      webhookWakes.close();
      port.close();
    })();
  });
  post({ type: 'ready' });
}

if (parentPort) void run(parentPort, workerData as DeliveryStart);
