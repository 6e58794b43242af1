/**
 * Idle connections from many addresses fill the connection cap (--max-connections): near it,
 * the longest-idle connections are closed for new ones, so a real client's request is still
 * answered; a connection with a request in flight is never the one closed, however old. A
 * real `haberci serve` over real sockets, with a reduced cap.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { postJson, serverForSuite } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

const cap = 40;
/** The cap's default share for one address: a twentieth (--max-connections-per-address unset). */
const perAddress = cap / 20;
/** Addresses of the idle flood: together they can open the whole cap. */
const addresses = Array.from({ length: cap / perAddress }, (_, i) => `127.0.0.${i + 2}`);

interface Tracked {
  socket: net.Socket;
  closed: boolean;
}

function connect(url: string, localAddress: string): Promise<Tracked> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress }, () => {
      socket.removeListener('error', reject);
      socket.on('error', () => undefined);
      const tracked = { socket, closed: false };
      socket.once('close', () => (tracked.closed = true));
      resolve(tracked);
    });
    socket.once('error', reject);
  });
}

describe('idle connections at the connection cap', () => {
  const suite = serverForSuite('Idle', 100, ['--max-connections', String(cap), '--requests-per-second', '0']);

  it('closes the longest-idle connections for new ones, never one with a request in flight, and answers a real request', async () => {
    const { server, sender } = suite;
    // The oldest connection is busy: a request whose body is still coming.
    const busy = await connect(server.url, '127.0.0.200');
    let answer = '';
    busy.socket.on('data', (d: Buffer) => (answer += d.toString()));
    busy.socket.write(
      'POST /balance/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\nExpect: 100-continue\r\n\r\n',
    );
    // The server has taken the request (its headers) before the flood starts.
    await waitFor('the busy request taken', () => answer.startsWith('HTTP/1.1 100 Continue'));
    busy.socket.write('{"api_key":');
    // Then idle connections, one after another, from as many addresses as the cap allows.
    const flood: Tracked[] = [];
    for (let i = 0; i < cap; i++) {
      const address = addresses[i % addresses.length] ?? '127.0.0.2';
      flood.push(await connect(server.url, address));
    }
    // A real client still gets in and is answered.
    const real = await postJson(`${server.url}/balance/`, { api_key: sender.apiKey });
    assert.equal(real.body.result_code, 'TS-1040');

    const closed = await waitFor('the longest-idle connections closed', () => {
      const gone = flood.filter((t) => t.closed).length;
      return gone > 0 && gone;
    });
    // The ones closed are the oldest of the idle ones, in order: a prefix of the flood.
    const firstOpen = flood.findIndex((t) => !t.closed);
    assert.equal(firstOpen, closed, `closed: ${flood.map((t) => (t.closed ? 'x' : '.')).join('')}`);
    assert.ok(closed <= cap / 10 + 2, `${closed} closed: only what the headroom needs`);
    assert.equal(busy.closed, false, 'the connection with a request in flight stays');
    // The busy request still completes.
    busy.socket.write(`"${sender.apiKey}"}`.padEnd(200 - '{"api_key":'.length, ' '));
    await waitFor('the busy request answered', () => answer.includes('TS-1040'));
    for (const t of [busy, ...flood]) t.socket.destroy();
  });
});
