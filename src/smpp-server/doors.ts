/**
 * The SMPP server's listeners and the connections they take (docs/smpp.md, "Connections";
 * docs/decisions.md, "The SMPP server's doors"): one net.Server per port, plain or TLS, under
 * caps shared by both ports, in all and per peer address. A connection past its address's
 * cap is closed at once; at the cap in all, the oldest connection not bound (one still in
 * its TLS handshake or waiting to bind) is closed for the new one, and a new one is refused
 * only when every connection is bound. A TLS connection that has not finished its handshake
 * in `handshakeMs` is closed. A failed accept is logged. At stop, every connection not bound
 * is closed at once (the bound ones are the server's to unbind).
 */
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createSecureContext, TLSSocket } from 'node:tls';
import type { Logger } from 'pino';

export interface DoorLimits {
  /** Open SMPP connections of the process, both ports together. */
  maxConnections: number;
  /** Open SMPP connections from one peer address. */
  maxConnectionsPerAddress: number;
  /** A TLS connection whose handshake has not finished this long after it opened is closed. */
  handshakeMs: number;
}

interface Door {
  raw: Socket;
  address: string;
  bound: boolean;
}

/**
 * What the doors did, for a warning at most every `everyMs` (a flood must not flood the log
 * too): the first at once, the counts of a burst after it at the end of the interval.
 */
class Tally {
  private last = -Infinity;
  private readonly counts = new Map<string, number>();
  private later: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: Logger,
    private readonly everyMs = 10_000,
  ) {}

  note(what: string, fields: object = {}): void {
    this.counts.set(what, (this.counts.get(what) ?? 0) + 1);
    const wait = this.last + this.everyMs - performance.now();
    if (wait <= 0) return this.flush(fields);
    if (this.later) return;
    this.later = setTimeout(() => this.flush(fields), wait);
    this.later.unref();
  }

  private flush(fields: object): void {
    this.later = null;
    this.last = performance.now();
    this.log.warn(
      { ...fields, ...Object.fromEntries(this.counts) },
      'SMPP server: connections closed at the caps, or accepts failed (counts since the last such line)',
    );
    this.counts.clear();
  }
}

export class Doors {
  private readonly servers: Server[] = [];
  /** Every open connection, oldest first (a Map keeps the order of insertion). */
  private readonly open = new Map<Socket, Door>();
  /** By the socket handed to a session (the raw one, or its TLS socket). */
  private readonly handed = new WeakMap<Socket, Door>();
  private readonly perAddress = new Map<string, number>();
  private readonly tally: Tally;
  private closing = false;

  constructor(
    private readonly limits: DoorLimits,
    private readonly log: Logger,
    private readonly onSocket: (socket: Socket) => void,
  ) {
    this.tally = new Tally(log);
  }

  /** Opens a listener (TLS with `tls`); resolves with its port. */
  async listen(where: { port: number; host: string; tls?: { key: Buffer; cert: Buffer } }): Promise<number> {
    const secureContext = where.tls ? createSecureContext(where.tls) : null;
    const server = createServer((raw) => this.take(raw, secureContext));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(where.port, where.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    // A failed accept (EMFILE at the open-files limit, say) is an error of the server.
    server.on('error', (error: NodeJS.ErrnoException) =>
      this.tally.note(`accept_failed`, { err: { message: error.message, code: error.code } }),
    );
    this.servers.push(server);
    return (server.address() as AddressInfo).port;
  }

  /** The session on `socket` is bound: it is not closed for a new connection, nor at stop. */
  markBound(socket: Socket): void {
    const door = this.handed.get(socket);
    if (door) door.bound = true;
  }

  /** Open connections (both ports). */
  get count(): number {
    return this.open.size;
  }

  /** Stops taking connections and closes every one not bound at once; resolves when the listeners are closed (every connection gone). */
  close(): Promise<void> {
    this.closing = true;
    const closed = Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    for (const door of this.open.values()) if (!door.bound) door.raw.destroy();
    return closed.then(() => undefined);
  }

  private take(raw: Socket, secureContext: ReturnType<typeof createSecureContext> | null): void {
    raw.on('error', () => undefined);
    const address = raw.remoteAddress ?? '';
    if (this.closing) return void raw.destroy();
    const fromAddress = this.perAddress.get(address) ?? 0;
    if (fromAddress >= this.limits.maxConnectionsPerAddress) {
      this.tally.note('refused_per_address');
      return void raw.destroy();
    }
    if (this.open.size >= this.limits.maxConnections && !this.evictOldestUnbound()) {
      this.tally.note('refused_all_bound');
      return void raw.destroy();
    }
    const door: Door = { raw, address, bound: false };
    this.open.set(raw, door);
    this.perAddress.set(address, fromAddress + 1);
    raw.once('close', () => {
      this.open.delete(raw);
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left <= 0) this.perAddress.delete(address);
      else this.perAddress.set(address, left);
    });
    if (!secureContext) {
      this.handed.set(raw, door);
      return this.onSocket(raw);
    }
    const secure = new TLSSocket(raw, { isServer: true, secureContext });
    secure.on('error', () => raw.destroy());
    const handshake = setTimeout(() => raw.destroy(), this.limits.handshakeMs);
    handshake.unref();
    raw.once('close', () => clearTimeout(handshake));
    secure.once('secure', () => {
      clearTimeout(handshake);
      this.handed.set(secure, door);
      this.onSocket(secure);
    });
  }

  /** Closes the connection open longest that is not bound, for a new one; false when every one is bound. */
  private evictOldestUnbound(): boolean {
    for (const door of this.open.values()) {
      if (door.bound) continue;
      this.open.delete(door.raw);
      door.raw.destroy();
      this.tally.note('closed_for_new');
      return true;
    }
    return false;
  }
}
