import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export interface CommandOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end (bounded: SIGTERM at `timeoutMs`, SIGKILL 5 s later) and
 * collects its output; never rejects for a non-zero exit.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs: number },
): Promise<CommandOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    const term = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs);
    const kill = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs + 5_000);
    child.once('error', (error) => {
      clearTimeout(term);
      clearTimeout(kill);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(term);
      clearTimeout(kill);
      resolve({ code, stdout, stderr });
    });
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `probe` every `everyMs` until it returns a value that is not null, or `timeoutMs`
 * passes (then null).
 */
export async function pollUntil<T>(
  probe: () => T | null | Promise<T | null>,
  everyMs: number,
  timeoutMs: number,
): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() >= deadline) return null;
    await sleep(everyMs);
  }
}

/**
 * CPU seconds of every thread of a process, from the scheduler's nanosecond counters
 * (`/proc/PID/task/TID/schedstat`): `/proc/PID/stat` counts in 10 ms ticks, too coarse
 * for a round of a few hundred milliseconds.
 */
export function cpuSecondsOf(pid: number | undefined): number {
  const tasks = `/proc/${pid ?? 'none'}/task`;
  if (!existsSync(tasks)) throw new Error('server CPU is read from /proc, which this machine lacks');
  let nanos = 0;
  for (const task of readdirSync(tasks)) {
    try {
      nanos += Number(readFileSync(`${tasks}/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return nanos / 1e9;
}
