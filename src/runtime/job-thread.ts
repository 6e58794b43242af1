/**
 * The HTTP thread's handle on a job thread of `serve`. `serve` runs its jobs in worker
 * threads, each with a store connection of its own, so HTTP requests, dispatching and
 * webhook sending do not queue behind each other on one event loop: the `dispatch` thread
 * runs the dispatcher, the carriers, receipts and inbound messages; the `webhooks` thread
 * sends webhook events. The threads share nothing but the store, the SQLite write lock, the
 * dispatch window and wakes: a commit of sends on the HTTP side wakes the dispatcher at once
 * instead of at its next poll, and a state change that wrote events wakes the webhook
 * sender. What they say to each other is in thread-protocol.ts.
 */
import { Worker } from 'node:worker_threads';
import type { HandedMessage } from '../ports/dispatch-handoff.js';
import type { CarrierLinks, ConnectionState } from '../ports/carrier.js';
import type { WakeChannel } from '../ports/wakes.js';
import type { MetricsJson } from '../main.js';
import type { Ask, FromJobThread, JobThreadStart, ToJobThread } from './thread-protocol.js';

/** How long an ask (metrics, connections) waits for the thread's answer before going without. */
const askLimitMs = 2_000;

type Answer = Extract<FromJobThread, { type: 'answer' }>;

/** How long stop() waits for the thread to finish its submits and attempts in flight. */
const stopLimitMs = 30_000;

export class JobThread {
  /** Set once stop() is called: the thread's exit from then on is expected. */
  private stopping = false;
  /** Set once the thread's job runs. */
  private live = false;
  /** Resolves when the thread has ended. */
  private readonly exited: Promise<void>;
  /** Told of the start (`ready`) or failure of the thread; null once told. */
  private awaiting: ((outcome: FromJobThread | Error) => void) | null = null;
  /** The live carrier's bound connections, as the thread last told (null: it never did: no SMPP). */
  private links: CarrierLinks | null = null;
  /** Asks awaiting their answer, by id. */
  private readonly asked = new Map<number, (answer: Answer | null) => void>();
  private nextAsk = 1;

  private constructor(
    private readonly thread: Worker,
    private readonly onCrash: (error: Error) => void,
  ) {
    thread.on('message', (message: FromJobThread) => {
      if (message.type === 'carrier-links') {
        this.links = {
          bound: message.bound,
          total: message.total,
          ...(message.elsewhere === undefined ? {} : { elsewhere: message.elsewhere }),
        };
        return;
      }
      if (message.type === 'answer') {
        this.asked.get(message.id)?.(message);
        return;
      }
      if (message.type === 'ready') this.live = true;
      this.settle(message);
    });
    thread.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    thread.on('exit', (code) =>
      this.fail(new Error(`the delivery thread exited with code ${code}${this.live ? '' : ' before it started'}`)),
    );
  }

  private settle(outcome: FromJobThread | Error): void {
    const awaiting = this.awaiting;
    this.awaiting = null;
    awaiting?.(outcome);
  }

  private fail(error: Error): void {
    if (this.awaiting) this.settle(error);
    else if (this.live && !this.stopping) this.onCrash(error);
  }

  /** Resolves at the thread's start; rejects when it fails or dies first. */
  private started(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.awaiting = (outcome) => {
        if (outcome instanceof Error) reject(outcome);
        else if (outcome.type === 'failed') reject(new Error(outcome.message));
        else resolve();
      };
    });
  }

  /**
   * Starts the thread and resolves once its job runs (its carrier is up). Rejects with the
   * reason when it cannot start (a bad SMPP configuration, an unreachable store). `onCrash`
   * is told when the thread dies later without being asked to stop.
   */
  static async start(start: JobThreadStart, onCrash: (error: Error) => void): Promise<JobThread> {
    const thread = new Worker(new URL('./job-thread-entry.js', import.meta.url), {
      workerData: start,
      transferList: [start.peerWakes],
    });
    const handle = new JobThread(thread, onCrash);
    await handle.started();
    return handle;
  }

  /** The live carrier's connections as the thread last told: null when it holds none (the simulator) or has not said yet. */
  get carrierLinks(): CarrierLinks | null {
    return this.links;
  }

  /** Asks the thread; null when it does not answer within askLimitMs (busy, stopping). */
  private ask(what: Ask): Promise<Answer | null> {
    const id = this.nextAsk++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(null), askLimitMs);
      const done = (answer: Answer | null): void => {
        clearTimeout(timer);
        this.asked.delete(id);
        resolve(answer);
      };
      this.asked.set(id, done);
      const message: ToJobThread = { type: 'ask', id, what };
      this.thread.postMessage(message);
    });
  }

  /** The thread's metrics registry as plain data; empty when it counts none or does not answer in time. */
  async metrics(): Promise<MetricsJson> {
    return (await this.ask('metrics'))?.metrics ?? [];
  }

  /** The live carrier's connections now; empty when the thread holds none or does not answer in time. */
  async connections(): Promise<ConnectionState[]> {
    return (await this.ask('connections'))?.connections ?? [];
  }

  /** Wakes the thread's rows that `channel` names (new sends were committed, events were written). */
  wake(channel: WakeChannel): void {
    const message: ToJobThread = { type: 'wake', channel };
    this.thread.postMessage(message);
  }

  /** Hands off to the dispatch thread messages stored already leased to it (see DispatchHandoff). */
  handOff(messages: HandedMessage[]): void {
    const message: ToJobThread = { type: 'hand-off', messages };
    this.thread.postMessage(message);
  }

  /** Finishes the submits and webhook attempts in flight, stores their outcomes, and ends the thread. */
  async stop(): Promise<void> {
    this.stopping = true;
    const message: ToJobThread = { type: 'stop' };
    this.thread.postMessage(message);
    const timer = setTimeout(() => void this.thread.terminate(), stopLimitMs);
    await this.exited;
    clearTimeout(timer);
  }
}
