import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.js';
import type { AttemptResult, ClaimedEvent, EventStore } from '../ports/event-store.js';
import type { WebhookDelivery } from '../services/webhook-delivery.js';
import type { WebhookMetrics } from '../ports/metrics.js';
import { noWebhookMetrics } from '../ports/metrics.js';
import { WakeSignal } from './wake-signal.js';
import { MicroBatcher } from '../util/micro-batcher.js';
import { ClaimLoop } from './claim-loop.js';
import type { ClaimLoopMode, RoundOutcome } from './claim-loop.js';
import {
  DestinationSlots,
  defaultDestinationConcurrency,
  defaultDestinationOptions,
  destinationOf,
  unhealthyOutcome,
} from './destination-slots.js';
import { AccountSlots } from './account-slots.js';
import { WebhookBuckets } from './webhook-buckets.js';
import { defaultGatherMs, defaultWebhookCourierOptions } from './webhook-courier-options.js';
import type { WebhookCourierOptions, WebhookCourierSetup } from './webhook-courier-options.js';

export type { WebhookCourierOptions, WebhookCourierSetup } from './webhook-courier-options.js';
export { defaultWebhookCourierOptions } from './webhook-courier-options.js';

/** Longest wait for more free slots before claiming fewer events than a batch. */
const slotGatherMs = 2;

/**
 * Carries due webhook events from the store, the outbox, to their receivers: at least
 * once, unordered, with bounded concurrency shared among destinations (DestinationSlots: a
 * share each, claims round-robin across keys, pauses for failing receivers). A claim leases
 * an event for its attempt's timeout and some; if the process dies, the event is due again
 * when the lease runs out, so a restart (or another process) loses nothing. Outcomes are
 * written a batch per transaction. When to claim is the ClaimLoop's; this class keeps the
 * policy: how much to claim for which destination, one attempt per event (or per bucket, for
 * a key that takes buckets: WebhookBuckets), its record.
 */
export class WebhookCourier {
  /** Told when this process writes events (or a full destination has room again). */
  readonly wake: WakeSignal;
  private readonly loop: ClaimLoop;
  private readonly store: EventStore;
  private readonly delivery: WebhookDelivery;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly options: WebhookCourierOptions;
  private readonly metrics: WebhookMetrics;
  /** Attempts on the wire; the others of the loop's unsettled ones are made and their outcome not yet written. */
  private onWire = 0;
  /** Whether the last round found some destination with no room at all. */
  private destinationFull = false;
  private readonly destinations: DestinationSlots;
  private readonly accounts: AccountSlots;
  private readonly buckets: WebhookBuckets;
  private readonly results = new MicroBatcher(async (items: AttemptResult[]) => {
    await this.store.recordAttempts(items, this.clock.now());
    return items.map(() => undefined);
  });

  constructor(setup: WebhookCourierSetup) {
    const options = setup.options ?? defaultWebhookCourierOptions;
    this.store = setup.store;
    this.delivery = setup.delivery;
    this.clock = setup.clock;
    this.log = setup.log;
    this.options = options;
    this.metrics = setup.metrics ?? noWebhookMetrics;
    this.wake = setup.wake ?? new WakeSignal();
    this.buckets = new WebhookBuckets(() => this.wake.notify());
    this.loop = new ClaimLoop(
      { round: () => this.round(), afterIdle: () => this.afterIdle(), drain: () => undefined },
      {
        idleMs: options.idleMs,
        gatherMs: options.gatherMs ?? defaultGatherMs,
        backOffMs: options.idleMs * 4,
        label: 'webhooks',
      },
      setup.log,
      this.wake,
    );
    this.accounts = new AccountSlots(options.accountConcurrency ?? Math.max(1, Math.floor(options.concurrency / 2)));
    this.destinations = new DestinationSlots({
      ...defaultDestinationOptions,
      concurrency: defaultDestinationConcurrency(options.concurrency),
      total: options.concurrency,
      ...options.destinations,
    });
  }

  /** The claim loop's mode (for tests and tools). */
  get mode(): ClaimLoopMode {
    return this.loop.mode;
  }

