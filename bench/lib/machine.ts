import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';

/**
 * Whole-machine CPU from /proc/stat. Other work on the machine (a build, a test run)
 * takes cores from the server and the load generator and lowers the figures, so every
 * case records how much CPU the rest of the machine used while it was measured, and the
 * bench waits for a quiet machine before each case.
 */
export interface CpuTotals {
  busy: number;
  total: number;
}

export function cpuTotals(): CpuTotals | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    // cpu user nice system idle iowait irq softirq steal ...
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
    const busy = user + nice + system + irq + softirq + steal;
    return { busy, total: busy + idle + iowait };
  } catch {
    return null;
  }
}

/** CPU the machine spent between two readings, 100 = one core. */
export function busyPercent(before: CpuTotals | null, after: CpuTotals | null): number | null {
  if (before === null || after === null || after.total <= before.total) return null;
  return (100 * availableParallelism() * (after.busy - before.busy)) / (after.total - before.total);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Busy CPU below this (100 = one core) over a second counts as a quiet machine. */
const quietPercent = 15;

/**
 * Waits until the machine has been quiet for one second, or `maxSeconds` have passed.
 * Resolves with the busy percentage of the last second (null without /proc).
 */
export async function waitForQuiet(maxSeconds: number): Promise<number | null> {
  const deadline = Date.now() + maxSeconds * 1000;
  for (;;) {
    const before = cpuTotals();
    await sleep(1000);
    const busy = busyPercent(before, cpuTotals());
    if (busy === null || busy < quietPercent || Date.now() >= deadline) return busy;
  }
}

export interface MachineInfo {
  cpu: string;
  cores: number;
  node: string;
  platform: string;
}

export function machineInfo(): MachineInfo {
  return { cpu: cpus()[0]?.model ?? 'unknown', cores: availableParallelism(), node: process.version, platform: `${process.platform} ${process.arch}` };
}
