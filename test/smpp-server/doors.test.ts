/**
 * The SMPP server's doors (issue 42, item 3), through TCP, TLS and SMPP to the server in this
 * process: a connection past its address's cap is closed at once; at the cap in all, the
 * oldest connection not bound is closed for a new one, and a new one is refused when every
 * one is bound; a TLS connection that never starts its handshake is closed (its time-out is
 * the bind's); at stop, such a connection is closed at once and the bound session unbound.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { after, before, it } from 'node:test';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { harnessFor } from '../helpers/harness.js';
import { connectEsme } from '../helpers/esme.js';
import type { Esme } from '../helpers/esme.js';
import { waitFor } from '../helpers/wait-for.js';
import { selfSigned } from '../helpers/self-signed.js';
import { smppServerOn } from '../helpers/smpp-server.js';
import { valueOf } from '../helpers/results.js';

const ESME_ROK = 0x00;

interface Raw {
  socket: Socket;
  closed(): boolean;
  /** Bytes the server sent. */
  received(): number;
}

/** A TCP connection from `from` that sends nothing. */
async function rawFrom(port: number, from: string): Promise<Raw> {
  let closed = false;
  let received = 0;
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  socket.on('error', () => undefined);
  socket.on('data', (data: Buffer) => (received += data.length));
  socket.on('close', () => (closed = true));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, closed: () => closed, received: () => received };
}

for (const dialect of testDialects()) {
  describeOn(dialect, `SMPP server: connection caps, TLS handshakes and the stop (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    const tls = selfSigned();
    const raws: Raw[] = [];
    const esmes: Esme[] = [];
    let keyId = 0;

    /** The server's log lines, as JSON. */
    const lines: Record<string, unknown>[] = [];
    const log = pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      }),
    );
    const serverWith = (caps: { maxConnections: number; maxConnectionsPerAddress: number }, idleMs = 60_000) =>
      smppServerOn(h.runtime, h.clock, { idleMs, log, ...caps });
    const raw = async (port: number, from: string): Promise<Raw> => {
      const r = await rawFrom(port, from);
      raws.push(r);
      return r;
    };
    const bound = async (port: number, from: string, systemId: string): Promise<Esme> => {
      const esme = await connectEsme(port, { localAddress: from });
      esmes.push(esme);
      assert.equal(await esme.bind('bind_transceiver', systemId, 'pw'), ESME_ROK);
      return esme;
    };

    before(async () => {
      keyId = (await h.provision()).keyId;
      for (const systemId of ['capped', 'stays'])
        await valueOf(h.runtime.smppUsers.create({ keyId, systemId, password: 'pw', maxBinds: 10 }));
    });
    after(async () => {
      for (const r of raws) r.socket.destroy();
      for (const esme of esmes) await esme.close();
    });

    it('closes a connection past its address\u2019s cap at once, and the oldest not bound for a new one at the cap', async () => {
      const server = serverWith({ maxConnections: 4, maxConnectionsPerAddress: 2 });
      const port = await server.listen({ port: 0, host: '127.0.0.1' });
      try {
        const [first, second] = [await raw(port, '127.0.0.1'), await raw(port, '127.0.0.1')];
        const third = await raw(port, '127.0.0.1');
        await waitFor('the third connection from one address closed', () => third.closed());
        assert.equal(third.received(), 0);
        // Logged, as a warning with its count.
        await waitFor('the cap logged', () => lines.some((l) => l.refused_per_address === 1));
        await raw(port, '127.0.0.2');
        await raw(port, '127.0.0.2');
        await waitFor('four connections open', () => server.connections === 4);
        // At the cap: a new client still binds; the connection open longest, not bound, made room.
        await bound(port, '127.0.0.3', 'capped');
        await waitFor('the oldest connection not bound closed', () => first?.closed() === true);
        assert.ok(!second?.closed());
        assert.equal(server.connections, 4);
        // Every connection bound: a new one is refused.
        for (const r of raws) r.socket.destroy();
        await waitFor('the raw connections gone', () => server.connections === 1);
        await bound(port, '127.0.0.3', 'capped');
        await bound(port, '127.0.0.4', 'capped');
        await bound(port, '127.0.0.4', 'capped');
        const refused = await raw(port, '127.0.0.5');
        await waitFor('a connection past the cap of bound ones closed', () => refused.closed());
        assert.equal(server.connections, 4);
        for (const esme of esmes) assert.ok(!esme.closed(), 'a bound session was closed for a new connection');
      } finally {
        await server.close();
      }
    });

    it('closes a TLS connection that never starts its handshake (the bind time-out bounds it)', async () => {
      const server = serverWith({ maxConnections: 10, maxConnectionsPerAddress: 10 }, 300);
      const port = await server.listen({ port: 0, host: '127.0.0.1', tls: tls.read() });
      try {
        const silent = await raw(port, '127.0.0.1');
        await waitFor('the silent TLS connection closed by the server', () => silent.closed());
        assert.equal(silent.received(), 0);
        assert.equal(server.connections, 0);
      } finally {
        await server.close();
      }
    });

    it('at stop closes a connection that never handshook at once and unbinds the bound session', async () => {
      const server = serverWith({ maxConnections: 10, maxConnectionsPerAddress: 10 });
      const plain = await server.listen({ port: 0, host: '127.0.0.1' });
      const secure = await server.listen({ port: 0, host: '127.0.0.1', tls: tls.read() });
      const silent = await raw(secure, '127.0.0.1');
      const waiting = await raw(plain, '127.0.0.1');
      const esme = await bound(plain, '127.0.0.1', 'stays');
      let unbound = false;
      esme.session.on('unbind', () => (unbound = true));
      await waitFor('three connections open', () => server.connections === 3);
      // Resolves only once every connection is gone: neither silent one holds it up.
      await server.close();
      assert.ok(unbound, 'the bound session was not unbound');
      await waitFor('the client side closed', () => silent.closed() && waiting.closed() && esme.closed());
      assert.equal(server.connections, 0);
    });
  });
}
