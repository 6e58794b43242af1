/** The delivery thread's entry point (see delivery-thread.ts): the workers of `serve`, on a store connection of their own. */
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { createLogger, openRuntime, startDelivery, startWebhooks } from './main.js';
import type { DeliveryStart, FromDelivery, ToDelivery } from './delivery-thread.js';

async function run(port: MessagePort, { location, config }: DeliveryStart): Promise<void> {
  const post = (message: FromDelivery): void => port.postMessage(message);
  const logger = createLogger(config.logLevel);
  let runtime;
  try {
    runtime = await openRuntime(location.dialect === 'sqlite' ? { ...location, lockRole: 'background' } : location);
  } catch (error) {
    post({ type: 'failed', message: `cannot open the store: ${error instanceof Error ? error.message : String(error)}` });
    return;
  }
  let dispatcher;
  try {
    dispatcher = await startDelivery(runtime, config, logger);
  } catch (error) {
    await runtime.close();
    post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  const webhooks = startWebhooks(runtime, config, logger);
  const wakes = { dispatch: runtime.dispatchWake, webhook: runtime.webhookWake };
  port.on('message', (message: ToDelivery) => {
    if (message.type === 'wake') {
      wakes[message.signal].notify();
      return;
    }
    void (async () => {
      // Submits in flight finish and their outcomes are stored; then the webhook attempts
      // in flight (the last outcomes may have added events); what is left stays in the store.
      await dispatcher.stop();
      await webhooks.stop();
      await runtime.close();
      logger.flush();
      post({ type: 'stopped' });
      port.close();
    })();
  });
  post({ type: 'ready' });
}

if (parentPort) void run(parentPort, workerData as DeliveryStart);
