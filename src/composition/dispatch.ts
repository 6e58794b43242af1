/**
 * The dispatcher of a thread and its carriers: the live carrier chosen from one list
 * (`liveCarriers`), the built-in simulator for sandbox keys, inbound messages and the wakes
 * of the webhook courier.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../ports/clock.js';
import type { Carrier, CarrierLinks } from '../ports/carrier.js';
import type { CarrierMetrics, MessageMetrics } from '../ports/metrics.js';
import type { CarrierBinds } from '../ports/carrier-binds.js';
import type { HandedMessage } from '../ports/dispatch-handoff.js';
import { InboundService } from '../services/inbound-service.js';
import { Dispatcher, defaultDispatcherOptions } from '../jobs/dispatcher.js';
import type { DispatcherOptions } from '../jobs/dispatcher.js';
import { DispatchWindow } from '../jobs/dispatch-window.js';
import { SimulatorCarrier } from '../adapters/carriers/simulator/simulator-carrier.js';
import { loadSmppCarrier } from '../adapters/carriers/smpp/load-smpp-carrier.js';
import type { AppContainer } from './container.js';

/** What a carrier adapter's loader gives: a checked configuration to build the carrier from, or why it cannot be used. */
type CarrierLoad =
  | {
      ok: true;
      open(options: {
        log: Logger;
        clock: Clock;
        metrics?: CarrierMetrics;
        cluster?: { binds: CarrierBinds; owner: string; leaseMs: number };
      }): Carrier;
    }
  | { ok: false; message: string };

/**
 * The carriers for live keys, by the option (config.ts) that configures each: the first
 * whose option is set is used, else the built-in simulator. Sandbox keys always get the
 * simulator. A new carrier adapter is its folder under adapters/carriers/ (with a loader)
 * and one line here, beside its option.
 */
const liveCarriers: readonly { option: 'smppConfig'; name: string; load(value: string): Promise<CarrierLoad> }[] = [
  { option: 'smppConfig', name: 'smpp', load: loadSmppCarrier },
];

/** The options of every live carrier: what a job thread needs to choose one. */
export type CarrierConfig = Pick<Config, (typeof liveCarriers)[number]['option']>;

/** The configured live carrier's name and checked configuration; null when none is configured (the simulator). */
async function loadLiveCarrier(config: CarrierConfig): Promise<{ name: string; loaded: CarrierLoad } | null> {
  const chosen = liveCarriers.find((c) => config[c.option] !== '');
  return chosen ? { name: chosen.name, loaded: await chosen.load(config[chosen.option]) } : null;
}

async function liveCarrier(
  config: CarrierConfig,
  simulator: SimulatorCarrier,
  open: { logger: Logger; clock: Clock; metrics?: CarrierMetrics | undefined; binds: CarrierBinds; leaseMs: number },
): Promise<Carrier> {
  const live = await loadLiveCarrier(config);
  if (live === null) return simulator;
  if (!live.loaded.ok) throw new Error(live.loaded.message);
  return live.loaded.open({
    log: open.logger.child({ component: live.name }),
    clock: open.clock,
    ...(open.metrics ? { metrics: open.metrics } : {}),
    // The binds are shared by every process of the store, by leases as long as a message's.
    cluster: {
      binds: open.binds,
      owner: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
      leaseMs: open.leaseMs,
    },
  });
}

/**
 * The room of a dispatcher in flight, counted in memory its thread shares with the HTTP
 * thread (DispatchHandoff): a new one, or, in the dispatch thread, the HTTP thread's `buffer`.
 */
export function dispatchWindow(buffer?: SharedArrayBuffer): DispatchWindow {
  return new DispatchWindow(defaultDispatcherOptions.maxInFlight, buffer);
}

/**
 * From now on the container's accepted sends go straight to a dispatcher whose window is
 * `window` (shared memory when it runs in the dispatch thread): room is reserved in the
 * window inside the accepting transaction, and the committed messages go to `handOff`,
 * stored already leased for `leaseMs`.
 */
export function handOffSends(
  container: AppContainer,
  window: DispatchWindow,
  leaseMs: number,
  handOff: (messages: HandedMessage[]) => void,
): void {
  container.services.sends.handOffTo({
    leaseMs,
    reserve: (n) => window.reserveHanded(n),
    release: (n) => window.release(n),
    handOff,
  });
}

/**
 * Who watches a dispatcher: `messages` counts its messages' steps (the metrics, the console's
 * traffic); `carrierMetrics` (when metrics are on) its carrier's connections; `carrier` is
 * given the live carrier once built (its connections' state for the provider's console).
 */
export interface DispatchObservers {
  messages?: MessageMetrics;
  carrierMetrics?: CarrierMetrics;
  carrier?: (live: Carrier) => void;
}

export interface DispatcherStart {
  container: AppContainer;
  config: Pick<Config, 'simDelayMs' | 'leaseMs'> & CarrierConfig;
  logger: Logger;
  /** Over the defaults and the configured lease (the dispatch thread's poll interval). */
  options?: Partial<DispatcherOptions>;
  /** Shared with the HTTP thread when it hands messages off (DispatchHandoff). */
  window?: DispatchWindow;
  /**
   * Told how many connections of the live carrier are bound, now and on every change, when
   * it holds connections (SMPP; the simulator has none).
   */
  onLinks?: (links: CarrierLinks) => void;
  observers?: DispatchObservers;
}

/**
 * The dispatcher of this thread, started: the configured carrier for live keys and the
 * built-in simulator for sandbox keys (and for live keys unless another carrier is set).
 */
export async function startDispatcher(start: DispatcherStart): Promise<Dispatcher> {
  const { container, config, logger, window, onLinks, observers = {} } = start;
  const simulator = new SimulatorCarrier(config.simDelayMs, container.clock);
  const inbound = new InboundService(container.store, () => container.webhookWake.notify());
  const live = await liveCarrier(config, simulator, {
    logger,
    clock: container.clock,
    metrics: observers.carrierMetrics,
    binds: container.store.carrierBinds,
    leaseMs: config.leaseMs,
  });
  const counted = observers.messages;
  observers.carrier?.(live);
  if (onLinks) live.watchLinks?.(onLinks);
  const dispatcher = new Dispatcher({
    store: container.store.queue,
    carriers: { live, sandbox: simulator },
    clock: container.clock,
    log: logger,
    options: { ...defaultDispatcherOptions, leaseMs: config.leaseMs, ...start.options },
    // Only changes that wrote an event wake the webhook courier (with no webhook set up,
    // none do, and a wake would be an empty claim).
    onTransitions: (transitions) => {
      if (counted) countTransitions(counted, transitions);
      if (transitions.some((t) => t.webhookEvent === true)) container.webhookWake.notify();
    },
    wake: container.dispatchWake,
    inbound: (message) => inbound.receive(message),
  });
  if (window) dispatcher.shareHandoffWindow(window);
  const startedAt = container.clock.now();
  await dispatcher.start();
  // The simulator keeps nothing: reports it owed before a restart are owed again.
  simulator.replayOwed(() => container.store.queue.awaitingReceipts(simulator.name, startedAt, 1_000_000));
  return dispatcher;
}

/** Messages' steps from the dispatcher's state changes: sent is submitted; the final states as they are. */
function countTransitions(metrics: MessageMetrics, transitions: readonly { state: string }[]): void {
  for (const t of transitions) {
    if (t.state === 'sent') metrics.messages('submitted', 1);
    else if (t.state === 'delivered' || t.state === 'failed' || t.state === 'expired') metrics.messages(t.state, 1);
  }
}
