/**
 * The webhook courier's share of attempts per destination, so one slow or failing receiver
 * cannot hold every slot (as Svix and Stripe limit and back off an endpoint). A destination
 * is the origin of the webhook URL (scheme, host, port): the receiver whose capacity the
 * attempts use, however many keys point at it.
 *
 * Invariants: at most `concurrency` attempts in flight to one destination, unless it has
 * proved fast (its last `fastStreak` attempts healthy and answered within `fastMs`): then it
 * may use every slot of the courier but half a share, so a lone busy receiver is not held to
 * a quarter of the courier, while some slots always stay free for the others (if it turns
 * slow with all those attempts in flight, until they time out). A slow or failing attempt ends the streak at once. After
 * `failuresBeforePause` unhealthy attempts in a row (no response, 429 or 5xx) a destination
 * gets no first attempt of an event until its pause ends, then one at a time until an attempt
 * is healthy again; each pause whose probe fails too is twice as long, up to `maxPauseMs`.
 * Retries that fall due during a pause go out on their own schedule, one at a time: the
 * schedule is already the event's backoff, and holding them would stretch it by the pauses.
 */
import type { WebhookTarget } from '../ports/event-store.js';

export interface DestinationOptions {
  /** Attempts in flight at once to one destination (its share). */
  concurrency: number;
  /** The courier's slots in all; a fast destination may use all of them but one share. */
  total: number;
  /** An attempt answered within this long counts towards a fast streak. */
  fastMs: number;
  /** Healthy fast attempts in a row after which a destination may use more than its share. */
  fastStreak: number;
  /** Unhealthy attempts in a row after which a destination is paused. */
  failuresBeforePause: number;
  /** The first pause of a destination. */
  pauseMs: number;
  maxPauseMs: number;
}

export const defaultDestinationOptions: Omit<DestinationOptions, 'concurrency' | 'total'> = {
  fastMs: 1000,
  fastStreak: 8,
  failuresBeforePause: 5,
  pauseMs: 10_000,
  maxPauseMs: 600_000,
};

/** A quarter of the courier's slots: three quarters stay free for the other destinations. */
export function defaultDestinationConcurrency(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 4));
}

/** Where an event's attempt goes: its webhook URL's origin, or its key when it has no usable URL. */
export function destinationOf(target: WebhookTarget): string {
  if (target.url !== null && URL.canParse(target.url)) {
    const origin = new URL(target.url).origin;
    if (origin !== 'null') return origin;
  }
  return `key:${target.keyId}`;
}

/**
 * Whether an outcome says the receiver is unwell (down, overloaded, timing out), not that
 * it refused this one request: only those count towards a pause.
 */
export function unhealthyOutcome(httpStatus: number | null): boolean {
  return httpStatus === null || httpStatus === 429 || httpStatus >= 500;
}

interface State {
  inFlight: number;
  /** Unhealthy attempts in a row. */
  failures: number;
  /** Pauses in a row (their probes failed); 0 when healthy. */
  pauses: number;
  /** Healthy attempts answered within fastMs, in a row. */
  fast: number;
  pausedUntil: number;
  /** Event keys whose events went here (claims are made per key). */
  keys: Set<number>;
}

export class DestinationSlots {
  private readonly states = new Map<string, State>();
  private readonly destinationOfKey = new Map<number, string>();

  constructor(readonly options: DestinationOptions) {}

  /** Attempts that may start now to this destination: retries, or first attempts too. */
  room(destination: string, now: number, retry = false): number {
    const s = this.states.get(destination);
    if (!s) return this.options.concurrency;
    if (now < s.pausedUntil && !retry) return 0;
    return Math.max(0, this.cap(s) - s.inFlight);
  }

