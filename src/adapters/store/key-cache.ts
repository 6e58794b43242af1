import type { KeyWithAccount } from '../../ports/store.js';

/**
 * Key lookups (a key with its account) remembered between requests on SQLite, where the
 * store can say exactly when they may have changed. Every write of this process to accounts
 * or keys empties the cache at once, and any commit of another connection (the admin CLI,
 * another process) empties it at the next turn of the event loop, when `data_version` is
 * read again. Unknown keys are never remembered, so guessing cannot fill it.
 */
export class KeyCache {
  private readonly entries = new Map<string, KeyWithAccount>();
  private local = -1;
  private external = -1;
  private checkedThisTurn = false;

  constructor(
    private readonly changes: { external(): number; local(): number },
    private readonly limit = 10_000,
  ) {}

  get(hash: string): KeyWithAccount | undefined {
    this.validate();
    return this.entries.get(hash);
  }

  /** Remembers a lookup made since get(), unless this process wrote keys or accounts meanwhile. */
  set(hash: string, value: KeyWithAccount): void {
    if (this.changes.local() !== this.local) return;
    if (this.entries.size >= this.limit) this.entries.clear();
    this.entries.set(hash, value);
  }

  private validate(): void {
    const local = this.changes.local();
    if (local !== this.local) {
      this.entries.clear();
      this.local = local;
    }
    if (this.checkedThisTurn) return;
    this.checkedThisTurn = true;
    setImmediate(() => (this.checkedThisTurn = false));
    const external = this.changes.external();
    if (external !== this.external) {
      this.entries.clear();
      this.external = external;
    }
  }
}
