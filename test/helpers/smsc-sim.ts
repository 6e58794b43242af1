import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { binPath, childEnv } from './server-process.js';
import { waitFor } from './wait-for.js';

/** A running `haberci smsc-sim` child, its SMPP port and its /stats address. */
export interface Simulator {
  child: ChildProcess;
  port: number;
  stats: string;
}

export async function startSimulator(args: string[]): Promise<Simulator> {
  const child = spawn(process.execPath, [binPath, 'smsc-sim', '--stats-port', '0', ...args], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  // On time-out fall through to the error below, which shows the output.
  await waitFor('smsc-sim to print its stats address', () => /stats on http/.test(out)).catch(() => undefined);
  const port = Number(/127\.0\.0\.1:(\d+)\n/.exec(out)?.[1]);
  const stats = /(http:\/\/127\.0\.0\.1:\d+\/stats)/.exec(out)?.[1];
  if (!port || !stats) throw new Error(`smsc-sim did not start: ${out}`);
  return { child, port, stats };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
