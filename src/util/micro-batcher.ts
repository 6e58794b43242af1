/**
 * Collects items added within one turn of the event loop (and while a flush is running)
 * and hands them to one flush, so many small store writes share one transaction. At most
 * one flush runs at a time; each caller gets its own item's result. With `gatherMs`, a flush
 * waits that long after its first item for more (background writes, where a few
 * milliseconds matter less than the count of transactions).
 */
export class MicroBatcher<T, R> {
  private queue: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  private flushing = false;
  /** The timer of a gathering flush, while one is waiting. */
  private gathering: NodeJS.Timeout | null = null;

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly maxBatch = 500,
    private readonly gatherMs = 0,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing) return;
    const full = this.queue.length >= this.maxBatch;
    if (this.gathering !== null && full) {
      // A full batch does not wait out the gathering time.
      clearTimeout(this.gathering);
      this.gathering = null;
      this.scheduled = false;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    if (this.gatherMs > 0 && !full) this.gathering = setTimeout(() => void this.run(), this.gatherMs);
    else setImmediate(() => void this.run());
  }

  private async run(): Promise<void> {
    this.scheduled = false;
    this.gathering = null;
    this.flushing = true;
    const batch = this.queue.splice(0, this.maxBatch);
    try {
      const results = await this.flush(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(results[i] as R));
    } catch (error) {
      batch.forEach((b) => b.reject(error));
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }
}
