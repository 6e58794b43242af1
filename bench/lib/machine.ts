import { readdirSync, readFileSync } from 'node:fs';
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
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
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

/** Clock ticks per second of /proc times: 100 on every Linux this runs on. */
const ticksPerSecond = 100;

/** CPU seconds (user + system) a process has used so far; null when it cannot be read. */
export function processCpuSeconds(pid: number | string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its parenthesis are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const user = Number(fields[11]);
    const system = Number(fields[12]);
    return Number.isFinite(user) && Number.isFinite(system) ? (user + system) / ticksPerSecond : null;
  } catch {
    return null;
  }
}

/**
 * CPU seconds used so far by every running process with this command name (`postgres`:
 * the database server and its backends, which share the machine with the server under
 * test). Null without /proc.
 */
export function namedProcessesCpuSeconds(name: string): number | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== name) continue;
    } catch {
      continue;
    }
    total += processCpuSeconds(pid) ?? 0;
  }
  return total;
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

/** `waitForQuiet`, saying on stderr when it had to wait (and how busy the machine was). */
export async function settle(maxSeconds: number): Promise<void> {
  const started = Date.now();
  const busy = await waitForQuiet(maxSeconds);
  const waited = Math.round((Date.now() - started) / 1000);
  if (waited > 2)
    process.stderr.write(
      `  waited ${waited} s for a quiet machine (last second: ${busy === null ? '?' : Math.round(busy)}% CPU busy)\n`,
    );
}

export interface MachineInfo {
  cpu: string;
  cores: number;
  node: string;
  platform: string;
}

export function machineInfo(): MachineInfo {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: availableParallelism(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}
