/**
 * The process's open files against its limit (docs/smpp.md, "Connections"). At the limit
 * every accept fails, HTTP's and SMPP's, and Node says nothing of it (libuv closes the
 * connections it cannot take): so `serve` with the SMPP server warns at start when its
 * connection caps do not fit under the limit, and while it runs when its open files come
 * near it. Linux only (/proc/self); elsewhere neither check is made.
 */
import { readdir, readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Config } from '../config.js';

/** File descriptors kept for what is not a client connection: the store, carriers, webhooks, logs, threads. */
export function otherFilesOf(config: Pick<Config, 'webhookConcurrency'>): number {
  return 256 + config.webhookConcurrency;
}

/** The soft open-files limit of this process; null where it cannot be read. */
async function openFilesLimit(): Promise<number | null> {
  const text = await readFile('/proc/self/limits', 'utf8').catch(() => '');
  const found = /^Max open files\s+(\d+|unlimited)/m.exec(text)?.[1];
  if (found === undefined) return null;
  return found === 'unlimited' ? Infinity : Number(found);
}

/**
 * Warns now when the HTTP and SMPP connection caps, with the files the process needs
 * besides, do not fit under the open-files limit; then looks every `everyMs` and warns (at
 * most once a minute) while nine tenths of the limit are open, or when the look itself
 * fails for want of a descriptor. Returns the watch's stop.
 */
export async function watchOpenFiles(config: Config, logger: Logger, everyMs = 10_000): Promise<() => void> {
  const limit = await openFilesLimit();
  if (limit === null || limit === Infinity) return () => undefined;
  const smpp = config.smppServerMaxConnections;
  const needed = config.maxConnections + smpp + otherFilesOf(config);
  if (needed > limit)
    logger.warn(
      { open_files_limit: limit, max_connections: config.maxConnections, smpp_max_connections: smpp, needed },
      `the connection caps do not fit under the open-files limit (${limit}): --max-connections ${config.maxConnections} + --smpp-server-max-connections ${smpp} + ${otherFilesOf(config)} for the store, carriers and webhooks; raise the limit (ulimit -n, systemd LimitNOFILE) or lower the caps`,
    );
  let warnedAt = -Infinity;
  const warn = (open: number | null): void => {
    const now = performance.now();
    if (now - warnedAt < 60_000) return;
    warnedAt = now;
    logger.warn(
      { open_files: open, open_files_limit: limit },
      'open files near the limit: at it, new connections (HTTP and SMPP) are closed unanswered; raise the limit or lower the caps',
    );
  };
  const timer = setInterval(() => {
    readdir('/proc/self/fd').then(
      (fds) => {
        if (fds.length >= limit * 0.9) warn(fds.length);
      },
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EMFILE' || error.code === 'ENFILE') warn(null);
      },
    );
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
