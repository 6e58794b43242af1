import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * HTTP time limits and connection caps; `serve` takes each as an option (docs/operations.md),
 * and the composition root passes them to buildApp (config.ts: connectionLimits).
 */
export interface ConnectionLimits {
  /** From a connection's first byte to its request's complete headers. */
  headersTimeoutMs: number;
  /** From a request's first byte to its complete body. */
  requestTimeoutMs: number;
  /** A connection with no byte in or out for this long is closed. */
  idleTimeoutMs: number;
  /** An idle keep-alive connection between requests is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Open connections of the whole server; more are refused. */
  maxConnections: number;
  /** Open connections from one client address; more are closed at once. */
  maxConnectionsPerAddress: number;
}

/** Caps the server's connections, in all and per client address; returns how many are open. */
export function limitConnections(
  server: Server,
  limits: Pick<ConnectionLimits, 'maxConnections' | 'maxConnectionsPerAddress'>,
): () => number {
  server.maxConnections = limits.maxConnections;
  const open = new Map<string, number>();
  let total = 0;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    total += 1;
    socket.once('close', () => {
      total -= 1;
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return () => total;
}
