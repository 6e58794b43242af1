/**
 * Chunked bodies (Transfer-Encoding: chunked, no Content-Length) and the budget of body bytes
 * in flight, over real sockets to an app built in the test: a chunked body takes its reserve
 * before a byte of it is read, and the rest of what its route allows in one step when it
 * outgrows it, so a body refused for the budget was read no further than its reserve and
 * the bodies being parsed never hold more than the budget. An ordinary chunked send past its
 * reserve is accepted, and a chunked body answered early is dropped behind its answer with
 * the connection kept.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createHarness } from '../helpers/harness.js';
import type { Harness, Provisioned } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { checkAgainstContract } from '../helpers/contract-check.js';
import { BodyBudget, chunkedReserve } from '../../src/http/body-budget.js';
import { groupSendMixed } from '../../src/endpoints/group.sendMixed.js';

const budgetBytes = 4 * 1024 * 1024;
const budget = new BodyBudget(budgetBytes);
/** What a chunked /group/sendMixed takes before it is read (64 KiB of this budget). */
const reserve = chunkedReserve(budget, groupSendMixed.bodyLimit ?? 0);

/** One HTTP answer read off a raw socket. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A client on one raw connection: writes what it is told, collects the complete answers. */
class RawClient {
  private received = '';
  /** The paths of the requests sent, in order: answers come back in that order. */
  private readonly paths: string[] = [];
  readonly answers: RawAnswer[] = [];
  closed = false;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.received += d.toString('latin1');
      this.collect();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => (this.closed = true));
  }

  static open(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  private collect(): void {
    for (;;) {
      const end = this.received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine = '', ...lines] = this.received.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const length = Number(headers['content-length']);
      if (this.received.length < end + 4 + length) return;
      const text = Buffer.from(this.received.slice(end + 4, end + 4 + length), 'latin1').toString('utf8');
      this.received = this.received.slice(end + 4 + length);
      const status = Number(statusLine.split(' ')[1]);
      // The budget's 503 is answered on every path and is not in the document (yet): the
      // harness's own check is told these requests are checked here, and the rest are.
      if (status !== 503) checkAgainstContract('POST', this.paths[this.answers.length] ?? '', status, text);
      this.answers.push({
        status,
        headers,
        body: JSON.parse(text) as Record<string, unknown>,
      });
    }
  }

  /** Writes, waiting for the socket to drain; false when the connection is gone. */
  async write(data: string): Promise<boolean> {
    if (this.closed || this.socket.destroyed) return false;
    if (!this.socket.write(data))
      await new Promise((resolve) => {
        this.socket.once('drain', resolve);
        this.socket.once('close', resolve);
      });
    return !this.socket.destroyed;
  }

  /** A chunked POST: its head, then `pieces` each as a chunk (until an answer comes, or all), then the last chunk. */
  async postChunked(path: string, pieces: string[], stopOnAnswer = true): Promise<void> {
    const answered = this.answers.length;
    this.paths.push(path);
    await this.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n` +
        `X-Test-Contract-Checked: 1\r\n\r\n`,
    );
    for (const piece of pieces) {
      if (stopOnAnswer && this.answers.length > answered) break;
      if (!(await this.write(`${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`))) return;
      // A turn of the event loop between chunks: the server, in this process, reads each
      // body as it comes, beside the others, as it would from clients on a network.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.write('0\r\n\r\n');
  }

  answer(index: number): Promise<RawAnswer> {
    return waitFor(`answer ${index}`, () => {
      if (this.answers[index] === undefined && this.closed) throw new Error('the connection closed first');
      return this.answers[index];
    });
  }
}

/** `count` pieces of a JSON array's items: a string of `size` characters each, comma-separated. */
function items(count: number, size: number, first = true): string[] {
  const item = `"${'x'.repeat(size)}"`;
  return Array.from({ length: count }, (_, i) => (first && i === 0 ? item : `,${item}`));
}

describe('chunked bodies and the budget of body bytes in flight', () => {
  let h: Harness;
  let port = 0;
  let sender: Provisioned;
  /** Bytes each request's body parser was given, by request id, and the most given at once to bodies not yet answered. */
  const parsed = new Map<string, number>();
  let parsing = 0;
  let mostParsing = 0;

  before(async () => {
    h = await createHarness(undefined, { bodyBytesInFlight: budgetBytes });
    // After the budget's own hook: counts what the budget lets through to the body's parser.
    h.app.addHook('preParsing', (request, reply, payload, done) => {
      let given = 0;
      const counted = new Transform({
        transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
          given += chunk.length;
          parsing += chunk.length;
          mostParsing = Math.max(mostParsing, parsing);
          parsed.set(request.id, given);
          callback(null, chunk);
        },
      });
      reply.raw.once('close', () => (parsing -= given));
      payload.on('error', (error) => counted.destroy(error));
      counted.on('error', () => undefined);
      done(null, payload.pipe(counted));
    });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
    sender = await h.provision({ account: { balanceMain: 10_000 } });
  });
  after(async () => h.close());

  it('refuses chunked bodies past the budget having read each no further than its reserve', async () => {
    parsed.clear();
    mostParsing = 0;
    // Twelve anonymous bodies of 1 MiB each (the key never comes), all open at once: 12 MiB
    // against a large share of 3 MiB.
    const clients = await Promise.all(Array.from({ length: 12 }, () => RawClient.open(port)));
    const body = ['{"text":[', ...items(256, 4000), ']}'];
    await Promise.all(clients.map((c) => c.postChunked('/group/sendMixed', body)));
    const answers = await Promise.all(clients.map((c) => c.answer(0)));
    const refused = answers.filter((a) => a.status === 503);
    assert.ok(refused.length >= 1, `some of the twelve refused: ${answers.map((a) => a.status).join(' ')}`);
    for (const a of refused) {
      assert.equal(a.body.result_code, 'SRV-ERR');
      assert.equal(a.body.result, false);
      assert.equal(a.headers['retry-after'], '1');
      const read = parsed.get(a.headers['x-request-id'] ?? '') ?? 0;
      assert.ok(read <= reserve, `a refused body was read ${read} bytes, past its reserve of ${reserve}`);
    }
    // The others were read whole, and answered for their missing key.
    for (const a of answers.filter((x) => x.status !== 503)) assert.equal(a.status, 400, JSON.stringify(a.body));
    assert.ok(mostParsing <= budgetBytes, `bodies held ${mostParsing} bytes at once, over the budget`);
    for (const c of clients) c.socket.destroy();
  });

  it('accepts an ordinary chunked send past its reserve, and answers small chunked requests beside it', async () => {
    const pairs = 600;
    const numbers = Array.from({ length: pairs }, (_, i) => `"0532${String(1_000_000 + i).slice(-7)}"`);
    const head = `{"api_key":"${sender.apiKey}","title":"ACME","sentto":[${numbers.join(',')}],"text":[`;
    const texts = Array.from({ length: pairs }, (_, i) => `${i === 0 ? '' : ','}"${'a'.repeat(150)}"`);
    const pieces = [head, ...texts, ']}'];
    assert.ok(Buffer.byteLength(pieces.join('')) > reserve, 'the send is larger than its reserve');
    const send = await RawClient.open(port);
    const small = await RawClient.open(port);
    await Promise.all([
      send.postChunked('/group/sendMixed', pieces),
      small.postChunked('/balance/', [`{"api_key":"${sender.apiKey}"}`]),
    ]);
    const accepted = await send.answer(0);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal(accepted.body.result_code, 'TS-1024');
    assert.equal(accepted.body.total_numbers, pairs);
    assert.equal((await small.answer(0)).body.result_code, 'TS-1040');
    send.socket.destroy();
    small.socket.destroy();
  });

  it('drops a chunked body refused under an unknown key behind its answer, and keeps the connection', async () => {
    const client = await RawClient.open(port);
    const head = `{"api_key":"hb_live_${'x'.repeat(43)}","title":"ACME","sentto":[`;
    // 1 MiB after the key, all of it written: far more than the server may hold unread.
    await client.postChunked('/group/sendMixed', [head, ...items(4096, 256), ']}'], false);
    const refused = await client.answer(0);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.result_code, 'TS-1031');
    assert.notEqual(refused.headers.connection, 'close');
    // The rest of the body was read and dropped: the same connection serves the next request.
    await client.postChunked('/balance/', [`{"api_key":"${sender.apiKey}"}`]);
    const next = await client.answer(1);
    assert.equal(next.body.result_code, 'TS-1040');
    client.socket.destroy();
  });
});
