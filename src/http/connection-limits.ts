import type { IncomingMessage, Server, ServerResponse } from 'node:http';
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
  /** Open connections of the whole server: near it the longest-idle are closed for new ones, past it new ones are refused. */
  maxConnections: number;
  /** Open connections from one client address; more are closed at once. */
  maxConnectionsPerAddress: number;
}

/** What the cap did, for its log line: connections closed to make room, and new ones refused. */
export interface CapEvents {
  evicted(count: number): void;
  refused(count: number): void;
}

/** Connections the cap keeps free for new clients: a tenth of it (at least one). */
export function headroomOf(maxConnections: number): number {
  return Math.max(1, Math.floor(maxConnections / 10));
}

/**
 * Caps the server's connections, in all and per client address; returns how many are open.
 *
 * A connection with no request in flight (one that has sent nothing yet, or a keep-alive
 * connection between requests) is idle. Near the cap (within its headroom, a tenth), each new
 * connection closes the connection that has been idle longest, so idle connections cannot
 * fill the server and a new client's request still gets in; at the cap, a new connection is
 * refused only when no connection is idle. A connection past its address's cap is closed at
 * once.
 */
export function limitConnections(
  server: Server,
  limits: Pick<ConnectionLimits, 'maxConnections' | 'maxConnectionsPerAddress'>,
  events: CapEvents = { evicted: () => undefined, refused: () => undefined },
): () => number {
  // Not net.Server's own cap: it drops a connection past it without looking at the others.
  const highWater = limits.maxConnections - headroomOf(limits.maxConnections);
  const open = new Map<string, number>();
  /** Requests in flight, by connection: a connection absent from it is unknown (closed). */
  const inFlight = new Map<Socket, number>();
  /** The idle connections, longest idle first (a Set keeps the order of insertion). */
  const idle = new Set<Socket>();
  let total = 0;

  const evictIdlest = (): boolean => {
    const oldest = idle.values().next();
    if (oldest.done) return false;
    idle.delete(oldest.value);
    oldest.value.destroy();
    return true;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    if (total >= highWater) {
      const evicted = evictIdlest();
      if (evicted) events.evicted(1);
      else if (total >= limits.maxConnections) {
        events.refused(1);
        socket.destroy();
        return;
      }
    }
    open.set(address, count);
    total += 1;
    inFlight.set(socket, 0);
    idle.add(socket);
    socket.once('close', () => {
      total -= 1;
      inFlight.delete(socket);
      idle.delete(socket);
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const busy = inFlight.get(socket);
    if (busy === undefined) return;
    inFlight.set(socket, busy + 1);
    idle.delete(socket);
    response.once('close', () => {
      const before = inFlight.get(socket);
      if (before === undefined) return;
      const left = before - 1;
      inFlight.set(socket, left);
      // Idle again from now: the end of the order.
      if (left === 0) idle.add(socket);
    });
  });
  return () => total;
}

/**
 * The cap's log line: a warning when it first closes idle connections for new ones (or
 * refuses one), then at most one each `everyMs` while it goes on, with the counts since.
 */
export function capLog(log: { warn(fields: object, message: string): void }, everyMs = 10_000): CapEvents {
  let last = -Infinity;
  let evicted = 0;
  let refused = 0;
  const note = (): void => {
    const now = performance.now();
    if (now - last < everyMs) return;
    last = now;
    log.warn(
      { evicted, refused },
      'connections near --max-connections: the longest-idle closed to keep room for new ones (refused: none was idle)',
    );
    evicted = 0;
    refused = 0;
  };
  return {
    evicted: (count) => {
      evicted += count;
      note();
    },
    refused: (count) => {
      refused += count;
      note();
    },
  };
}
