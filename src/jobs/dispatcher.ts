import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Carrier, CarrierListener, CarrierReport, InboundSms, SubmitOutcome } from '../ports/carrier.js';
import type { Clock } from '../ports/clock.js';
import type { ClaimedMessage, MessageStore, SentItem, Transition } from '../ports/message-store.js';
import { retryStoreWrite } from './store-retry.js';
import { LeaseHeartbeat } from './lease-heartbeat.js';
import { errorFields } from '../util/error-fields.js';
import { WakeSignal } from './wake-signal.js';
import { MicroBatcher } from '../util/micro-batcher.js';
import { SendExpander } from './send-expander.js';
import type { HandedMessage } from '../ports/dispatch-handoff.js';
import { DispatchWindow } from './dispatch-window.js';
import { defaultDispatcherOptions, maxWriteBatch, retryDelay } from './dispatcher-options.js';
import type { DispatcherOptions } from './dispatcher-options.js';

export { defaultDispatcherOptions, retryDelay };
export type { DispatcherOptions };

export interface CarrierRoutes {
  live: Carrier;
  /** Sandbox keys' messages never reach a real carrier. */
  sandbox: Carrier;
}


/**
 * Claims due messages from the store and submits them; the store is the queue, so several
 * dispatchers (processes) can run side by side and a restart loses nothing. A message whose
 * submit was in flight when its worker died is submitted again when its lease runs out: that
 * window (at most `maxInFlight` messages per dead worker) bounds duplicates.
 */
export class Dispatcher implements CarrierListener {
  private running = false;
  private loop: Promise<void> | null = null;
  private inFlight = 0;
  private readonly settled = new WakeSignal();
  /** Ends a gathering pause at once when the dispatcher stops. */
  private readonly stopping = new WakeSignal();
  // Polling intervals are measured in elapsed time, not on the injected clock: the clock is
  // business time (due times, schedules) and may stand still in tests.
  private lastMaintenance = -Infinity;
  private lastExpansion = -Infinity;
  private readonly expander: SendExpander;
  /** Messages this process stored already leased to this dispatcher, oldest first (see DispatchHandoff). */
  private handed: HandedMessage[] = [];
  /** Claimed or handed and not yet settled; shared with the HTTP thread when it hands messages off. */
  private window: DispatchWindow;
  /**
   * Whether the store may hold due messages a claim would find. A claim that came back
   * short clears it; a wake (messages queued in this process, or work written out) or the
   * idle interval sets it again. While handed messages keep the dispatcher busy, it does
   * not spend a transaction on a claim that would find nothing.
   */
  private storeMayHaveDue = true;
  private lastClaim = -Infinity;
  /** Handed messages came since the loop last slept: its wake may have been theirs, not the store's. */
  private handedSinceWait = false;
  /**
   * Submit outcomes and reports are written a batch per transaction, at most 500 items a
   * batch (a longer transaction would keep HTTP requests waiting behind it), gathered for
   * `writeGatherMs` so that fewer transactions carry them.
   */
  private readonly sent: MicroBatcher<SentItem, Transition[]>;
  private readonly heartbeat: LeaseHeartbeat;
  private readonly reports: MicroBatcher<CarrierReport, Transition | 'unmatched' | null>;

  constructor(
    private readonly store: MessageStore,
    private readonly carriers: CarrierRoutes,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: DispatcherOptions = defaultDispatcherOptions,
    /** Told of the state changes the dispatcher made (each says whether it wrote a webhook event). */
    private readonly onTransitions: (t: Transition[]) => void = () => undefined,
    readonly wake: WakeSignal = new WakeSignal(),
    private readonly inbound: (message: InboundSms) => Promise<unknown> = async () => undefined,
  ) {
    // Chunks of 1,000 keep each write short, so sends accepted meanwhile are not held up behind it.
    this.expander = new SendExpander(store, clock, 1000, options.leaseMs);
    this.window = new DispatchWindow(options.maxInFlight);
    this.heartbeat = new LeaseHeartbeat(store, clock, log, options.leaseMs, () => this.handed);
    this.sent = new MicroBatcher((items: SentItem[]) => store.markSentMany(items, clock.now()), maxWriteBatch, options.writeGatherMs);
    this.reports = new MicroBatcher((items: CarrierReport[]) => store.applyReports(items, clock.now()), maxWriteBatch, options.writeGatherMs);
  }

