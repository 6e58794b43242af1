/**
 * Clients that hold connections without finishing a request (headers a byte at a time, a
 * body shorter than its Content-Length, a flood of idle connections from one address) are
 * cut off within the configured limits, and a real request is still answered meanwhile.
 * A real `haberci serve` process over real sockets.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { postJson, serverForSuite } from '../helpers/server-process.js';

const headersTimeoutMs = 1500;
const requestTimeoutMs = 2500;
const perAddress = 20;

/** A raw connection from `localAddress`; resolves when the server has it. */
function connect(url: string, localAddress = '127.0.0.1'): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Milliseconds from now until the server closes the socket (or `limitMs`, then -1). */
function closedAfter(socket: net.Socket, limitMs: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(-1), limitMs);
    const done = (): void => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    };
    socket.on('error', () => undefined);
    socket.once('close', done);
    if (socket.destroyed) done();
  });
}

describe('slow and idle clients against a real server', () => {
  // Without job threads (--worker false): only HTTP is asked here, and they cost a start seconds of CPU.
  const suite = serverForSuite('Slow', 100, [
    '--worker',
    'false',
    '--headers-timeout-ms',
    String(headersTimeoutMs),
    '--request-timeout-ms',
    String(requestTimeoutMs),
    '--max-connections-per-address',
    String(perAddress),
  ]);

  it('cuts off headers sent a byte at a time after the headers time limit, and answers a real request meanwhile', async () => {
    const { server, sender } = suite;
    const slow = await connect(server.url);
    const request = `POST /balance/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Slow: ${'a'.repeat(200)}`;
    let sent = 0;
    const drip = setInterval(() => {
      if (!slow.destroyed && sent < request.length) slow.write(request[sent++] ?? '');
    }, 100);
    const closed = closedAfter(slow, headersTimeoutMs * 4 + 2000);
    const real = await postJson(`${server.url}/balance/`, { api_key: sender.apiKey });
    assert.equal(real.body.result_code, 'TS-1040');
    const ms = await closed;
    clearInterval(drip);
    assert.notEqual(ms, -1, 'the slow client was cut off');
    assert.ok(sent < request.length, 'before it finished its headers');
  });

  it('cuts off a body shorter than its Content-Length after the request time limit', async () => {
    const { server, sender } = suite;
    const short = await connect(server.url);
    short.write(
      `POST /balance/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"api_key":`,
    );
    let answer = '';
    short.on('data', (d: Buffer) => (answer += d.toString()));
    const ms = await closedAfter(short, requestTimeoutMs * 3 + 2000);
    assert.notEqual(ms, -1, 'the connection was closed');
    // Control: the same request, finished, is answered on a connection like it.
    const whole = await connect(server.url);
    const body = JSON.stringify({ api_key: sender.apiKey });
    let reply = '';
    whole.on('data', (d: Buffer) => (reply += d.toString()));
    whole.write(
      `POST /balance/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    await closedAfter(whole, 5000);
    assert.match(reply, /TS-1040/);
  });

  it('closes connections from one address past its cap at once; other addresses are served', async () => {
    const { server, sender } = suite;
    const flood: net.Socket[] = [];
    for (let i = 0; i < perAddress + 10; i++) flood.push(await connect(server.url, '127.0.0.2'));
    // Past the cap the server closes the newest at once; the first `perAddress` stay open.
    const closes = await Promise.all(flood.map((s) => closedAfter(s, 500)));
    const closedAtOnce = closes.filter((ms) => ms !== -1).length;
    assert.equal(closedAtOnce, 10, `closed at once: ${closedAtOnce}`);
    const real = await postJson(`${server.url}/balance/`, { api_key: sender.apiKey });
    assert.equal(real.body.result_code, 'TS-1040');
    for (const s of flood) s.destroy();
  });
});
