/**
 * What a hostile or careless client sends a public server: bodies of hundreds of megabytes,
 * bodies over the limit from clients that do not wait for an answer before writing. A real
 * `haberci serve` process over real HTTP, so the process's own memory can be read.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { postJson, serverForSuite } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';

const megabyte = 1024 * 1024;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  connection: string | undefined;
  /** Bytes of the body the client had written when the answer came. */
  written: number;
}

/**
 * POSTs `total` bytes: `head`, then `filler` repeated, written as fast as the server reads
 * them; stops writing when the answer comes. Never holds the body in memory.
 */
function postLarge(url: string, path: string, head: string, filler: string, total: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const request = http.request({
      hostname,
      port,
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': total },
    });
    let written = 0;
    let answered = false;
    const chunk = Buffer.from(filler.repeat(Math.ceil(megabyte / filler.length)).slice(0, megabyte));
    let headWritten = false;
    const pump = (): void => {
      if (!headWritten) {
        headWritten = true;
        const first = Buffer.from(head);
        written += first.length;
        if (!request.write(first)) {
          request.once('drain', pump);
          return;
        }
      }
      while (!answered && written < total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, total - written));
        written += piece.length;
        if (!request.write(piece)) {
          request.once('drain', pump);
          return;
        }
      }
      if (!answered) request.end();
    };
    request.on('response', (response) => {
      answered = true;
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (d: string) => (text += d));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: JSON.parse(text) as Record<string, unknown>,
          connection: response.headers.connection,
          written,
        }),
      );
    });
    // A server that closes after answering may end the write with EPIPE: the answer decides.
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    pump();
  });
}

/** The process's peak resident memory so far (Linux), in megabytes. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** Calls /balance/ in a loop until stopped; returns how many answers came back TS-1040. */
function balanceLoop(server: ServerProcess, apiKey: string): { stop(): Promise<number> } {
  let running = true;
  let answered = 0;
  const loop = (async () => {
    while (running) {
      const answer = await postJson(`${server.url}/balance/`, { api_key: apiKey }).catch(() => null);
      if (answer?.body.result_code === 'TS-1040') answered++;
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return answered;
    },
  };
}

describe('hostile bodies against a real server', () => {
  const suite = serverForSuite('Bodies', 100_000, ['--requests-per-second', '0']);

  it('refuses 250 MB of {} under a valid key at its first wrong byte, keeps memory bounded and /balance/ answering', async () => {
    const { server, sender } = suite;
    const balances = balanceLoop(server, sender.apiKey);
    const head = `{"api_key":"${sender.apiKey}","title":"ACME","text":"hi","sentto":[`;
    const answer = await postLarge(server.url, '/group/send', head, '{},', 250 * megabyte);
    const balanceAnswers = await balances.stop();
    // /group/send is not streamed: 250 MB is over its limit, refused on its Content-Length.
    assert.equal(answer.status, 413);
    assert.match(String(answer.body.result_message), /too large: at most \d+ bytes/);

    const mixedBalances = balanceLoop(server, sender.apiKey);
    const mixed = await postLarge(server.url, '/group/sendMixed', head, '{},', 250 * megabyte);
    const mixedBalanceAnswers = await mixedBalances.stop();
    assert.equal(mixed.status, 400, JSON.stringify(mixed.body));
    assert.equal(mixed.body.result_code, 'TS-1026');
    assert.match(String(mixed.body.result_message), /sentto/);
    assert.ok(mixed.written < 250 * megabyte, 'answered before the body was all sent');
    assert.ok(balanceAnswers > 0 && mixedBalanceAnswers > 0, 'other clients kept being answered');
    assert.equal(server.child.exitCode, null);
    const peak = peakRssMb(server.child.pid ?? 0);
    assert.ok(peak < 400, `peak RSS ${peak.toFixed(0)} MB stays under 400 MB`);
  });

  it('refuses 250 MB under an unknown key as soon as the key is read', async () => {
    const { server } = suite;
    const head = `{"api_key":"hb_live_${'x'.repeat(43)}","title":"ACME","sentto":[`;
    const answer = await postLarge(server.url, '/group/sendMixed', head, '"05321234567",', 250 * megabyte);
    assert.equal(answer.body.result_code, 'TS-1031', JSON.stringify(answer.body));
    assert.equal(answer.status, 403);
    assert.ok(answer.written < 250 * megabyte, 'answered before the body was all sent');
    const peak = peakRssMb(server.child.pid ?? 0);
    assert.ok(peak < 400, `peak RSS ${peak.toFixed(0)} MB stays under 400 MB`);
  });

  it('reads a large well-formed mixed send as it arrives and accepts it', async () => {
    const { server, sender } = suite;
    const count = 20_000;
    const body = JSON.stringify({
      api_key: sender.apiKey,
      title: 'ACME',
      sentto: Array.from({ length: count }, (_, i) => `0532${String(1_000_000 + i).slice(-7)}`),
      text: Array.from({ length: count }, (_, i) => `mesaj ${i} ${'ç'.repeat(200)}`),
    });
    const answer = await postLarge(server.url, '/group/sendMixed', body, ' ', Buffer.byteLength(body));
    assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
    assert.equal(answer.body.total_numbers, count);
  });

  it('answers every oversized body in the envelope, also to clients that write without waiting', async () => {
    const { server, sender } = suite;
    const head = `{"api_key":"${sender.apiKey}","title":"ACME","sentto":"05321234567","text":"`;
    for (const size of [2 * megabyte, 10 * megabyte]) {
      for (let i = 0; i < 10; i++) {
        const answer = await postLarge(server.url, '/sms/send', head, 'a', size);
        assert.equal(answer.status, 413, `${size} bytes, try ${i}`);
        assert.equal(answer.body.result_code, 'TS-1033');
        assert.match(String(answer.body.result_message), /Request body too large: at most \d+ bytes on \/sms\/send/);
      }
    }
  });
});
