/**
 * The SMS dispatcher: the claim loop's policy for messages. One file, long because its round,
 * its launch (through the lanes to the carrier) and its recording of outcomes share the
 * window, the lanes and the heartbeat it holds; the parts that stand alone are modules of
 * their own (HandedQueue, LaneScheduler, SubmitRecorder, SendExpander, LeaseHeartbeat).
 */
import type { Logger } from 'pino';
import type { Carrier, CarrierListener, CarrierReceipt, InboundSms, SubmitOutcome } from '../ports/carrier.js';
import type { Clock } from '../ports/clock.js';
import type { ClaimedMessage, DispatchQueue, Transition } from '../ports/dispatch-queue.js';
import type { HandedMessage } from '../ports/dispatch-handoff.js';
import { errorFields } from '../util/error-fields.js';
import { MicroBatcher } from '../util/micro-batcher.js';
import { ClaimLoop } from './claim-loop.js';
import type { ClaimLoopMode, RoundOutcome } from './claim-loop.js';
import { DispatchWindow } from './dispatch-window.js';
import { defaultDispatcherOptions, maxWriteBatch, retryDelay } from './dispatcher-options.js';
import type { DispatcherOptions } from './dispatcher-options.js';
import { HandedQueue } from './handed-queue.js';
import { LaneScheduler } from './lane-scheduler.js';
import { LeaseHeartbeat } from './lease-heartbeat.js';
import { SendExpander } from './send-expander.js';
import { SubmitRecorder } from './submit-recorder.js';
import { WakeSignal } from './wake-signal.js';

export { defaultDispatcherOptions, retryDelay };
export type { DispatcherOptions };

export interface CarrierRoutes {
  live: Carrier;
  /** Sandbox keys' messages never reach a real carrier. */
  sandbox: Carrier;
}

/** What a dispatcher works with; everything but the store, the carriers, the clock and the log has a default. */
export interface DispatcherSetup {
  store: DispatchQueue;
  carriers: CarrierRoutes;
  clock: Clock;
  log: Logger;
  /** Merged over `defaultDispatcherOptions`. */
  options?: Partial<DispatcherOptions>;
  /** Told of the state changes the dispatcher made (each says whether it wrote a webhook event). */
  onTransitions?: (t: Transition[]) => void;
  /** Told when this process commits messages to the store's queue. */
  wake?: WakeSignal;
  /** Stores (and announces) an inbound message. */
  inbound?: (message: InboundSms) => Promise<unknown>;
}

/**
 * Claims due messages from the store and submits them; the store is the queue, so several
 * dispatchers (processes) can run side by side and a restart loses nothing. A message whose
 * submit was in flight when its process died is submitted again when its lease runs out: that
 * window (at most `maxInFlight` messages per dead process) bounds duplicates.
 *
 * When to claim is the ClaimLoop's; this class keeps the policy: handed messages before
 * claims, writing out bulk and scheduled sends, routing to the live or sandbox carrier,
 * recording outcomes (SubmitRecorder), and taking receipts and inbound messages.
 */
export class Dispatcher implements CarrierListener {
  /** Told when this process commits messages to the store's queue (or hands some over). */
  readonly wake: WakeSignal;
  private readonly loop: ClaimLoop;
  private readonly store: DispatchQueue;
  private readonly carriers: CarrierRoutes;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly options: DispatcherOptions;
  private readonly onTransitions: (t: Transition[]) => void;
  private readonly inbound: (message: InboundSms) => Promise<unknown>;
  // Polling intervals are measured in elapsed time, not on the injected clock: the clock is
  // business time (due times, schedules) and may stand still in tests.
  private lastMaintenance = -Infinity;
  private lastExpansion = -Infinity;
  private lastControlCheck = -Infinity;
  private readonly expander: SendExpander;
  private readonly handed: HandedQueue;
  /** Claimed or handed and not yet settled; shared with the HTTP thread when it hands messages off. */
  private window: DispatchWindow;
  /**
   * When (performance.now()) the claim started that came back short, so found the store's
   * queue drained; null while the store may hold due messages a claim would find. A wake
   * (messages queued in this process, or work written out), a full claim or the idle
   * interval clears it. While handed messages keep the dispatcher busy, it does not spend a
   * transaction on a claim that would find nothing.
   */
  private storeDrainedAt: number | null = null;
  /** Live messages held until the carrier has room, in lane and account order; also shares claims. */
  private readonly lanes: LaneScheduler<ClaimedMessage>;
  /** Submits with the live carrier now, and how many it takes at once (unlimited when it does not say). */
  private liveOut = 0;
  private readonly liveCapacity: number;
  private readonly recorder: SubmitRecorder;
  private readonly heartbeat: LeaseHeartbeat;
  /** Receipts are written a batch per transaction, like sent outcomes (SubmitRecorder). */
  private readonly receipts: MicroBatcher<CarrierReceipt, Transition | 'unmatched' | null>;

