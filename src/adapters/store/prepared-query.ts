import type { CompiledQuery } from 'kysely';

/**
 * Compiles a Kysely query once and runs it again with new parameters. Building and
 * compiling a query costs more than SQLite takes to run a small one, and the hot paths (the
 * key lookup of every request, the request-limit counter) run the same query shape each
 * time. The query is built once with distinct sentinel values; each later call puts its
 * values where the sentinels landed among the compiled parameters.
 */
export function preparedQuery<P extends Record<string, string | number>, R>(build: (params: P) => { compile(): CompiledQuery<R> }, keys: readonly (keyof P)[]): (params: P) => CompiledQuery<R> {
  let template: { query: CompiledQuery<R>; slots: (keyof P | null)[] } | null = null;
  return (params) => {
    if (!template) {
      const sentinels = Object.fromEntries(keys.map((k, i) => [k, `\u0000sentinel-${i}\u0000`])) as unknown as P;
      const query = build(sentinels).compile();
      const slots = query.parameters.map((value) => keys.find((k) => sentinels[k] === value) ?? null);
      // A parameter that is no sentinel is a constant of the query shape: kept as compiled.
      template = { query, slots };
    }
    const { query, slots } = template;
    return { ...query, parameters: query.parameters.map((value, i) => (slots[i] === null ? value : params[slots[i] as keyof P])) };
  };
}
