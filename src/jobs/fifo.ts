/** A first-in first-out list whose take is O(1) (Array.shift copies a long array). */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** Takes out the items `which` selects, keeping the others' order. */
  takeWhere(which: (item: T) => boolean): T[] {
    const taken: T[] = [];
    const kept: T[] = [];
    for (let i = this.head; i < this.items.length; i++) {
      const item = this.items[i] as T;
      (which(item) ? taken : kept).push(item);
    }
    if (taken.length > 0) {
      this.items = kept;
      this.head = 0;
    }
    return taken;
  }

  /** The items held, oldest first. */
  *values(): IterableIterator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i] as T;
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.head += 1;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
