/**
 * When each key was last used, for the panel's key list. Authentication notes the key in
 * memory (no write on the request path); the notes go to the store at most every
 * `intervalMs`, one row per key used meanwhile, so a busy key costs one write per interval
 * whatever its request rate. The panel's "last used" is therefore up to one interval old.
 */
import type { UserStore } from '../ports/user-store.js';

export class KeyLastUsed {
  private pending = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly users: Pick<UserStore, 'markKeysUsed'>,
    private readonly intervalMs = 30_000,
  ) {}

  seen(keyId: number, at: number): void {
    const before = this.pending.get(keyId);
    if (before === undefined || before < at) this.pending.set(keyId, at);
    if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Writes what was noted; a failed write is dropped (a last-used time is a convenience, not a record). */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const entries = [...this.pending].map(([keyId, at]) => ({ keyId, at }));
    this.pending = new Map();
    if (entries.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() => this.users.markKeysUsed(entries).catch(() => undefined));
    return this.flushing;
  }
}
