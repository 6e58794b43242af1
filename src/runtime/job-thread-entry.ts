/**
 * A job thread's entry point (worker_threads; see job-thread.ts): the dispatch or webhook
 * job of `serve` (built by the composition root: startJob), wired to the thread's port: the
 * HTTP thread's wakes, hand-offs, asks and stop; the other job thread's wakes; and, in the
 * dispatch thread, the SQLite WAL checkpoints.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { Logger } from 'pino';
import { createLogger, jobMetrics, startJob } from '../main.js';
import type { RunningJob, ThreadMetrics } from '../main.js';
import type { Ask, FromJobThread, JobThreadStart, ToJobThread } from './thread-protocol.js';

/**
 * How often the dispatch thread checkpoints the WAL: at full load some hundreds of pages
 * are written in this time, so each checkpoint stays short and the WAL file small.
 */
const checkpointEveryMs = 200;

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

/**
 * No connection of `serve` checkpoints in its commits (checkpoints: 'manual'): the dispatch
 * thread does, on a timer, off the HTTP thread and outside the write lock. Returns the
 * timer's stop.
 */
function checkpointEvery(ms: number, job: RunningJob, logger: Logger): () => void {
  const timer = setInterval(() => {
    try {
      job.checkpoint();
    } catch (error) {
      // A checkpoint that did not happen now happens at the next tick; it must not end the thread.
      logger.warn({ err: error }, 'WAL checkpoint failed; trying again shortly');
    }
  }, ms);
  return () => clearInterval(timer);
}

async function run(
  port: MessagePort,
  { job, location, config, webhookWakes, dispatchWindow, metrics: counted }: JobThreadStart,
): Promise<void> {
  const post = (message: FromJobThread): void => port.postMessage(message);
  const logger = createLogger(config.logLevel);
  const metrics = await jobMetrics(job, counted === true);
  let running: RunningJob | null = null;
  let stopCheckpoints: () => void = () => undefined;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const end = async (): Promise<void> => {
    // Submits or webhook attempts in flight finish and their outcomes are stored; what
    // is left stays in the store.
    const current = running;
    running = null;
    stopCheckpoints();
    await current?.stop();
    metrics?.close();
    logger.flush();
    webhookWakes.close();
    port.close();
  };
  port.on('message', (message: ToJobThread) => {
    if (message.type === 'wake') running?.wake();
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
      // Events written by the dispatch thread are delivered by the webhook thread.
      eventsWritten: () => webhookWakes.postMessage(null),
    });
  } catch (error) {
    post({ type: 'failed', message: reason(error) });
    await end();
    return;
  }
  if (job === 'dispatch') stopCheckpoints = checkpointEvery(checkpointEveryMs, running, logger);
  // The dispatch thread's wakes: it wrote events.
  else webhookWakes.on('message', () => running?.wake());
  post({ type: 'ready' });
  await stopped;
  await end();
}

if (parentPort) void run(parentPort, workerData as JobThreadStart);