  /** Shares the window with the HTTP side that hands messages off (before start). */
  shareHandoffWindow(window: DispatchWindow): void {
    this.window = window;
  }

  /** Takes messages handed off by this process's HTTP side, whose room in the window it reserved. */
  handOff(messages: readonly HandedMessage[]): void {
    for (const m of messages) this.handed.push(m);
    this.handedSinceWait = true;
    this.wake.notify();
  }

  async start(): Promise<void> {
    const carriers = new Set([this.carriers.live, this.carriers.sandbox]);
    for (const c of carriers) await c.start(this);
    this.running = true;
    this.heartbeat.start();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake.notify();
    this.stopping.notify();
    await this.loop;
    // Handed messages are this dispatcher's already: they are submitted like claimed ones.
    for (const m of this.takeHandedOff(Number.POSITIVE_INFINITY, this.clock.now())) this.launch(m);
    while (this.inFlight > 0) await this.settled.wait(50);
    this.heartbeat.stop();
    const carriers = new Set([this.carriers.live, this.carriers.sandbox]);
    for (const c of carriers) await c.stop();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        if (performance.now() - this.lastMaintenance >= this.options.maintenanceMs) await this.maintain();
        const expanded = await this.expandIfDue();
        if (expanded > 0) this.storeMayHaveDue = true;
        const { started, asked } = await this.fill();
        if (started === 0 && expanded === 0) {
          await this.wake.wait(this.options.idleMs);
          // Woken by a commit of this process that queued work, or the idle interval passed:
          // claim again. A wake that brought handed messages says nothing of the store (at
          // worst, queued work that came with it waits for the next idle interval).
          if (!this.handedSinceWait) this.storeMayHaveDue = true;
          this.handedSinceWait = false;
        }
        else if (started > 0 && started < asked && expanded === 0) await this.stopping.wait(this.options.gatherMs);
        // Store calls settle as microtasks: without this, claims and expansion chunks would
        // follow each other with no HTTP request read in between.
        else await yieldToEventLoop();
      } catch (error) {
        this.log.error({ err: error }, 'dispatcher: store error; retrying shortly');
        await this.wake.wait(this.options.idleMs * 5);
      }
    }
  }

  /**
   * Starts handed messages first, then claims from the store up to the free window; returns
   * how many were asked for and started.
   */
  private async fill(): Promise<{ started: number; asked: number }> {
    const { batchSize, maxInFlight } = this.options;
    while (this.handed.length === 0 && this.window.used() >= maxInFlight) await this.settled.wait(1000);
    const now = this.clock.now();
    const handed = this.takeHandedOff(batchSize, now);
    for (const m of handed) this.launch(m);
    const want = batchSize - handed.length;
    if (want === 0) return { started: handed.length, asked: batchSize };
    // A claim that came back short a moment ago found the store empty: handed messages do not go through it.
    if (!this.storeMayHaveDue && performance.now() - this.lastClaim < this.options.idleMs) return { started: handed.length, asked: handed.length === 0 ? 0 : batchSize };
    const room = Math.min(want, maxInFlight - this.window.used());
    if (room <= 0 || !this.window.reserve(room)) return { started: handed.length, asked: handed.length };
    this.lastClaim = performance.now();
    let claimed: ClaimedMessage[] = [];
    try {
      claimed = await this.store.claimDue(now, room, now + this.options.leaseMs);
    } finally {
      this.window.release(room - claimed.length);
    }
    this.storeMayHaveDue = claimed.length === room;
    for (const m of claimed) this.launch(m);
    return { started: handed.length + claimed.length, asked: handed.length + room };
  }

  /**
   * Up to `room` handed messages. One with less than half its lease left is let go: the
   * lease brings it back to the store's queue, and submitting it now could overlap with a
   * claim of it after the lease.
   */
  private takeHandedOff(room: number, now: number): HandedMessage[] {
    if (this.handed.length === 0) return [];
    let taken = 0;
    const started: HandedMessage[] = [];
    while (started.length < room && taken < this.handed.length) {
      const m = this.handed[taken] as HandedMessage;
      taken += 1;
      if (m.leaseUntil - now >= this.options.leaseMs / 2) started.push(m);
    }
    this.handed = taken === this.handed.length ? [] : this.handed.slice(taken);
    this.window.release(taken - started.length);
    return started;
  }

  /** Submits a message of the window; its room is given back once the submit has settled. */
  private launch(m: ClaimedMessage): void {
    this.inFlight += 1;
    this.heartbeat.hold(m.id);
    void this.submit(m).finally(() => {
      this.heartbeat.release(m.id);
      this.inFlight -= 1;
      this.window.release(1);
      this.settled.notify();
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
    const now = this.clock.now();
    const handed = this.takeHandedOff(this.options.batchSize, now);
    const claimed = await this.store.claimDue(now, this.options.batchSize - handed.length, now + this.options.leaseMs);
    await Promise.all([...handed, ...claimed].map((m) => this.submit(m)));
    this.window.release(handed.length);
    return handed.length + claimed.length;
  }

  async maintain(): Promise<void> {
    this.lastMaintenance = performance.now();
    const requeued = await this.store.requeueExpiredLeases(this.clock.now());
    if (requeued > 0) this.log.warn({ requeued }, 'dispatcher: leases ran out; messages returned to the queue');
    const transitions = await this.store.retryUnmatchedReports(this.clock.now());
    if (transitions.length > 0) this.onTransitions(transitions);
  }

  private async submit(m: ClaimedMessage): Promise<void> {
    const carrier = m.sandbox ? this.carriers.sandbox : this.carriers.live;
    let outcome: SubmitOutcome;
    try {
      outcome = await carrier.submit({ messageId: m.id, to: m.recipient, from: m.sender, text: m.text, lang: m.lang });
    } catch (error) {
      outcome = { kind: 'retry', reason: error instanceof Error ? error.message : 'carrier error' };
    }
    const now = this.clock.now();
    try {
      // The carrier has the message now: losing this write to a database blip would send it
      // again when the lease runs out, so it is retried for up to half the lease.
      await retryStoreWrite(() => this.recordOutcome(m, carrier.name, outcome, now), this.options.leaseMs / 2, (error, attempt) => {
        if (attempt === 1) this.log.warn({ err: errorFields(error), messageId: m.id }, 'dispatcher: could not record a submit outcome; trying again');
      });
    } catch (error) {
      // The lease brings the message back if this write did not happen.
      this.log.error({ err: errorFields(error), messageId: m.id }, 'dispatcher: could not record a submit outcome');
    }
  }

  private async recordOutcome(m: ClaimedMessage, carrier: string, outcome: SubmitOutcome, now: number): Promise<void> {
    if (outcome.kind === 'accepted') {
      this.onTransitions(await this.sent.add({ messageId: m.id, carrier, carrierMessageIds: outcome.carrierMessageIds }));
    } else if (outcome.kind === 'rejected' || m.attempts >= this.options.maxAttempts) {
      const detail = outcome.kind === 'rejected' ? `Rejected by the operator: ${outcome.reason}` : `Not submitted after ${m.attempts} attempts: ${outcome.reason}`;
      const t = await this.store.markFailed(m.id, detail, now);
      if (t) this.onTransitions([t]);
    } else {
      await this.store.markRetry(m.id, now + retryDelay(m.attempts, this.options, outcome.afterMs), `Waiting to retry: ${outcome.reason}`);
    }
  }

  async onReport(report: CarrierReport): Promise<void> {
    const t = await this.reports.add(report);
    if (t && t !== 'unmatched') this.onTransitions([t]);
  }

  /** Stored (and announced) before the carrier acknowledges it to the operator. */
  async onInbound(message: InboundSms): Promise<void> {
    await this.inbound(message);
  }
}
