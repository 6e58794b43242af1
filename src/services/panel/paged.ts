/**
 * A page of a list paged by key (never by offset), as the console's and the reseller's
 * lists read them: one row more than the page is asked of the store, so the page knows
 * whether another follows.
 */
export interface Paged<T> {
  items: T[];
  /** The cursor of the next page, or null when this one is the last. */
  next: number | null;
}

/** The page of the first `limit` of `rows` (read with `limit + 1`), its next cursor that of its last row. */
export function paged<T>(rows: T[], limit: number, cursor: (row: T) => number): Paged<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last !== undefined ? cursor(last) : null };
}
