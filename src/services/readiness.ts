/**
 * Whether this process can do its work now (GET /readyz): the store answers a trivial query
 * within a short time and holds every migration of this build, and, when the process runs a
 * carrier that holds connections (SMPP), at least one of them is bound. Liveness (/healthz)
 * needs none of this: the process answering is the proof.
 */
import type { CarrierLinks } from '../ports/carrier.js';
import type { Store } from '../ports/store.js';

/** One check's outcome; `detail` says what failed, in a few words. */
export interface CheckResult {
  ok: boolean;
  detail?: string;
}

export interface ReadinessReport {
  ready: boolean;
  /** By name: `store`, `migrations`, and `carrier` when the process holds carrier connections. */
  checks: Record<string, CheckResult>;
}

export interface ReadinessSources {
  store: Pick<Store, 'health' | 'stuck'>;
  /** How long the store's query may take before the store counts as away. */
  storeTimeoutMs?: number;
  /**
   * The live carrier's bound connections, as the dispatch thread last told; null when it
   * holds none (the simulator): then there is no carrier check. Absent: this process runs no
   * dispatcher (`--worker false`).
   */
  carrierLinks?: () => CarrierLinks | null;
}

export const defaultStoreTimeoutMs = 2000;

class TimedOut extends Error {}

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TimedOut(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // One short line: a driver's message may run long.
  return text.split('\n')[0]?.slice(0, 200) ?? '';
}

export class Readiness {
  constructor(private readonly sources: ReadinessSources) {}

  /**
   * Liveness (GET /healthz): null while the process can do its work again by itself; else
   * why it cannot (a restart is the cure), e.g. the store's write lock held by a holder
   * that never gives it back.
   */
  liveness(): string | null {
    return this.sources.store.stuck?.() ?? null;
  }

  async report(): Promise<ReadinessReport> {
    const checks: Record<string, CheckResult> = {};
    try {
      const health = await within(this.sources.store.health(), this.sources.storeTimeoutMs ?? defaultStoreTimeoutMs);
      checks.store =
        health.writeFault === undefined
          ? { ok: true }
          : { ok: false, detail: `the store cannot write: ${health.writeFault}` };
      checks.migrations = health.migrated
        ? { ok: true }
        : { ok: false, detail: 'the store lacks migrations of this build' };
    } catch (error) {
      checks.store = { ok: false, detail: `the store does not answer: ${reason(error)}` };
      checks.migrations = { ok: false, detail: 'unknown: the store does not answer' };
    }
    const links = this.sources.carrierLinks?.() ?? null;
    if (links !== null) {
      const elsewhere = links.elsewhere ?? 0;
      checks.carrier =
        links.bound > 0
          ? { ok: true, detail: `${links.bound} of ${links.total} carrier connections bound` }
          : elsewhere > 0
            ? {
                ok: true,
                detail: `0 of ${links.total} carrier connections bound here, ${elsewhere} by other processes`,
              }
            : { ok: false, detail: `0 of ${links.total} carrier connections bound` };
    }
    return { ready: Object.values(checks).every((c) => c.ok), checks };
  }
}
