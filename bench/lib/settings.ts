/**
 * The benchmarks' environment settings, read here and nowhere else in bench/.
 * HABERCI_BENCH_DATABASE: a postgres:// URL; when set, the store benches measure
 * PostgreSQL too, each in a fresh schema of that database that is dropped afterwards.
 * HABERCI_BENCH_REDIS: a redis:// URL; when set, `balance` also measures the per-key rate
 * counted in Redis (`serve --redis`).
 * HABERCI_BENCH_KANNEL: the folder of the Kannel anchor (its `run.sh`, with the Node SMSC
 * simulator in `../smsc-sim`); default /work/shared/bench/kannel.
 * HABERCI_BENCH_CPU_PROF: a folder; when set, every `haberci serve` a bench starts runs under
 * `node --cpu-prof` and writes its profile there when it stops (for finding where time goes;
 * the profiler slows the server, so such runs give no figures).
 */
export function benchDatabaseUrl(): string {
  return process.env.HABERCI_BENCH_DATABASE ?? '';
}

export function benchRedisUrl(): string {
  return process.env.HABERCI_BENCH_REDIS ?? '';
}

export function kannelAnchorDir(): string {
  return process.env.HABERCI_BENCH_KANNEL ?? '/work/shared/bench/kannel';
}

export function cpuProfileDir(): string {
  return process.env.HABERCI_BENCH_CPU_PROF ?? '';
}