  constructor(setup: DispatcherSetup) {
    const { store, clock, log } = setup;
    const options: DispatcherOptions = { ...defaultDispatcherOptions, ...setup.options };
    this.store = store;
    this.carriers = setup.carriers;
    this.clock = clock;
    this.log = log;
    this.options = options;
    this.onTransitions = setup.onTransitions ?? (() => undefined);
    this.inbound = setup.inbound ?? (async () => undefined);
    this.wake = setup.wake ?? new WakeSignal();
    this.loop = new ClaimLoop(
      { round: () => this.round(), afterIdle: () => this.afterIdle(), drain: () => this.drain() },
      { idleMs: options.idleMs, gatherMs: options.gatherMs, backOffMs: options.idleMs * 5, label: 'dispatcher' },
      log,
      this.wake,
    );
    // Chunks of 1,000 keep each write short, so sends accepted meanwhile are not held up behind it.
    this.expander = new SendExpander(store, clock, 1000, options.leaseMs);
    this.window = new DispatchWindow(options.maxInFlight);
    this.liveCapacity = this.carriers.live.capacity?.() ?? Number.POSITIVE_INFINITY;
    this.lanes = new LaneScheduler(this.liveCapacity, options.interactiveShare);
    this.handed = new HandedQueue(options.leaseMs);
    this.heartbeat = new LeaseHeartbeat(store, clock, log, options.leaseMs, () => this.handed.waiting());
    this.recorder = new SubmitRecorder(store, clock, log, options, this.onTransitions);
    this.receipts = new MicroBatcher(
      (items: CarrierReceipt[]) => store.applyReceipts(items, clock.now()),
      maxWriteBatch,
      options.writeGatherMs,
    );
  }

  /** The claim loop's mode (for tests and tools). */
  get mode(): ClaimLoopMode {
    return this.loop.mode;
  }

  /** Shares the window with the HTTP side that hands messages off (before start). */
  shareHandoffWindow(window: DispatchWindow): void {
    this.window = window;
  }

  /** Takes messages handed off by this process's HTTP side, whose room in the window it reserved. */
  handOff(messages: readonly HandedMessage[]): void {
    this.handed.receive(messages);
    this.wake.notify();
  }

  async start(): Promise<void> {
    const carriers = new Set([this.carriers.live, this.carriers.sandbox]);
    for (const c of carriers) await c.start(this);
    this.heartbeat.start();
    this.loop.start();
  }

  /** Stops claiming, submits the handed messages it holds, and waits until every submit is recorded. */
  async stop(): Promise<void> {
    await this.loop.stop();
    this.heartbeat.stop();
    const carriers = new Set([this.carriers.live, this.carriers.sandbox]);
    for (const c of carriers) await c.stop();
  }

  /** One round of the claim loop: maintenance and expansion when due, then handed messages and a claim. */
  private async round(): Promise<RoundOutcome> {
    // First: a cancel's answer waits for it, and a chunk of settling below may take a while.
    await this.dropControlled();
    if (performance.now() - this.lastMaintenance >= this.options.maintenanceMs) await this.maintain();
    const expanded = await this.expandIfDue();
    if (expanded > 0) {
      this.storeDrainedAt = null;
      // Another account's messages may be among them: the claim looks again.
      this.lanes.rescanSoon();
    }
    const outcome = await this.fill();
    // Sends written out may be due at once: claim again without a pause.
    return expanded > 0 ? 'full' : outcome;
  }

  /**
   * Woken by a commit of this process that queued work, or the idle interval passed: claim
   * again. A wake that brought handed messages says nothing of the store (at worst, queued
   * work that came with it waits for the next idle interval).
   */
  private afterIdle(): number {
    if (!this.handed.takeArrival()) this.storeDrainedAt = null;
    return 0;
  }

