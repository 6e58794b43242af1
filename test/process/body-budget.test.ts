/**
 * The process's budget of request-body bytes in flight (--body-bytes-in-flight): many large
 * anonymous bodies at once are answered 503 SRV-ERR with Retry-After before they are read
 * (or, chunked, as soon as they outgrow it), an ordinary request is served meanwhile, and
 * the budget comes back when their connections end: a legitimate 50,000-pair
 * /group/sendMixed is then accepted. A real `haberci serve` over real sockets.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { postJson, serverForSuite } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

const budget = 4 * 1024 * 1024;
/** Large bodies may fill three quarters of the budget: three of these. */
const declared = 1024 * 1024;

/** A raw HTTP/1.1 request of which only the head and `start` of the body are sent; its answer is collected. */
interface Held {
  socket: net.Socket;
  answer(): string;
}

function open(url: string, head: string, start: string): Promise<Held> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect({ host: hostname, port: Number(port) }, () => {
      socket.write(`${head}\r\n\r\n${start}`);
      resolve({ socket, answer: () => answer });
    });
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.once('error', reject);
  });
}

function largeHead(length: number | 'chunked'): string {
  return [
    'POST /group/sendMixed HTTP/1.1',
    'Host: x',
    'Content-Type: application/json',
    length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`,
  ].join('\r\n');
}

/** The JSON body of an HTTP answer (the last blank line on). */
function bodyOf(answer: string): Record<string, unknown> {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
}

function turkishNumbers(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `90532${String(i).padStart(7, '0')}`);
}

describe('the budget of request bodies in flight, through a real server', () => {
  const suite = serverForSuite('Bodies', 200_000, [
    '--body-bytes-in-flight',
    String(budget),
    '--requests-per-second',
    '0',
  ]);

  it('answers large bodies past the budget 503 before reading them, serves a normal request, and gives the budget back', async () => {
    const { server, sender } = suite;
    // Anonymous bodies with the key last (never sent): each holds its declared megabyte.
    const flood: Held[] = [];
    for (let i = 0; i < 8; i++) flood.push(await open(server.url, largeHead(declared), '{"sentto":['));
    const refused = await waitFor('five large bodies refused', () => {
      const answered = flood.filter((h) => h.answer().includes('\r\n\r\n{'));
      return answered.length >= 5 && answered;
    });
    // A normal request is served while the large ones hold what they may.
    const balance = await postJson(`${server.url}/balance/`, { api_key: sender.apiKey });
    assert.equal(balance.body.result_code, 'TS-1040');
    assert.equal(refused.length, 5, 'three large bodies fit, the five others were refused');
    assert.equal(flood.filter((h) => h.answer() !== '').length, 5, 'the three that fit are still being read');
    for (const held of refused) {
      const answer = held.answer();
      assert.match(answer, /^HTTP\/1\.1 503 /);
      assert.match(answer, /\r\nretry-after: 1\r\n/i);
      const body = bodyOf(answer);
      assert.equal(body.result, false);
      assert.equal(body.result_code, 'SRV-ERR');
    }

    // A legitimate large send does not fit either while the three are held...
    const sentto = turkishNumbers(50_000);
    const text = sentto.map((_, i) => `Message ${i}`);
    const mixed = { api_key: sender.apiKey, title: 'ACME', sentto, text };
    assert.ok(Buffer.byteLength(JSON.stringify(mixed)) > 64 * 1024);
    const early = await postJson(`${server.url}/group/sendMixed`, mixed);
    assert.equal(early.status, 503);
    assert.equal(early.body.result_code, 'SRV-ERR');

    // ...and once their clients go, the budget is back: the 50,000 pairs are accepted.
    for (const held of flood) held.socket.destroy();
    const accepted = await waitFor('the budget given back', async () => {
      const answer = await postJson(`${server.url}/group/sendMixed`, mixed);
      return answer.status === 200 && answer;
    });
    assert.equal(accepted.body.result, true, JSON.stringify(accepted.body));
  });

  it('refuses a chunked body with 503 as soon as it outgrows the budget', async () => {
    const { server } = suite;
    const held = await open(server.url, largeHead('chunked'), '');
    const item = `"${'x'.repeat(4000)}",`;
    const chunk = (data: string): string => `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
    held.socket.write(chunk('{"text":['));
    // Up to twice the budget, a 64 KiB chunk at a time, until the server answers.
    let sent = 0;
    const piece = item.repeat(16);
    while (sent < 2 * budget && held.answer() === '' && !held.socket.destroyed) {
      const flushed = held.socket.write(chunk(piece));
      sent += piece.length;
      if (!flushed)
        await new Promise((resolve) => {
          held.socket.once('drain', resolve);
          held.socket.once('close', resolve);
        });
    }
    const answer = await waitFor(
      'the chunked body answered',
      () => held.answer().includes('\r\n\r\n{') && held.answer(),
    );
    assert.match(answer, /^HTTP\/1\.1 503 /);
    assert.match(answer, /\r\nretry-after: 1\r\n/i);
    assert.equal(bodyOf(answer).result_code, 'SRV-ERR');
    held.socket.destroy();
  });
});