  start(): void {
    if (this.loop.mode === 'starting' || this.loop.mode === 'stopped') this.loop.start();
  }

  /** Stops claiming, and waits until the attempts in flight are made and recorded. */
  async stop(): Promise<void> {
    await this.loop.stop();
    this.buckets.stop();
  }

  private fastKey(keyId: number): boolean {
    const destination = this.destinations.destinationOfKeyNow(keyId);
    return destination !== undefined && this.destinations.fast(destination);
  }

  /** Woken by a full destination's freed slot: let a few more free before claiming for it. */
  private afterIdle(): number {
    return this.destinationFull ? slotGatherMs : 0;
  }

  /**
   * Claims up to the free slots, each destination's share at most, and starts their
   * attempts; an event whose destination turns out to have no room (a key not seen before,
   * or several keys of one destination) is given back at once. A claim cut short by
   * destination shares did not drain the queue: it is `full`, with no gathering pause.
   */
  private async round(): Promise<RoundOutcome> {
    const room = await this.room();
    const now = this.clock.now();
    const { concurrency: perKey } = this.destinations.options;
    const keyLimits = this.destinations.keyLimits(now);
    for (const [keyId, limit] of this.accounts.keyLimits((k) => this.fastKey(k)))
      keyLimits.set(keyId, Math.min(limit, keyLimits.get(keyId) ?? perKey));
    const heldKeys = this.destinations.heldKeys(now);
    const destinationFull = [...keyLimits.values()].includes(0);
    const bucketing = this.buckets.sizes.size > 0;
    if (bucketing) this.buckets.share(keyLimits, perKey, now);
    const claimed = await this.store.claimDue(now, room, now + this.delivery.leaseMs, {
      perKey,
      keyLimits,
      heldKeys,
      ...(bucketing ? { bucketSizes: this.buckets.sizes } : {}),
    });
    const perKeyClaimed = new Map<number, number>();
    const refused: ClaimedEvent[] = [];
    let byKey: Map<number, ClaimedEvent[]> | undefined;
    for (const event of claimed) {
      perKeyClaimed.set(event.keyId, (perKeyClaimed.get(event.keyId) ?? 0) + 1);
      if (this.buckets.takes(event)) {
        byKey ??= new Map();
        const events = byKey.get(event.keyId);
        if (events) events.push(event);
        else byKey.set(event.keyId, [event]);
        continue;
      }
      if (this.fits(event, now)) void this.deliver(event);
      else refused.push(event);
    }
    const bucketed = byKey
      ? this.buckets.start(byKey, now, refused, (first, bucket) => {
          if (!this.fits(first, now)) return false;
          void this.deliver(first, bucket);
          return true;
        })
      : 0;
    if (refused.length > 0) await this.store.release(refused, now);
    const filled = [...perKeyClaimed].some(([keyId, n]) => n >= (keyLimits.get(keyId) ?? perKey));
    const started = claimed.length - refused.length;
    this.destinationFull = destinationFull;
    if (started === 0) return 'empty';
    if (bucketed > 0) return 'full';
    return started < room && !(filled || refused.length > 0) ? 'short' : 'full';
  }

  /**
   * Waits for free slots and returns how many to claim. A slot frees when its attempt has an
   * outcome, so claiming overlaps with writing the last outcomes (their leases keep those
   * events from being claimed again); outcomes not yet written are bounded, so a slow store
   * slows claiming. Slots are gathered for a moment so a claim is a batch, not one event.
   */
  private async room(): Promise<number> {
    const { concurrency, batchSize } = this.options;
    const enough = Math.min(batchSize, Math.max(1, Math.floor(concurrency / 4)));
    const started = performance.now();
    for (;;) {
      const free = concurrency - this.onWire;
      const writable = this.loop.unsettled - this.onWire < concurrency * 4;
      if (writable && (free >= enough || (free > 0 && performance.now() - started >= slotGatherMs)))
        return Math.min(batchSize, free);
      await this.loop.waitForRoom(free > 0 && writable ? slotGatherMs : 1000);
    }
  }

