import pino from 'pino';
import { Dispatcher, defaultDispatcherOptions } from '../../src/jobs/dispatcher.js';
import { SimulatorCarrier } from '../../src/adapters/carriers/simulator/simulator-carrier.js';
import type { Carrier } from '../../src/ports/carrier.js';
import type { DeliveryState } from '../../src/domain/delivery-state.js';
import type { MessageRecord } from '../../src/ports/reports.js';
import type { Transition } from '../../src/ports/dispatch-queue.js';
import type { AppContainer } from '../../src/main.js';
import { waitFor } from './wait-for.js';

export interface SimulatedDelivery {
  dispatcher: Dispatcher;
  simulator: SimulatorCarrier;
  /** Every state change the dispatcher reported, in order. */
  transitions: Transition[];
  /** Claims and submits one batch of due messages; returns how many were claimed. */
  runOnce(): Promise<number>;
  /**
   * Waits until a message reaches one of `states`, running the dispatcher's maintenance on
   * each poll as its loop would: a report that overtook its submit's commit is kept as
   * unmatched and applied by maintenance.
   */
  waitForState(
    accountId: number,
    messageId: number,
    states: readonly DeliveryState[],
    timeoutMs?: number,
  ): Promise<MessageRecord>;
  stop(): Promise<void>;
}

export interface DeliveryOptions {
  /** Simulator report delay; 0 reports on the next timer tick. */
  delayMs?: number;
  /** Carrier for live keys; the simulator by default (sandbox keys always get the simulator). */
  live?: Carrier;
  /** Run the dispatcher's own loop instead of driving it with runOnce(). */
  background?: boolean;
}

/**
 * A dispatcher with the built-in simulator on a runtime's store and clock. Without
 * `background` nothing is claimed until the test calls runOnce(), so a FixedClock decides
 * exactly what is due.
 */
export async function simulatedDelivery(
  runtime: AppContainer,
  options: DeliveryOptions = {},
): Promise<SimulatedDelivery> {
  const simulator = new SimulatorCarrier(options.delayMs ?? 0, runtime.clock);
  const live = options.live ?? simulator;
  const transitions: Transition[] = [];
  const dispatcher = new Dispatcher({
    store: runtime.store.queue,
    carriers: { live, sandbox: simulator },
    clock: runtime.clock,
    log: pino({ level: 'silent' }),
    options: { ...defaultDispatcherOptions, idleMs: 50 },
    onTransitions: (t) => transitions.push(...t),
    wake: runtime.dispatchWake,
  });
  if (options.background === true) {
    await dispatcher.start();
  } else {
    for (const carrier of new Set([live, simulator])) await carrier.start(dispatcher);
  }
  return {
    dispatcher,
    simulator,
    transitions,
    runOnce: () => dispatcher.runOnce(),
    waitForState: (accountId, messageId, states, timeoutMs) =>
      waitForState(runtime, accountId, messageId, states, timeoutMs, () => dispatcher.maintain()),
    // Stops the loop (if started), waits for in-flight submits and stops the carriers.
    stop: () => dispatcher.stop(),
  };
}

/** The stored message, which must exist. */
export async function storedMessage(
  runtime: AppContainer,
  accountId: number,
  messageId: number,
): Promise<MessageRecord> {
  const m = await runtime.store.reports.findMessage(messageId, accountId);
  if (!m) throw new Error(`no message ${messageId} of account ${accountId}`);
  return m;
}

/** Waits until a message reaches one of `states` and returns it. */
export async function waitForState(
  runtime: AppContainer,
  accountId: number,
  messageId: number,
  states: readonly DeliveryState[],
  timeoutMs = 5_000,
  eachPoll: () => Promise<void> = async () => undefined,
): Promise<MessageRecord> {
  let last: MessageRecord | undefined;
  await waitFor(
    `message ${messageId} to reach ${states.join('/')}`,
    async () => {
      await eachPoll();
      last = await storedMessage(runtime, accountId, messageId);
      return states.includes(last.state);
    },
    { timeoutMs },
  );
  return last ?? storedMessage(runtime, accountId, messageId);
}

/** Recipients the account's /sms/send requests have recorded, ever (the per-minute counter with an open window). */
export function messageCount(runtime: AppContainer, accountId: number): Promise<number> {
  return runtime.store.reports.recipientsSince(accountId, -1);
}
