/**
 * Flow control for one SMPP connection: at most `windowSize` submit_sm awaiting their
 * resp, and submits spaced at least 1000 / rate ms apart (pacing, no bursts), which keeps
 * us under the SMSC's per-second throttle rather than probing it.
 *
 * The rate starts at maxSubmitsPerSecond and follows what the SMSC says (AIMD): an
 * ESME_RTHROTTLED or ESME_RMSGQFUL halves it (once per second at most: the refusals of one
 * window in flight are one signal), down to a floor; each accepted submit adds back
 * 1/10 of the configured rate per second's worth of submits, so it is whole again in
 * about 5 seconds without refusals.
 */

/** Halvings of the rate at most one per this long. */
export const cutEveryMs = 1000;
/** The lowest rate the SMSC's refusals bring a connection to, as a share of its configured rate (and 1/s at least). */
const floorShare = 1 / 16;

/** A rate `current` halved, down to the floor of the `configured` rate. */
export function cutTo(configured: number, current: number): number {
  return Math.max(Math.min(configured, Math.max(1, configured * floorShare)), current / 2);
}

/**
 * A connection's rate for the whole cluster at `now`: the configured rate, or after a cut
 * the rate it was cut to growing back by a tenth of the configured rate each second (as a
 * single gate grows back by its accepted submits), whole again in about 5 seconds.
 */
export function clusterRate(configured: number, cut: { rate: number; cutAt: number } | null, now: number): number {
  if (cut === null) return configured;
  return Math.min(configured, cut.rate + (configured / 10) * (Math.max(0, now - cut.cutAt) / 1000));
}

/** The least time between two grants, as a share of the spacing: how fast a late grid catches up (SubmitGate.grantAt). */
const catchUpGap = 0.95;

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

export class SubmitGate {
  private inFlight = 0;
  private readonly waiters: Waiter[] = [];
  private nextSlotAt = 0;
  /** When the last pacing slots were really granted (the newest last), and the grants in turn. */
  private readonly grants: number[] = [];
  private paced: Promise<void> = Promise.resolve();
  private spacingMs: number;
  /** Submits per second now (AIMD), at most `maxRate`. */
  private current: number;
  private lastCutAt = -Infinity;

  constructor(
    private readonly windowSize: number,
    private maxRate: number,
  ) {
    this.current = maxRate;
    this.spacingMs = 1000 / maxRate;
  }

  get pending(): number {
    return this.inFlight;
  }

  /** Submits per second now: the configured rate, or less while the SMSC has been refusing. */
  get rate(): number {
    return this.current;
  }

  /** The SMSC said throttled or queue full: halve the rate (once per second at most). */
  slowDown(now = Date.now()): void {
    if (now - this.lastCutAt < cutEveryMs) return;
    this.lastCutAt = now;
    this.setRate(cutTo(this.maxRate, this.current));
  }

  /**
   * In a cluster: this bind's share of the connection's rate now (the cluster's rate, after
   * its cuts, over the binds alive; docs/smpp.md, "Binds across a cluster"). It becomes both
   * the pace and the ceiling the rate grows back to until the next share is known.
   */
  follow(share: number): void {
    this.maxRate = share;
    this.setRate(share);
  }

  /** No pacing slot before `at` (epoch ms): a bind new to a cluster waits for the others to lower their shares. */
  holdUntil(at: number): void {
    this.nextSlotAt = Math.max(this.nextSlotAt, at);
  }

  /** A submit was accepted: the rate grows back towards the configured one. */
  speedUp(): void {
    if (this.current >= this.maxRate) return;
    this.setRate(Math.min(this.maxRate, this.current + this.maxRate / 10 / this.current));
  }

  private setRate(rate: number): void {
    this.current = rate;
    this.spacingMs = 1000 / rate;
  }

  /**
   * Takes a window slot and then a pacing slot. Resolves false, holding nothing, when
   * `deadline` (epoch ms) passes first. A true answer must be paired with release().
   */
  async acquire(deadline: number): Promise<boolean> {
    if (!(await this.takeWindow(deadline))) return false;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlotAt);
    if (slot > deadline) {
      this.release();
      return false;
    }
    this.nextSlotAt = slot + this.spacingMs;
    const granted = this.paced.then(() => this.grantAt(slot));
    this.paced = granted;
    await granted;
    return true;
  }

  /**
   * Waits until `slot`, and until the rate's worth of grants before it (as they really
   * happened) is a second old: timers held up by a busy event loop fire together, and their
   * submits would go in a burst over the rate to make up for the stall (seen: 58 in one
   * second at 50/s). Grants one at a time, in order; slots stay on their even grid, so a
   * timer a little late costs no rate.
   *
   * After a stall the grid catches up, but never faster than `catchUpGap` of the spacing
   * between two grants: grants let go together at the edge of the second reach the SMSC
   * with the jitter of the way there (up to 38 ms seen here, three workers and the SMSC on
   * two cores) and count as more than the rate in its one second (53 and 54 seen at 50/s
   * with a gap of 0.75, all within 52 with 0.95). With the gap g, rate + k submits in a row span
   * at least a second and k gaps, so the SMSC counts at most rate + k unless the jitter
   * passes k gaps (38 ms for k = 2 at 50/s). Not a whole spacing: timers fire up to a
   * millisecond late, and a whole spacing after each late grant loses the lateness (3 %
   * of 50/s, measured).
   *
   * The clock is read again after each wait: a timer keeps the loop's millisecond clock, not
   * Date.now()'s, and can fire when Date.now() is a millisecond short of the due time.
   */
  private async grantAt(slot: number): Promise<void> {
    const perSecond = Math.max(1, Math.floor(this.current));
    const earlier =
      this.grants.length >= perSecond ? (this.grants[this.grants.length - perSecond] as number) : -Infinity;
    const last = this.grants.length > 0 ? (this.grants[this.grants.length - 1] as number) : -Infinity;
    // In whole milliseconds, as the clock: at rates over 1,000/s a slot or a gap a fraction of
    // one ahead would wait for the next tick, and hold the link to a grant or two a millisecond.
    const due = Math.floor(Math.max(slot, earlier + 1000, last + catchUpGap * this.spacingMs));
    for (let wait = due - Date.now(); wait > 0; wait = due - Date.now())
      await new Promise((resolve) => setTimeout(resolve, wait));
    this.grants.push(Date.now());
    if (this.grants.length > 2 * perSecond + 16) this.grants.splice(0, this.grants.length - perSecond);
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) {
      clearTimeout(next.timer);
      next.grant();
    } else {
      this.inFlight = Math.max(0, this.inFlight - 1);
    }
  }

  /** A released slot passes straight to the oldest waiter, so inFlight never exceeds the window. */
  private takeWindow(deadline: number): Promise<boolean> {
    if (this.inFlight < this.windowSize) {
      this.inFlight++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: () => resolve(true),
        timer: setTimeout(
          () => {
            const i = this.waiters.indexOf(waiter);
            if (i !== -1) this.waiters.splice(i, 1);
            resolve(false);
          },
          Math.max(0, deadline - Date.now()),
        ),
      };
      this.waiters.push(waiter);
    });
  }
}