  /** Handed messages are this dispatcher's already: on stop they are submitted like claimed ones. */
  private drain(): void {
    for (const m of this.handed.take(Number.POSITIVE_INFINITY, this.clock.now(), this.window)) this.launch(m);
  }

  /**
   * Starts handed messages first, then claims from the store up to the free window. While
   * the live carrier takes no work (in a cluster, other processes hold its binds), nothing
   * is claimed and nothing more is handed here: the binds' owners claim it from the store.
   */
  private async fill(): Promise<RoundOutcome> {
    const { batchSize, maxInFlight } = this.options;
    const takesWork = this.carriers.live.takesWork?.() ?? true;
    this.window.closeToHandoffs(!takesWork);
    await this.dropControlled();
    while (this.handed.length === 0 && this.window.used() >= maxInFlight) {
      await this.loop.waitForRoom(this.options.controlCheckMs);
      await this.dropControlled();
    }
    const now = this.clock.now();
    const handed = this.handed.take(batchSize, now, this.window);
    for (const m of handed) this.launch(m);
    const want = batchSize - handed.length;
    if (want === 0) return 'full';
    if (!takesWork) return handed.length === 0 ? 'empty' : 'short';
    // A claim that came back short a moment ago found the store empty: handed messages do not go through it.
    if (this.storeDrainedAt !== null && performance.now() - this.storeDrainedAt < this.options.idleMs)
      return handed.length === 0 ? 'empty' : 'short';
    const room = Math.min(want, maxInFlight - this.window.used());
    if (room <= 0 || !this.window.reserve(room)) return handed.length === 0 ? 'empty' : 'full';
    const claimStarted = performance.now();
    let claimed: ClaimedMessage[] = [];
    try {
      claimed = await this.store.claimDue(now, room, now + this.options.leaseMs, this.lanes);
    } catch (error) {
      // A drained queue stays drained: the next claim comes an idle interval after this one.
      if (this.storeDrainedAt !== null) this.storeDrainedAt = claimStarted;
      throw error;
    } finally {
      this.window.release(room - claimed.length);
    }
    this.storeDrainedAt = claimed.length === room ? null : claimStarted;
    for (const m of claimed) this.launch(m);
    const started = handed.length + claimed.length;
    return started === 0 ? 'empty' : claimed.length < room ? 'short' : 'full';
  }

  /**
   * Claimed messages waiting in the lanes whose send was paused or cancelled since their
   * claim are given back unsubmitted (held, or cancelled with their credit back): looked at
   * every `controlCheckMs` while some wait, a query of their sends' ids, never per message.
   * What the carrier has already runs its course.
   */
  private async dropControlled(): Promise<void> {
    if (this.lanes.size === 0 || performance.now() - this.lastControlCheck < this.options.controlCheckMs) return;
    this.lastControlCheck = performance.now();
    const sends = new Set<number>();
    for (const m of this.lanes.waiting()) sends.add(m.sendId);
    const controlled = new Set(await this.store.controlledSends([...sends]));
    if (controlled.size === 0) return;
    const dropped = this.lanes.takeWhere((m) => controlled.has(m.sendId));
    if (dropped.length === 0) return;
    try {
      const transitions = await this.store.giveBack(
        dropped.map((m) => m.id),
        this.clock.now(),
      );
      if (transitions.length > 0) this.onTransitions(transitions);
      this.log.info(
        { messages: dropped.length, sends: [...controlled] },
        'dispatcher: gave back messages of sends paused or cancelled',
      );
    } finally {
      // Given back, or (the write failed) left to their leases, which then run out: either way not ours.
      for (const m of dropped) {
        this.heartbeat.release(m.id);
        this.window.release(1);
        this.loop.settle();
      }
    }
  }

  /**
   * Submits a message of the window; its room is given back once the submit has settled.
   * A live message waits in the lanes until the live carrier has room (a sandbox one goes at once).
   */
  private launch(m: ClaimedMessage): void {
    this.loop.launch();
    this.heartbeat.hold(m.id);
    if (m.sandbox) {
      this.send(m, this.carriers.sandbox);
      return;
    }
    this.lanes.add(m);
    this.pump();
  }

  /** Gives the live carrier the next messages of the lanes while it has room. */
  private pump(): void {
    while (this.liveOut < this.liveCapacity) {
      const m = this.lanes.next();
      if (!m) return;
      this.liveOut += 1;
      this.send(m, this.carriers.live, () => {
        this.liveOut -= 1;
        this.lanes.done(m);
        this.pump();
      });
    }
  }

