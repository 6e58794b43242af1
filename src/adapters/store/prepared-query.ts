import type { CompiledQuery } from 'kysely';
import type { Executor } from './executor.js';

/** A value a prepared query takes as a parameter. */
export type Value = string | number | null;

interface Compilable<R> {
  compile(): CompiledQuery<R>;
}

const sentinel = (i: number): string => `\u0000sentinel-${i}\u0000`;

/**
 * A query compiled once with the distinct sentinel values 0..count-1 where its parameters
 * go: each later call puts its values (by sentinel number) where the sentinels landed.
 */
function template<R>(
  build: (sentinels: string[]) => Compilable<R>,
  count: number,
): (values: readonly Value[]) => CompiledQuery<R> {
  const sentinels = Array.from({ length: count }, (_, i) => sentinel(i));
  const query = build(sentinels).compile();
  const index = new Map<unknown, number>(sentinels.map((s, i) => [s, i]));
  // A parameter that is no sentinel is a constant of the query shape: kept as compiled.
  const slots = query.parameters.map((value) => index.get(value) ?? -1);
  return (values) => ({
    ...query,
    parameters: slots.map((slot, i) => (slot < 0 ? query.parameters[i] : values[slot])),
  });
}

/**
 * What was compiled for one database, shared by its transactions (stores are made afresh
 * for each transaction). Keyed by the database's dialect adapter, which its transactions
 * share and another database (another dialect) does not.
 */
function perDatabase<T>(make: () => T): (db: Executor) => T {
  const made = new WeakMap<object, T>();
  return (db) => {
    const key = db.getExecutor().adapter;
    let value = made.get(key);
    if (value === undefined) {
      value = make();
      made.set(key, value);
    }
    return value;
  };
}

/**
 * Compiles a Kysely query once and runs it again with new parameters. Building and
 * compiling a query costs more than SQLite takes to run a small one, and the hot paths (the
 * key lookup of every request, the statements of a send batch) run the same query shape
 * each time.
 */
export function preparedQuery<P extends Record<string, Value>, R>(
  build: (db: Executor, params: P) => Compilable<R>,
  keys: readonly (keyof P)[],
): (db: Executor, params: P) => CompiledQuery<R> {
  const compiled = perDatabase(() => ({ fill: null as ((values: readonly Value[]) => CompiledQuery<R>) | null }));
  return (db, params) => {
    const slot = compiled(db);
    slot.fill ??= template(
      (sentinels) => build(db, Object.fromEntries(keys.map((k, i) => [k, sentinels[i]])) as P),
      keys.length,
    );
    return slot.fill(keys.map((k) => params[k] ?? null));
  };
}

/**
 * preparedQuery for multi-row statements, whose shape changes with the number of rows:
 * compiled once per row count, and the latest `limit` counts kept (a batch's sizes repeat;
 * the oldest count is forgotten first). Callers keep the rows of one statement at or under
 * their chunk size, which bounds each template.
 */
export function preparedRows<Row extends Record<string, Value>, R>(
  build: (db: Executor, rows: Row[]) => Compilable<R>,
  columns: readonly (keyof Row)[],
  limit = 64,
): (db: Executor, rows: readonly Row[]) => CompiledQuery<R> {
  const compiled = perDatabase(() => new Map<number, (values: readonly Value[]) => CompiledQuery<R>>());
  const width = columns.length;
  return (db, rows) => {
    const byCount = compiled(db);
    let fill = byCount.get(rows.length);
    if (!fill) {
      const shape = (sentinels: string[]) =>
        build(
          db,
          rows.map((_, r) => Object.fromEntries(columns.map((c, i) => [c, sentinels[r * width + i]])) as Row),
        );
      fill = template(shape, rows.length * width);
      if (byCount.size >= limit) byCount.delete(byCount.keys().next().value ?? 0);
      byCount.set(rows.length, fill);
    }
    const values: Value[] = new Array<Value>(rows.length * width);
    rows.forEach((row, r) => columns.forEach((c, i) => (values[r * width + i] = row[c] ?? null)));
    return fill(values);
  };
}

/** Lists up to this length are padded to a power of two; longer ones are compiled per length. */
const paddedUpTo = 1024;

/** The length a list of `count` values is run as. */
function paddedLength(count: number): number {
  if (count <= 1 || count > paddedUpTo) return count;
  let length = 2;
  while (length < count) length *= 2;
  return length;
}

/**
 * preparedQuery for statements with one list of values (`IN (...)`), whose shape changes
 * with the list's length: the list is padded to a power of two by repeating its last value
 * (harmless in an IN list), so a few lengths are compiled once each, and SQLite keeps a few
 * statement texts. Lists longer than `paddedUpTo` are compiled per length, the latest
 * `limit` lengths kept. The list must not be empty.
 */
export function preparedList<P extends Record<string, Value>, L extends Value, R>(
  build: (db: Executor, params: P, list: L[]) => Compilable<R>,
  keys: readonly (keyof P)[],
  limit = 16,
): (db: Executor, params: P, list: readonly L[]) => CompiledQuery<R> {
  const compiled = perDatabase(() => new Map<number, (values: readonly Value[]) => CompiledQuery<R>>());
  const width = keys.length;
  return (db, params, list) => {
    if (list.length === 0) throw new Error('a prepared list needs at least one value');
    const length = paddedLength(list.length);
    const byLength = compiled(db);
    let fill = byLength.get(length);
    if (!fill) {
      const shape = (sentinels: string[]) =>
        build(db, Object.fromEntries(keys.map((k, i) => [k, sentinels[i]])) as P, sentinels.slice(width) as L[]);
      fill = template(shape, width + length);
      if (length > paddedUpTo && byLength.size >= limit) {
        const oldest = [...byLength.keys()].find((l) => l > paddedUpTo);
        if (oldest !== undefined) byLength.delete(oldest);
      }
      byLength.set(length, fill);
    }
    const values: Value[] = new Array<Value>(width + length);
    keys.forEach((k, i) => (values[i] = params[k] ?? null));
    const last = list[list.length - 1] ?? null;
    for (let i = 0; i < length; i++) values[width + i] = i < list.length ? (list[i] ?? null) : last;
    return fill(values);
  };
}

/**
 * The columns of a row type, named once each: the compiler checks the list is complete
 * (a column added to the table and not here is an error).
 */
export function columnsOf<Row>(all: Record<keyof Row, true>): (keyof Row & string)[] {
  return Object.keys(all) as (keyof Row & string)[];
}
