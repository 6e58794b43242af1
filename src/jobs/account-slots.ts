/**
 * The webhook courier's share of attempts per account, beside its share per destination
 * (destination-slots.ts): an account whose keys point at several slow receivers would
 * otherwise take a destination's share for each of them, every slot together, and hold up
 * every other account's webhooks. An account has at most `cap` attempts in flight at once;
 * an attempt to a destination that has proved fast is held by its destination's cap alone
 * (a lone busy, healthy receiver keeps its borrowing). Events whose key has no account
 * (the key is gone) are not counted here.
 */
export class AccountSlots {
  private readonly inFlight = new Map<number, number>();
  private readonly keysOf = new Map<number, Set<number>>();

  constructor(readonly cap: number) {}

  /** Attempts that may start now for the account (to a fast destination: no account limit). */
  room(accountId: number | undefined, fast: boolean): number {
    if (accountId === undefined || fast) return Number.MAX_SAFE_INTEGER;
    return Math.max(0, this.cap - (this.inFlight.get(accountId) ?? 0));
  }

  /** For a claim: the keys of accounts with less room than `cap`, and that room (keys of fast destinations left out). */
  keyLimits(fastKey: (keyId: number) => boolean): Map<number, number> {
    const out = new Map<number, number>();
    for (const [accountId, keys] of this.keysOf) {
      const room = this.room(accountId, false);
      if (room >= this.cap) continue;
      for (const keyId of keys) if (!fastKey(keyId)) out.set(keyId, room);
    }
    return out;
  }

  /** Events of `keyId` belong to `accountId` (called for events given back too). */
  learn(keyId: number, accountId: number | undefined): void {
    if (accountId === undefined) return;
    let keys = this.keysOf.get(accountId);
    if (!keys) this.keysOf.set(accountId, (keys = new Set()));
    keys.add(keyId);
  }

  start(keyId: number, accountId: number | undefined): void {
    if (accountId === undefined) return;
    this.learn(keyId, accountId);
    this.inFlight.set(accountId, (this.inFlight.get(accountId) ?? 0) + 1);
  }

  /** An attempt ended; returns whether the account had no room before (a claim may be waiting for it). */
  finish(accountId: number | undefined): boolean {
    if (accountId === undefined) return false;
    const before = this.inFlight.get(accountId) ?? 0;
    const after = Math.max(0, before - 1);
    if (after > 0) {
      this.inFlight.set(accountId, after);
      return before >= this.cap;
    }
    // Idle: nothing to remember; its keys claim freely again.
    this.inFlight.delete(accountId);
    this.keysOf.delete(accountId);
    return before >= this.cap;
  }
}
