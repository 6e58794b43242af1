import type { Measurement } from './load.js';
/** What every benchmark is and returns; `run.ts` keeps the list of them. */

export interface BenchOptions {
  /** Measured seconds per case. */
  durationSeconds: number;
  /** Seconds of load before each measured run, thrown away. */
  warmupSeconds: number;
  connections: number;
  /** Longest wait for a quiet machine before each case; then it is measured anyway. */
  quietWaitSeconds: number;
  /** Messages (requests, events) per count-bounded case: sms-send, webhooks, smpp-e2e. */
  messages: number;
  /** Run Kannel's anchor (bench/lib/kannel.ts) beside the benches that compare with it. */
  kannel: boolean;
}

export const defaultBenchOptions: BenchOptions = {
  durationSeconds: 10,
  warmupSeconds: 2,
  connections: 50,
  quietWaitSeconds: 120,
  messages: 20_000,
  kannel: true,
};

/** One measured case: one server, one request, one load. */
export interface BenchResult extends Measurement {
  bench: string;
  /** The store behind the server: none for a bare route. */
  store: 'none' | 'sqlite' | 'postgres';
  /** A short name of the case, unique within a bench and store. */
  scenario: string;
  description: string;
  /** Against the bench's baseline case, when it has one. */
  ratioToBaseline: number | null;
  /** The least acceptable ratio to the baseline, when the case has a target. */
  targetRatio: number | null;
  targetMet: boolean | null;
}

/**
 * One figure of a count-bounded bench (a rate to completion, a time, a size), measured
 * once; `scenario` names the system or case (`haberci`, `kannel w100-store`).
 */
export interface Figure {
  bench: string;
  scenario: string;
  measure: string;
  value: number | null;
  unit: string;
  /** The target in words (`>= 1.5 x kannel w100-store`), when this figure has one. */
  target: string | null;
  targetMet: boolean | null;
  notes: string;
}

/** What one bench measured: fixed-duration request rates, and figures of other kinds. */
export interface BenchOutput {
  results: BenchResult[];
  figures: Figure[];
  /** Anything that makes a figure invalid (lost or duplicated messages, errors). */
  faults: string[];
}

export interface Bench {
  name: string;
  description: string;
  run(options: BenchOptions): Promise<BenchOutput>;
}

/** A figure without a target; add one with `judged`. */
export function figure(
  bench: string,
  scenario: string,
  measure: string,
  value: number | null,
  unit: string,
  notes = '',
): Figure {
  return {
    bench,
    scenario,
    measure,
    value: value === null || Number.isNaN(value) ? null : value,
    unit,
    target: null,
    targetMet: null,
    notes,
  };
}

/** The figure with its target and whether it is met (unknown when the value is). */
export function judged(f: Figure, target: string, met: (value: number) => boolean): Figure {
  return { ...f, target, targetMet: f.value === null ? null : met(f.value) };
}