  /** Whether the event's destination and account have room for an attempt now; if not, they learn its key. */
  private fits(event: ClaimedEvent, now: number): boolean {
    const destination = destinationOf(event.target);
    if (
      this.destinations.room(destination, now, event.attempts > 0) > 0 &&
      this.accounts.room(event.target.accountId, this.destinations.fast(destination)) > 0
    )
      return true;
    this.destinations.learn(event.keyId, destination);
    this.accounts.learn(event.keyId, event.target.accountId);
    return false;
  }

  /** Books an attempt's end against its destination; wakes the loop if it was waiting for that destination's room. */
  private finishAt(destination: string, result: AttemptResult | null): void {
    const now = this.clock.now();
    const outcome =
      result === null
        ? 'unknown'
        : result.state === 'delivered'
          ? 'healthy'
          : unhealthyOutcome(result.attempt.httpStatus)
            ? 'unhealthy'
            : 'healthy';
    const wasPaused = this.destinations.paused(destination, now);
    if (this.destinations.finish(destination, outcome, now, result?.attempt.durationMs ?? 0)) this.wake.notify();
    if (!wasPaused && this.destinations.paused(destination, now)) {
      this.log.warn(
        { destination, status: result?.attempt.httpStatus, error: result?.attempt.error },
        'webhooks: destination keeps failing; its events wait for a pause',
      );
    }
  }

  /** Claims one batch of due events and waits until each attempt is recorded (tests, tools). */
  async runOnce(): Promise<number> {
    const now = this.clock.now();
    const claimed = await this.store.claimDue(now, this.options.batchSize, now + this.delivery.leaseMs);
    await Promise.all(claimed.map((e) => this.deliver(e)));
    return claimed.length;
  }

  /**
   * Attempts and records one claimed event, or one bucket (`bucket`, events of one key led by
   * `event`: one request, one slot); each event's outcome is recorded. Never rejects.
   */
  private async deliver(event: ClaimedEvent, bucket?: readonly ClaimedEvent[]): Promise<void> {
    this.loop.launch();
    this.onWire += 1;
    const destination = destinationOf(event.target);
    this.destinations.start(event.keyId, destination);
    this.accounts.start(event.keyId, event.target.accountId);
    if (bucket) this.buckets.started(event.keyId);
    let result: AttemptResult | null = null;
    let results: AttemptResult[] | undefined;
    try {
      try {
        if (bucket) [result = null] = results = await this.delivery.attemptBucket(bucket);
        else result = await this.delivery.attempt(event, false);
      } catch (error) {
        this.log.error(
          { err: error, eventId: event.eventId },
          'webhooks: attempt failed unexpectedly; the lease brings the event back',
        );
        return;
      } finally {
        this.onWire -= 1;
        if (this.accounts.finish(event.target.accountId)) this.wake.notify();
        this.finishAt(destination, result);
        if (bucket) this.buckets.finished(event.keyId);
      }
      if (result === null) return;
      this.metrics.attempt(
        result.state === 'delivered' ? 'delivered' : result.state === 'failed' ? 'failed' : 'retrying',
        result.attempt.durationMs / 1000,
      );
      // Its slot is free; the outcome still counts against the bound on unwritten ones until it settles.
      this.loop.roomFreed();
      try {
        await (results ? Promise.all(results.map((r) => this.results.add(r))) : this.results.add(result));
      } catch (error) {
        // The lease brings the event back if its outcome was not written: it is sent again.
        this.log.error({ err: error, eventId: event.eventId }, 'webhooks: could not record an attempt');
        return;
      }
    } finally {
      this.loop.settle();
    }
    if (this.log.isLevelEnabled('debug')) {
      this.log.debug(
        {
          eventId: event.eventId,
          eventType: event.eventType,
          messageId: event.smsId,
          keyId: event.keyId,
          status: result.attempt.httpStatus,
          state: result.state,
          events: bucket?.length ?? 1,
        },
        'webhooks: attempt recorded',
      );
    }
    if (result.state === 'failed') {
      const { httpStatus: status, error } = result.attempt;
      const events = bucket?.length ?? 1;
      this.log.warn(
        { eventId: event.eventId, keyId: event.keyId, status, error, events },
        'webhooks: event failed after its last attempt',
      );
    }
  }
}
