/**
 * The benchmarks' only environment setting, read here and nowhere else in bench/.
 * HABERCI_BENCH_DATABASE: a postgres:// URL; when set, the store benches measure
 * PostgreSQL too, each in a fresh schema of that database that is dropped afterwards.
 */
export function benchDatabaseUrl(): string {
  return process.env.HABERCI_BENCH_DATABASE ?? '';
}