  private send(m: ClaimedMessage, carrier: Carrier, offCarrier?: () => void): void {
    void this.submit(m, carrier, offCarrier).finally(() => {
      this.heartbeat.release(m.id);
      this.window.release(1);
      this.loop.settle();
    });
  }

  /**
   * Bulk and scheduled sends are written out a chunk at a time between claims; the check
   * runs at most every 100 ms while there is nothing to write, so it costs the hot loop little.
   */
  private async expandIfDue(): Promise<number> {
    if (performance.now() - this.lastExpansion < 100) return 0;
    const written = await this.expander.expandNext();
    if (written === 0) this.lastExpansion = performance.now();
    return written;
  }

  /** Writes out every due bulk or scheduled send, then claims and submits one batch and waits until every submit is settled (for tests and tools). */
  async runOnce(): Promise<number> {
    while ((await this.expander.expandNext()) > 0) {
      /* write out everything due first */
    }
    this.lanes.rescanSoon();
    const now = this.clock.now();
    const handed = this.handed.take(this.options.batchSize, now, this.window);
    const claimed = await this.store.claimDue(
      now,
      this.options.batchSize - handed.length,
      now + this.options.leaseMs,
      this.lanes,
    );
    await Promise.all(
      [...handed, ...claimed].map((m) => this.submit(m, m.sandbox ? this.carriers.sandbox : this.carriers.live)),
    );
    this.window.release(handed.length);
    return handed.length + claimed.length;
  }

  async maintain(): Promise<void> {
    this.lastMaintenance = performance.now();
    const { requeued, cancelled } = await this.store.requeueExpiredLeases(this.clock.now());
    if (requeued > 0) this.log.warn({ requeued }, 'dispatcher: leases ran out; messages returned to the queue');
    if (cancelled.length > 0) this.onTransitions(cancelled);
    const transitions = await this.store.retryUnmatchedReceipts(this.clock.now());
    if (transitions.length > 0) this.onTransitions(transitions);
    if (this.log.isLevelEnabled('debug'))
      for (const t of transitions)
        this.log.debug({ messageId: t.messageId, state: t.state }, 'dispatcher: kept receipt recorded');
  }

  /** Submits a message to `carrier` and records the outcome (`offCarrier` is told in between); never rejects. */
  private async submit(m: ClaimedMessage, carrier: Carrier, offCarrier?: () => void): Promise<void> {
    let outcome: SubmitOutcome;
    try {
      outcome = await carrier.submit(
        m.validUntil === undefined
          ? { messageId: m.id, to: m.recipient, from: m.sender, text: m.text, lang: m.lang }
          : { messageId: m.id, to: m.recipient, from: m.sender, text: m.text, lang: m.lang, validUntil: m.validUntil },
      );
    } catch (error) {
      outcome = { kind: 'retry', reason: error instanceof Error ? error.message : 'carrier error' };
    }
    offCarrier?.();
    try {
      await this.recorder.record(m, carrier.name, outcome, this.clock.now());
      // Per message, so at debug: a message id's way through the logs (docs/operations.md).
      if (this.log.isLevelEnabled('debug')) {
        const detail =
          outcome.kind === 'accepted' ? { carrierMessageIds: outcome.carrierMessageIds } : { reason: outcome.reason };
        this.log.debug(
          { messageId: m.id, carrier: carrier.name, outcome: outcome.kind, ...detail },
          'dispatcher: submit recorded',
        );
      }
    } catch (error) {
      // The lease brings the message back if this write did not happen.
      this.log.error({ err: errorFields(error), messageId: m.id }, 'dispatcher: could not record a submit outcome');
    }
  }

  async onReceipt(receipt: CarrierReceipt): Promise<void> {
    const t = await this.receipts.add(receipt);
    if (t && t !== 'unmatched') this.onTransitions([t]);
    if (this.log.isLevelEnabled('debug')) {
      const fields = { carrierMessageId: receipt.carrierMessageId, status: receipt.status };
      if (t === 'unmatched') this.log.debug(fields, 'dispatcher: receipt kept until its message is known');
      else
        this.log.debug(
          { ...fields, messageId: t?.messageId ?? null, state: t?.state ?? null },
          'dispatcher: receipt recorded',
        );
    }
  }

  /** Stored (and announced) before the carrier acknowledges it to the operator. */
  async onInbound(message: InboundSms): Promise<void> {
    await this.inbound(message);
  }
}
