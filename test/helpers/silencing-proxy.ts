import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';

/**
 * A TCP proxy to PostgreSQL that a test silences and resumes: while silent it accepts
 * connections and bytes and forwards nothing, in either direction, and closes nothing
 * (what it holds, closes included, goes on in order when it resumes), as a route that
 * stops carrying packets looks to both ends.
 */
export interface SilencingProxy {
  readonly port: number;
  /** `url` (a postgres:// URL) with its host and port those of the proxy. */
  through(url: string): string;
  silence(): void;
  /**
   * Silences the route as soon as one client has sent bytes holding each of `markers` in
   * turn (say a send's text, then the simple query `commit`), the last ones forwarded
   * first: the server gets that statement and its answer is held, as when a route falls
   * silent with a statement on its way.
   */
  silenceAfter(...markers: string[]): void;
  resume(): void;
  readonly silent: boolean;
  close(): Promise<void>;
}

export async function startSilencingProxy(target: URL): Promise<SilencingProxy> {
  let silent = false;
  let armed: Buffer[] = [];
  /** How many of the armed markers each client has sent. */
  let progress = new WeakMap<Socket, number>();
  const held: (() => void)[] = [];
  const open = new Set<Socket>();
  const later = (step: () => void): void => {
    if (silent) held.push(step);
    else step();
  };
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.on('data', (chunk: Buffer) => {
        later(() => b.write(chunk));
        if (a !== client || armed.length === 0) return;
        const next = progress.get(client) ?? 0;
        if (!chunk.includes(armed[next] ?? '')) return;
        progress.set(client, next + 1);
        if (next + 1 < armed.length) return;
        armed = [];
        silent = true;
      });
      a.on('end', () => later(() => b.end()));
      a.on('error', () => later(() => b.destroy()));
      a.on('close', () => {
        open.delete(a);
        later(() => b.destroy());
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  const port = address.port;
  return {
    port,
    through(url: string) {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(port);
      return proxied.toString();
    },
    silence() {
      silent = true;
    },
    silenceAfter(...markers: string[]) {
      armed = markers.map((m) => Buffer.from(m));
      progress = new WeakMap();
    },
    resume() {
      silent = false;
      armed = [];
      for (const step of held.splice(0)) step();
    },
    get silent() {
      return silent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
