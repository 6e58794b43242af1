import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { processCpuSeconds } from './machine.js';

/** The repository root, from dist/bench/lib/ where this file runs compiled. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A server under load runs in a child process of its own, so that the load generator does
 * not share its event loop; on this 2-core machine each gets one core.
 */
export interface ServerProcess {
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  /** CPU seconds (user + system) the process has used so far; null without /proc. */
  cpuSeconds(): number | null;
  /** SIGTERM, then SIGKILL if it has not exited within the grace period. */
  stop(): Promise<void>;
}

const host = '127.0.0.1';
// Generous: a shared, loaded machine has taken over a minute to start a server.
const readyTimeoutMs = 180_000;
const stopGraceMs = 10_000;

/** A port free on 127.0.0.1 now; the server is started on it right after. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function tail(chunks: string[], text: string): void {
  chunks.push(text);
  while (chunks.join('').length > 8_000) chunks.shift();
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts `command args...` (which must listen on `port`) and resolves once the port takes
 * connections. A child that exits first, or is not ready in time, is an error carrying
 * the end of its output.
 */
export async function startServer(name: string, command: string, args: string[], port: number): Promise<ServerProcess> {
  const child = spawn(command, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout?.setEncoding('utf8').on('data', (text: string) => tail(output, text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => tail(output, text));
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name}: could not start ${command}`);

  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${name} exited before it was ready (${child.exitCode ?? child.signalCode}):\n${output.join('')}`,
      );
    }
    if (await canConnect(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} was not ready on port ${port} within ${readyTimeoutMs} ms:\n${output.join('')}`);
    }
    await sleep(50);
  }

  return {
    pid,
    port,
    url: `http://${host}:${port}`,
    cpuSeconds: () => processCpuSeconds(pid),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = exited(child);
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
      await done;
      clearTimeout(timer);
    },
  };
}
