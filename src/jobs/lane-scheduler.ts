import type { Lane } from '../domain/lanes.js';
import type { LaneCandidates, LaneShare } from '../ports/dispatch-queue.js';
import { Fifo } from './fifo.js';

/**
 * The order in which a dispatcher gives its messages to a carrier that can take only so
 * many at once (docs/decisions.md, "Lanes and fair shares of the carrier"), and the share
 * its claims take from the store (LaneShare):
 *
 * - Lanes: the interactive lane goes first; bulk waits until no interactive message can go.
 * - Accounts within a lane: start-time fair queueing by weight. Each account has a finish
 *   tag per lane; the account whose next message would start earliest (its tag, or the
 *   lane's virtual time if it was idle, so idle time is not saved up) goes next, and its tag
 *   moves on by 1 / weight. Over time each waiting account gets its weight's share.
 * - The interactive cap: an account has at most `cap` interactive messages with the carrier
 *   at once (`interactiveShare` of the carrier's capacity); its further interactive messages
 *   wait in the bulk lane, ahead of its own bulk, so splitting a campaign into single sends
 *   does not move it ahead of other accounts' bulk.
 */
export interface Scheduled {
  accountId: number;
  lane: Lane;
}

/** An account in a claim's trial run (`choose`). */
interface Trial {
  weight: number;
  interactive: number[];
  bulk: number[];
  finish: Record<Lane, number>;
}

interface AccountState<T> {
  weight: number;
  interactive: Fifo<T>;
  bulk: Fifo<T>;
  /** Finish tags per lane. */
  finish: Record<Lane, number>;
  /** Interactive messages with the carrier now. */
  interactiveOut: number;
}

export const defaultInteractiveShare = 0.5;

/**
 * While the last look found one (lane, account) waiting or none, claims look again after
 * this long only: a second account's messages wait at most this long to be shared.
 */
const rescanMs = 50;

/** Accounts kept (idle ones included) above which idle ones are swept. */
const sweepAbove = 1000;

export class LaneScheduler<T extends Scheduled> implements LaneShare {
  private readonly accounts = new Map<number, AccountState<T>>();
  private readonly weights = new Map<number, number>();
  private readonly virtual: Record<Lane, number> = { interactive: 0, bulk: 0 };
  private held = 0;
  private sinceSweep = 0;
  /** The last look for waiting accounts (performance.now()) and how many (lane, account) pairs it found. */
  private lastScan = { at: Number.NEGATIVE_INFINITY, pairs: 0 };

  constructor(
    /** Messages the carrier takes at once (its window): the interactive cap is a share of it. */
    private readonly capacity: number,
    private readonly interactiveShare = defaultInteractiveShare,
  ) {}

  /** Interactive messages an account may have with the carrier at once. */
  get cap(): number {
    return Math.max(1, Math.floor(this.capacity * this.interactiveShare));
  }

  /** Messages held, not yet given to the carrier. */
  get size(): number {
    return this.held;
  }

  /** Held messages per lane (an account's interactive messages over its cap count as bulk). */
  backlog(): Record<Lane, number> {
    const out: Record<Lane, number> = { interactive: 0, bulk: 0 };
    for (const a of this.accounts.values()) {
      out.interactive += a.interactive.length;
      out.bulk += a.bulk.length;
    }
    return out;
  }

  /** New messages were queued (a send written out): the next claim looks for waiting accounts again. */
  rescanSoon(): void {
    this.lastScan = { at: Number.NEGATIVE_INFINITY, pairs: this.lastScan.pairs };
  }

  shouldScan(): boolean {
    return this.lastScan.pairs > 1 || performance.now() - this.lastScan.at >= rescanMs;
  }

  learnWeights(weights: readonly { accountId: number; weight: number }[]): void {
    this.lastScan = { at: performance.now(), pairs: weights.length };
    for (const { accountId, weight } of weights) {
      this.weights.set(accountId, weight);
      const state = this.accounts.get(accountId);
      if (state) state.weight = weight;
    }
  }

  add(m: T): void {
    const state = this.stateOf(m.accountId);
    (m.lane === 'interactive' ? state.interactive : state.bulk).push(m);
    this.held += 1;
  }

  /** The next message to give the carrier, or undefined when none is held. */
  next(): T | undefined {
    const cap = this.cap;
    const interactive = this.pick('interactive', (a) => a.interactive.length > 0 && a.interactiveOut < cap);
    if (interactive) {
      const m = interactive.interactive.shift() as T;
      interactive.interactiveOut += 1;
      this.held -= 1;
      return m;
    }
    const bulk = this.pick('bulk', (a) => a.interactive.length > 0 || a.bulk.length > 0);
    if (!bulk) return undefined;
    // An account's interactive messages over its cap go before its own bulk.
    const fromInteractive = bulk.interactive.length > 0;
    const m = (fromInteractive ? bulk.interactive.shift() : bulk.bulk.shift()) as T;
    if (fromInteractive) bulk.interactiveOut += 1;
    this.held -= 1;
    return m;
  }

