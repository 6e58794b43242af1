import { readFileSync } from 'node:fs';

/** Resident set size of a process in MB (VmRSS of /proc/PID/status); null without /proc. */
export function residentMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? null : Number(match[1]) / 1024;
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; resolves with the peak (MB). */
export function watchPeakRss(pid: number, everyMs = 50): { stop(): number | null } {
  let peak: number | null = residentMb(pid);
  const timer = setInterval(() => {
    const now = residentMb(pid);
    if (now !== null && (peak === null || now > peak)) peak = now;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const now = residentMb(pid);
      if (now !== null && (peak === null || now > peak)) peak = now;
      return peak;
    },
  };
}
