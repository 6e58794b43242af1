import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import { WakeSignal } from './wake-signal.js';

/**
 * The claim loop shared by the SMS dispatcher and the webhook courier: it claims work from
 * the store (the queue), launches it, counts it until it settles, and between claims
 * gathers, idles or backs off. Its policy (what a claim is, what launching one item means)
 * is the caller's; the loop owns only when to claim and when to stop. After graphile-worker's
 * LocalQueue, it is always in one of these modes, and every change of mode is checked
 * against the transitions below (an illegal one throws: it is a bug, never a state to live in):
 *
 * - `starting`: built, not started. `start()` → claiming; `stop()` → stopping.
 * - `claiming`: a round runs: the policy waits for room, claims, launches what it claimed.
 *   How the round went decides the next mode: a full claim claims again at once (after
 *   yielding to the event loop), a short one → gathering, an empty one → idle, a thrown
 *   one (the store is away) → backing-off.
 * - `gathering`: a pause of `gatherMs` after a short claim, so that the next claim
 *   transaction carries more items. New work does not cut it short, only `stop()` does.
 *   → claiming, or stopping.
 * - `idle`: nothing was due: waits for a wake (work committed in this process) or for
 *   `idleMs` (another process may have added work). → claiming; → gathering when the policy
 *   asks for a moment more after waking (the webhook courier lets slots gather); → stopping.
 * - `backing-off`: a round threw; waits `backOffMs` (a wake ends it early), then claims
 *   again. → claiming, or stopping.
 * - `stopping`: `stop()` was called. A round in progress finishes (what it claimed is
 *   leased to this process and is launched), no new round starts, pauses end at once;
 *   once the loop has ended, the policy launches what it still holds (`drain`), and the
 *   loop waits until every launched item has settled. → stopped.
 * - `stopped`: nothing in flight. `start()` → claiming again.
 *
 * A wake that comes during a round is kept by the WakeSignal: the idle wait after it ends at once.
 */
export type ClaimLoopMode = 'starting' | 'claiming' | 'gathering' | 'idle' | 'backing-off' | 'stopping' | 'stopped';

const transitions: Readonly<Record<ClaimLoopMode, readonly ClaimLoopMode[]>> = {
  starting: ['claiming', 'stopping'],
  claiming: ['gathering', 'idle', 'backing-off', 'stopping'],
  gathering: ['claiming', 'stopping'],
  idle: ['claiming', 'gathering', 'stopping'],
  'backing-off': ['claiming', 'stopping'],
  stopping: ['stopped'],
  stopped: ['claiming'],
};

/**
 * How a round went: `full` (it claimed all it asked for, or was cut short by something
 * other than an empty queue: claim again at once), `short` (fewer due than asked: gather),
 * `empty` (nothing started: idle).
 */
export type RoundOutcome = 'full' | 'short' | 'empty';

export interface ClaimPolicy {
  /**
   * One round: waits for room (`ClaimLoop.waitForRoom`), claims, and launches each item
   * (`ClaimLoop.launch`, then `ClaimLoop.settle` when it is done). A throw is a store error:
   * the loop logs it and backs off.
   */
  round(): Promise<RoundOutcome>;
  /** An idle wait ended (woken or timed out, not stopped): how long to gather before the next round (0: none). */
  afterIdle(): number;
  /** The loop has ended (stopping): launch whatever is held in memory and not yet launched. */
  drain(): void;
}

export interface ClaimLoopOptions {
  /** Poll interval when nothing is due (another process may add work). */
  idleMs: number;
  /** The pause after a short claim. */
  gatherMs: number;
  /** The pause after a round threw (a wake ends it early). */
  backOffMs: number;
  /** Logs say `<label>: store error; retrying shortly`. */
  label: string;
  /** Told of every change of mode (tests, tracing). */
  onMode?: (from: ClaimLoopMode, to: ClaimLoopMode) => void;
}

export class ClaimLoop {
  private current: ClaimLoopMode = 'starting';
  private loop: Promise<void> | null = null;
  private stopped: Promise<void> | null = null;
  /** Items launched and not yet settled. */
  private launched = 0;
  /** Told when an item settles or its policy freed room otherwise (ends room waits). */
  private readonly roomSignal = new WakeSignal();
  /** Ends gathering (and the waits that stop must cut short) at once when the loop stops. */
  private readonly stopSignal = new WakeSignal();

  constructor(
    private readonly policy: ClaimPolicy,
    private readonly options: ClaimLoopOptions,
    private readonly log: Logger,
    /** Told when this process commits new work; ends an idle or backing-off wait. */
    readonly wake: WakeSignal = new WakeSignal(),
  ) {}

  get mode(): ClaimLoopMode {
    return this.current;
  }

  /** Items launched and not yet settled. */
  get unsettled(): number {
    return this.launched;
  }

  start(): void {
    this.setMode('claiming');
    this.stopped = null;
    this.loop = this.run();
  }

  /** Stops claiming; resolves once the round in progress has ended and every launched item has settled. */
  stop(): Promise<void> {
    if (this.current === 'stopped') return Promise.resolve();
    if (this.stopped) return this.stopped;
    this.setMode('stopping');
    this.wake.notify();
    this.stopSignal.notify();
    this.stopped = this.finish();
    return this.stopped;
  }

  /** Counts an item as launched; `settle()` must follow when it is done. */
  launch(): void {
    this.launched += 1;
  }

  settle(): void {
    this.launched -= 1;
    this.roomSignal.notify();
  }

  /** Room freed without an item settling (the webhook courier's attempt is off the wire, its outcome not yet written). */
  roomFreed(): void {
    this.roomSignal.notify();
  }

  /** Resolves when an item settles or room is freed, or after `ms`. */
  waitForRoom(ms: number): Promise<void> {
    return this.roomSignal.wait(ms);
  }

  private async finish(): Promise<void> {
    await this.loop;
    this.policy.drain();
    while (this.launched > 0) await this.roomSignal.wait(50);
    this.setMode('stopped');
  }

  private async run(): Promise<void> {
    while (this.current === 'claiming') {
      let outcome: RoundOutcome;
      try {
        outcome = await this.policy.round();
      } catch (error) {
        this.log.error({ err: error }, `${this.options.label}: store error; retrying shortly`);
        if (this.current !== 'claiming') return;
        this.setMode('backing-off');
        await this.wake.wait(this.options.backOffMs);
        this.resume();
        continue;
      }
      if (this.current !== 'claiming') return;
      if (outcome === 'empty') await this.idle();
      else if (outcome === 'short') await this.gather(this.options.gatherMs);
      // Store calls settle as microtasks: without this, claims would follow each other
      // with no other I/O (an HTTP request of this thread) read in between.
      else await yieldToEventLoop();
    }
  }

  private async idle(): Promise<void> {
    this.setMode('idle');
    await this.wake.wait(this.options.idleMs);
    if (this.current !== 'idle') return;
    const gatherMs = this.policy.afterIdle();
    if (gatherMs > 0) await this.gather(gatherMs);
    else this.resume();
  }

  private async gather(ms: number): Promise<void> {
    this.setMode('gathering');
    await this.stopSignal.wait(ms);
    this.resume();
  }

  /** Back to claiming after a pause, unless the loop is stopping. */
  private resume(): void {
    if (this.current !== 'stopping') this.setMode('claiming');
  }

  private setMode(to: ClaimLoopMode): void {
    const from = this.current;
    if (!transitions[from].includes(to))
      throw new Error(`claim loop (${this.options.label}): no transition from ${from} to ${to}`);
    this.current = to;
    this.options.onMode?.(from, to);
  }
}