  /** Every message held, not yet given to the carrier. */
  *waiting(): IterableIterator<T> {
    for (const a of this.accounts.values()) {
      yield* a.interactive.values();
      yield* a.bulk.values();
    }
  }

  /**
   * Takes out the held messages `which` selects (those of a send paused or cancelled since
   * they were claimed): they are not given to the carrier. Their accounts' tags stay.
   */
  takeWhere(which: (m: T) => boolean): T[] {
    const taken: T[] = [];
    for (const [accountId, a] of this.accounts) {
      taken.push(...a.interactive.takeWhere(which), ...a.bulk.takeWhere(which));
      this.forgetIfIdle(accountId, a);
    }
    this.held -= taken.length;
    return taken;
  }

  /** A message given by `next()` is done with the carrier. */
  done(m: T): void {
    const state = this.accounts.get(m.accountId);
    if (!state) return;
    if (m.lane === 'interactive') state.interactiveOut = Math.max(0, state.interactiveOut - 1);
    this.forgetIfIdle(m.accountId, state);
  }

  choose(candidates: readonly LaneCandidates[], limit: number): number[] {
    // A trial run on copies: what this dispatcher holds counts as given already, so a claim
    // takes from the accounts that will be short first.
    const cap = this.cap;
    const virtual = { ...this.virtual };
    const trial = new Map<number, Trial>();
    for (const c of candidates) {
      let t = trial.get(c.accountId);
      if (!t) {
        const held = this.accounts.get(c.accountId);
        const weight = c.weight;
        const finish = {
          interactive:
            Math.max(held?.finish.interactive ?? 0, virtual.interactive) + (held?.interactive.length ?? 0) / weight,
          bulk: Math.max(held?.finish.bulk ?? 0, virtual.bulk) + (held?.bulk.length ?? 0) / weight,
        };
        t = { weight, interactive: [], bulk: [], finish };
        trial.set(c.accountId, t);
      }
      if (c.lane === 'interactive') {
        const held = this.accounts.get(c.accountId);
        const room = Math.max(0, cap - (held?.interactiveOut ?? 0) - (held?.interactive.length ?? 0));
        t.interactive.push(...c.ids.slice(0, room));
        t.bulk.unshift(...c.ids.slice(room));
      } else t.bulk.push(...c.ids);
    }
    const chosen: number[] = [];
    const pick = (lane: Lane): boolean => {
      let best: { id: number; start: number } | null = null;
      let bestState: Trial | null = null;
      for (const t of trial.values()) {
        if (t[lane].length === 0) continue;
        const start = Math.max(t.finish[lane], virtual[lane]);
        if (best === null || start < best.start) {
          best = { id: t[lane][0] as number, start };
          bestState = t;
        }
      }
      if (best === null || bestState === null) return false;
      bestState[lane].shift();
      bestState.finish[lane] = best.start + 1 / bestState.weight;
      virtual[lane] = best.start;
      chosen.push(best.id);
      return true;
    };
    while (chosen.length < limit && (pick('interactive') || pick('bulk'))) {
      /* one message per turn */
    }
    return chosen;
  }

  /** The account of a lane whose next message starts earliest among those `eligible`, its tag moved on. */
  private pick(lane: Lane, eligible: (a: AccountState<T>) => boolean): AccountState<T> | null {
    let best: AccountState<T> | null = null;
    let bestStart = 0;
    for (const a of this.accounts.values()) {
      if (!eligible(a)) continue;
      const start = Math.max(a.finish[lane], this.virtual[lane]);
      if (best === null || start < bestStart) {
        best = a;
        bestStart = start;
      }
    }
    if (best === null) return null;
    best.finish[lane] = bestStart + 1 / best.weight;
    this.virtual[lane] = bestStart;
    return best;
  }

  private stateOf(accountId: number): AccountState<T> {
    let state = this.accounts.get(accountId);
    if (!state) {
      state = {
        weight: this.weights.get(accountId) ?? 1,
        interactive: new Fifo<T>(),
        bulk: new Fifo<T>(),
        finish: { ...this.virtual },
        interactiveOut: 0,
      };
      this.accounts.set(accountId, state);
    }
    return state;
  }

  /**
   * An idle account is forgotten once its tags are no longer ahead of the lanes' virtual
   * times (it has nothing left to pay back). Before, forgetting it would let a run of small
   * claims give it the next turn again and again.
   */
  private forgetIfIdle(accountId: number, state: AccountState<T>): void {
    if (this.isIdle(state) && this.isEven(state)) this.accounts.delete(accountId);
    // Idle accounts that were ahead are swept now and then (kept few, at no cost per message).
    if (this.accounts.size > sweepAbove && ++this.sinceSweep >= sweepAbove) {
      this.sinceSweep = 0;
      for (const [id, a] of this.accounts) if (this.isIdle(a) && this.isEven(a)) this.accounts.delete(id);
    }
  }

  private isIdle(a: AccountState<T>): boolean {
    return a.interactive.length === 0 && a.bulk.length === 0 && a.interactiveOut === 0;
  }

  private isEven(a: AccountState<T>): boolean {
    return a.finish.interactive <= this.virtual.interactive && a.finish.bulk <= this.virtual.bulk;
  }
}
