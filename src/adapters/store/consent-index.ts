/**
 * The consents of an account and recipient type in memory, for the filter of large
 * commercial sends: the numbers in force, sorted in a Float64Array (a Türkiye mobile,
 * 905XXXXXXXXX, is an exact double), and beside each whether it is a RET. A send of 50,000
 * numbers is then 50,000 binary searches instead of 50,000 index probes of the table.
 *
 * Fresh by the account's consent version (migration 0028: triggers move it with every write
 * of a consent, by any connection or process), read with each send: an index loaded at
 * another version is not used, and loaded again. The version is read before the rows, so an
 * index is never older than the version it is kept under (a write between the two only
 * makes it load again next time). Loaded only for sends of at least `minRecipients` numbers
 * (smaller ones probe the table: loading a large account costs about twice what probing
 * 50,000 numbers does), and only at a version a large send has met before (so an account
 * whose consents change between every two sends is probed, never loaded for nothing), in
 * pages, and bounded: `maxNumbers` across accounts, the least recently
 * used dropped first; an account larger than the bound is probed.
 */
import { consentMark } from '../../domain/iys.js';
import type { ConsentMarks, RecipientType } from '../../domain/iys.js';

export interface ConsentIndexSource {
  /** The account's consent version now (a number that only moves). */
  version(): Promise<string>;
  /** The account's records of the type in recipient order after `after`, at most `limit`. */
  page(after: string | null, limit: number): Promise<{ recipient: string; status: string }[]>;
}

interface Entry {
  version: string;
  numbers: Float64Array;
  ret: Uint8Array;
  used: number;
}

export interface ConsentIndexOptions {
  maxNumbers: number;
  minRecipients: number;
  pageSize: number;
}

const defaults: ConsentIndexOptions = { maxNumbers: 10_000_000, minRecipients: 5_000, pageSize: 50_000 };

export class ConsentIndexes {
  private readonly entries = new Map<string, Entry>();
  /** Keys whose account was larger than the bound at a version: not tried again at it. */
  private readonly tooLarge = new Map<string, string>();
  private readonly loading = new Map<string, Promise<Entry | null>>();
  /** The version each account's last large send met without an index at it. */
  private readonly seen = new Map<string, string>();
  private held = 0;
  private turn = 0;
  private readonly options: ConsentIndexOptions;

  constructor(options: Partial<ConsentIndexOptions> = {}) {
    this.options = { ...defaults, ...options };
  }

  /** How many numbers the indexes hold now (for tests and the bench). */
  get size(): number {
    return this.held;
  }

  /**
   * The consent in force of each recipient, in their order, from memory; null when this send
   * is to probe the table instead (too few recipients to load for, or the account too large).
   */
  async statuses(
    accountId: number,
    type: RecipientType,
    recipients: readonly string[],
    source: ConsentIndexSource,
  ): Promise<ConsentMarks | null> {
    const key = `${accountId}|${type}`;
    const version = await source.version();
    let entry = this.entries.get(key);
    if (entry?.version !== version) {
      if (recipients.length < this.options.minRecipients || this.tooLarge.get(key) === version) return null;
      // Loaded only once a version is seen by a second large send: an account whose consents
      // change between every two sends is probed, as loading each time would cost more.
      if (this.seen.get(key) !== version) {
        this.seen.set(key, version);
        return null;
      }
      entry = (await this.load(key, version, source)) ?? undefined;
      if (!entry) return null;
    }
    entry.used = ++this.turn;
    const out: ConsentMarks = new Uint8Array(recipients.length);
    const { numbers, ret } = entry;
    for (let i = 0; i < recipients.length; i++) {
      const x = Number(recipients[i]);
      let lo = 0;
      let hi = numbers.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const v = numbers[mid] as number;
        if (v < x) lo = mid + 1;
        else if (v > x) hi = mid - 1;
        else {
          out[i] = ret[mid] === 1 ? consentMark.ret : consentMark.onay;
          break;
        }
      }
    }
    return out;
  }

  private load(key: string, version: string, source: ConsentIndexSource): Promise<Entry | null> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    const loading = this.read(key, version, source).finally(() => this.loading.delete(key));
    this.loading.set(key, loading);
    return loading;
  }

  private async read(key: string, version: string, source: ConsentIndexSource): Promise<Entry | null> {
    const numbers: number[] = [];
    const ret: number[] = [];
    let sorted = true;
    let after: string | null = null;
    for (;;) {
      const rows = await source.page(after, this.options.pageSize);
      for (const row of rows) {
        const x = Number(row.recipient);
        if (numbers.length > 0 && x <= (numbers[numbers.length - 1] as number)) sorted = false;
        numbers.push(x);
        ret.push(row.status === 'RET' ? 1 : 0);
      }
      if (numbers.length > this.options.maxNumbers) {
        this.tooLarge.set(key, version);
        return null;
      }
      if (rows.length < this.options.pageSize) break;
      after = rows[rows.length - 1]?.recipient ?? null;
    }
    const order = numbers.map((_, i) => i);
    if (!sorted) order.sort((a, b) => (numbers[a] as number) - (numbers[b] as number));
    const entry: Entry = {
      version,
      numbers: Float64Array.from(order, (i) => numbers[i] as number),
      ret: Uint8Array.from(order, (i) => ret[i] as number),
      used: ++this.turn,
    };
    this.forget(key);
    this.makeRoom(entry.numbers.length);
    this.entries.set(key, entry);
    this.held += entry.numbers.length;
    this.tooLarge.delete(key);
    return entry;
  }

  private forget(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.held -= old.numbers.length;
  }

  /** Drops the least recently used indexes until `count` more numbers fit. */
  private makeRoom(count: number): void {
    while (this.held + count > this.options.maxNumbers && this.entries.size > 0) {
      let oldest: string | null = null;
      let used = Infinity;
      for (const [k, e] of this.entries)
        if (e.used < used) {
          used = e.used;
          oldest = k;
        }
      if (oldest === null) break;
      this.forget(oldest);
    }
  }
}
