/**
 * A job thread's entry point (worker_threads; see job-thread.ts): the dispatch or webhook
 * thread of `serve`, whose rows of the job table the composition root starts (startJob),
 * wired to the thread's port: the HTTP thread's wakes, hand-offs, asks and stop; and the
 * port to the other job thread, both ways, for the wake channels one raises for the other.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { WakeChannel } from '../ports/wakes.js';
import { createLogger, jobMetrics, startJob } from '../main.js';
import type { RunningJob, ThreadMetrics } from '../main.js';
import type { Ask, FromJobThread, JobThreadStart, ToJobThread } from './thread-protocol.js';

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function answer(
  id: number,
  what: Ask,
  running: RunningJob | null,
  metrics: ThreadMetrics | null,
): Promise<FromJobThread> {
  if (what === 'metrics') return { type: 'answer', id, metrics: metrics ? await metrics.json() : [] };
  return { type: 'answer', id, connections: running?.carrier?.connections?.() ?? [] };
}

async function run(
  port: MessagePort,
  { job, location, config, peerWakes, dispatchWindow, metrics: counted }: JobThreadStart,
): Promise<void> {
  const post = (message: FromJobThread): void => port.postMessage(message);
  const logger = createLogger(config.logLevel);
  const metrics = await jobMetrics(job, counted === true);
  let running: RunningJob | null = null;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const end = async (): Promise<void> => {
    // Submits or webhook attempts in flight finish and their outcomes are stored; what
    // is left stays in the store.
    const current = running;
    running = null;
    await current?.stop();
    metrics?.close();
    logger.flush();
    peerWakes.close();
    port.close();
  };
  port.on('message', (message: ToJobThread) => {
    if (message.type === 'wake') running?.wake(message.channel);
    else if (message.type === 'hand-off') running?.handOff(message.messages);
    else if (message.type === 'ask')
      void answer(message.id, message.what, running, metrics).then(post, () =>
        post({ type: 'answer', id: message.id }),
      );
    else stop();
  });
  try {
    running = await startJob({
      job,
      location,
      config,
      logger,
      metrics,
      dispatchWindow,
      onLinks: (links) => post({ type: 'carrier-links', ...links }),
      // The other job thread is the only one the port reaches (the HTTP thread relays its own).
      relay: (_thread, channel) => peerWakes.postMessage(channel),
    });
  } catch (error) {
    post({ type: 'failed', message: reason(error) });
    await end();
    return;
  }
  // The other job thread's wakes (the dispatch thread's `outcomes.written`, for the webhook courier).
  peerWakes.on('message', (channel: WakeChannel) => running?.wake(channel));
  post({ type: 'ready' });
  await stopped;
  await end();
}

if (parentPort) void run(parentPort, workerData as JobThreadStart);