  /** After a pause, one probe at a time until an attempt is healthy again; a fast one may borrow. */
  private cap(s: State): number {
    if (s.pauses > 0) return 1;
    if (s.fast >= this.options.fastStreak)
      return Math.max(
        this.options.concurrency,
        this.options.total - Math.max(1, Math.floor(this.options.concurrency / 2)),
      );
    return this.options.concurrency;
  }

  /** Whether the destination has proved fast (it may use more than its share). */
  fast(destination: string): boolean {
    const s = this.states.get(destination);
    return s !== undefined && s.pauses === 0 && s.fast >= this.options.fastStreak;
  }

  /** The destination a key's events last went to, if still tracked. */
  destinationOfKeyNow(keyId: number): string | undefined {
    return this.destinationOfKey.get(keyId);
  }

  /** Whether the destination is paused now (for logs and tests). */
  paused(destination: string, now: number): boolean {
    return now < (this.states.get(destination)?.pausedUntil ?? 0);
  }

  /** For a claim: the event keys whose destination has other room than a whole share now (for retries). */
  keyLimits(now: number): Map<number, number> {
    const out = new Map<number, number>();
    for (const [destination, s] of this.states) {
      const room = this.room(destination, now, true);
      if (room !== this.options.concurrency) for (const keyId of s.keys) out.set(keyId, room);
    }
    return out;
  }

  /** For a claim: the event keys whose destination is paused now (their first attempts wait). */
  heldKeys(now: number): Set<number> {
    const out = new Set<number>();
    for (const s of this.states.values()) if (now < s.pausedUntil) for (const keyId of s.keys) out.add(keyId);
    return out;
  }

  /** An attempt of an event of `keyId` starts. */
  start(keyId: number, destination: string): void {
    this.learn(keyId, destination);
    this.state(destination).inFlight += 1;
  }

  /**
   * Events of `keyId` go to `destination`: later claims limit the key to its room. Called
   * for events given back too, or the next claim would take them again at once.
   */
  learn(keyId: number, destination: string): void {
    const before = this.destinationOfKey.get(keyId);
    if (before !== destination) {
      if (before !== undefined) this.states.get(before)?.keys.delete(keyId);
      this.destinationOfKey.set(keyId, destination);
    }
    this.state(destination).keys.add(keyId);
  }

  /**
   * An attempt ended: healthy, unhealthy, or unknown (it threw; the lease brings its event
   * back). Returns whether the destination had no room before, so a courier waiting for
   * room may claim again.
   */
  finish(destination: string, outcome: 'healthy' | 'unhealthy' | 'unknown', now: number, durationMs = 0): boolean {
    const s = this.states.get(destination);
    if (!s) return false;
    const wasFull = this.room(destination, now) === 0;
    s.inFlight -= 1;
    s.fast = outcome === 'healthy' && durationMs <= this.options.fastMs ? s.fast + 1 : 0;
    if (outcome === 'healthy') {
      s.failures = 0;
      s.pauses = 0;
      s.pausedUntil = 0;
    } else if (outcome === 'unhealthy') {
      s.failures += 1;
      if (s.failures >= this.options.failuresBeforePause && now >= s.pausedUntil) {
        s.pauses += 1;
        s.pausedUntil = now + Math.min(this.options.maxPauseMs, this.options.pauseMs * 2 ** Math.min(s.pauses - 1, 30));
      }
    }
    if (s.inFlight === 0 && s.failures === 0 && s.fast === 0) this.forget(destination, s);
    return wasFull;
  }

  private state(destination: string): State {
    let s = this.states.get(destination);
    if (!s) {
      s = { inFlight: 0, failures: 0, pauses: 0, pausedUntil: 0, fast: 0, keys: new Set() };
      this.states.set(destination, s);
    }
    return s;
  }

  /** A healthy idle destination needs no state: its keys claim a whole share. */
  private forget(destination: string, s: State): void {
    for (const keyId of s.keys)
      if (this.destinationOfKey.get(keyId) === destination) this.destinationOfKey.delete(keyId);
    this.states.delete(destination);
  }
}
