import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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

/**
 * Writes a carrier's `--smpp-config` at `path`: one connection, `sim`, to the simulator at
 * `port` and the default route, with `connection`'s fields over its defaults and `top`'s
 * beside `connections`.
 */
export function writeSimCarrierConfig(
  path: string,
  port: number,
  connection: Record<string, unknown>,
  top: Record<string, unknown> = {},
): void {
  writeFileSync(
    path,
    JSON.stringify({
      connections: [{ name: 'sim', host: '127.0.0.1', port, systemId: 'haberci', password: 'pw', ...connection }],
      defaultRoute: 'sim',
      ...top,
    }),
  );
}
