/**
 * The real server with the SMPP carrier against the real `haberci smsc-sim`, over loopback:
 * messages of every sms_lang and a multi-part Turkish message reach the SMSC and come back
 * delivered, failed, expired or pending by the outcome rules, in /sms/status, in the signed
 * webhooks and, for a bulk send, in /reports/basic and /reports/detailed; throttling answers
 * are retried; a restart of the SMSC mid-send loses nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeShortMessage } from '../../src/domain/sms-decoding.js';
import { sign } from '../../src/domain/webhook.js';
import { postJson, provisionSender, startServer } from '../helpers/server-process.js';
import { startSimulator, stop, writeSimCarrierConfig } from '../helpers/smsc-sim.js';
import type { Simulator } from '../helpers/smsc-sim.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { pause, waitFor as poll } from '../helpers/wait-for.js';

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  // Wrapped, so a probe's false or null counts as found here, as before.
  const found = await poll(
    what,
    async () => {
      const value = await probe();
      return value === undefined ? undefined : { value };
    },
    { timeoutMs, intervalMs: 50 },
  );
  return found.value;
}

describe('SMPP end to end: haberci serve --smpp-config against haberci smsc-sim', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-smpp-'));
  let sim: Simulator;
  let server: ServerProcess;
  let receiver: Receiver;
  let apiKey = '';
  const secret = 'smpp-e2e-webhook-secret';

  before(async () => {
    receiver = await startReceiver();
    sim = await startSimulator(['--port', '0', '--receipt-delay-ms', '20-50', '--throttle-share', '0.3']);
    writeSimCarrierConfig(join(dir, 'smpp.json'), sim.port, { windowSize: 20, maxSubmitsPerSecond: 1000 });
    server = await startServer([
      '--data',
      dir,
      '--smpp-config',
      join(dir, 'smpp.json'),
      '--demo',
      'false',
      '--requests-per-second',
      '0',
      '--webhook-allow-private',
      'true',
    ]);
    apiKey = (
      await provisionSender(['--data', dir], 'Smpp', 1000, [
        '--webhook-url',
        `${receiver.url}/hook`,
        '--webhook-secret',
        secret,
      ])
    ).apiKey;
  });

  after(async () => {
    await stop(server.child);
    await stop(sim.child);
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The signed webhook events received for a message, as [event_type, status]. */
  const eventsOf = (smsId: number): [string, string][] =>
    receiver.requests.flatMap((r) => {
      assert.equal(r.headers['x-service-signature'], sign(r.body, secret));
      const event = JSON.parse(r.body) as { event_type: string; data: { sms_id: number; status?: string } };
      return event.data.sms_id === smsId ? [[event.event_type, String(event.data.status)] as [string, string]] : [];
    });
  const webhookFor = (smsId: number, type: string): Promise<string> =>
    waitFor(`the ${type} webhook of message ${smsId}`, async () => eventsOf(smsId).find(([t]) => t === type)?.[1]);

  const status = async (smsId: number) =>
    (await postJson(`${server.url}/sms/status`, { api_key: apiKey, sms_id: smsId })).body;
  const send = async (to: string, text: string, lang: number) => {
    const answer = await postJson(`${server.url}/sms/send`, {
      api_key: apiKey,
      sentto: to,
      title: 'ACME',
      text,
      sms_lang: lang,
    });
    assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
    return Number(answer.body.sms_id);
  };

  /** The accepted submits the simulator received for a number, as it shows them (GET /submits). */
  const submitsTo = async (to: string) => {
    const all = (await (await fetch(sim.stats.replace(/\/stats$/, `/submits?to=${to}`))).json()) as {
      data_coding: number;
      esm_class: number;
      short_message: string;
      message_id: string | null;
    }[];
    return all.filter((s) => s.message_id !== null);
  };

  it('delivers messages of each sms_lang and a multi-part Turkish message, throttling answers retried', async () => {
    const sent = [
      { to: '905321110011', text: 'Hello world', lang: 0, dataCoding: 0, parts: 1 },
      { to: '905321110012', text: 'Merhaba dünya, çiçek ğüşıö', lang: 1, dataCoding: 0, parts: 1 },
      { to: '905321110013', text: 'مرحبا بالعالم', lang: 2, dataCoding: 8, parts: 1 },
      { to: '905321110014', text: 'Şişli'.repeat(60), lang: 1, dataCoding: 0, parts: 3 },
    ];
    const ids: number[] = [];
    for (const m of sent) ids.push(await send(m.to, m.text, m.lang));
    for (const id of ids) {
      const answer = await waitFor(`message ${id} delivered`, async () => {
        const s = await status(id);
        return s.result_code === 'TS-1064' ? s : undefined;
      });
      assert.equal(answer.sms_status, 'Number received the message');
      assert.equal(await webhookFor(id, 'sms.delivered'), 'delivered');
      assert.equal(await webhookFor(id, 'sms.sent'), 'sent');
    }
    const stats = (await (await fetch(sim.stats)).json()) as { submits: number; throttled: number };
    assert.ok(stats.throttled > 0, 'the simulator throttled some submits');
    // What reached the SMSC, decoded from the bytes it received: the coding of each sms_lang,
    // the Turkish shift table announced in the UDH for sms_lang 1, the parts in order.
    for (const m of sent) {
      const parts = await submitsTo(m.to);
      assert.equal(parts.length, m.parts, `${m.to}: ${parts.length} parts accepted`);
      const decoded = parts.map((p) => {
        assert.equal(p.data_coding, m.dataCoding, `${m.to}: data_coding`);
        const bytes = Buffer.from(p.short_message, 'hex');
        if (m.lang === 1)
          assert.ok(bytes.includes(Buffer.from([0x24, 0x01, 0x01])), `${m.to}: the Turkish single shift IE in the UDH`);
        return decodeShortMessage(bytes, p.data_coding, p.esm_class);
      });
      decoded.sort((a, b) => (a.concat?.seq ?? 0) - (b.concat?.seq ?? 0));
      if (m.parts > 1) {
        assert.deepEqual(
          decoded.map((d) => d.concat?.seq),
          [1, 2, 3],
        );
        assert.equal(new Set(decoded.map((d) => d.concat?.reference)).size, 1, 'one concatenation reference');
      }
      assert.equal(decoded.map((d) => d.text).join(''), m.text, `${m.to}: the text as the SMSC received it`);
    }
  });

  it('reports failed, expired and pending by the last four digits', async () => {
    const failed = await send('905321110000', 'x', 0);
    const expired = await send('905321110001', 'x', 0);
    const pending = await send('905321110002', 'x', 0);
    const failedAnswer = await waitFor('the failure report', async () => {
      const s = await status(failed);
      return typeof s.details === 'string' && /not delivered|UNDELIV/i.test(s.details) ? s : undefined;
    });
    assert.equal(failedAnswer.result_code, 'TS-1022');
    const expiredAnswer = await waitFor('the expiry report', async () => {
      const s = await status(expired);
      return typeof s.details === 'string' && /expir/i.test(s.details) ? s : undefined;
    });
    assert.equal(expiredAnswer.result_code, 'TS-1022');
    const pendingAnswer = await waitFor('the pending message to be submitted', async () => {
      const s = await status(pending);
      return /waiting for the delivery report/.test(String(s.details)) ? s : undefined;
    });
    assert.equal(pendingAnswer.result_code, 'TS-1022');
    assert.equal(await webhookFor(failed, 'sms.failed'), 'failed');
    assert.equal(await webhookFor(expired, 'sms.failed'), 'failed');
    assert.equal(await webhookFor(pending, 'sms.sent'), 'sent');
    // Control: a message sent after the pending one was submitted gets its receipt and its
    // final event meanwhile; the pending one's would have come first.
    const control = await send('905321110099', 'x', 0);
    assert.equal(await webhookFor(control, 'sms.delivered'), 'delivered');
    // On purpose: time for an event of the pending message, which must not come.
    await pause(300);
    assert.deepEqual(
      eventsOf(pending).map(([t]) => t),
      ['sms.sent'],
      'a message without a receipt has no final event',
    );
  });

  it('a bulk send over SMPP adds up in /reports/basic and shows each outcome in /reports/detailed', async () => {
    const sentto = ['905321130011', '905321130012', '905321130000', '905321130001', '905321130002'];
    const accepted = await postJson(`${server.url}/group/send`, {
      api_key: apiKey,
      title: 'ACME',
      sentto,
      text: 'bulk over smpp',
    });
    assert.equal(accepted.body.result_code, 'TS-1024', JSON.stringify(accepted.body));
    const raporid = Number(accepted.body.rapor_id);
    const summary = await waitFor('the bulk send to settle', async () => {
      const s = (await postJson(`${server.url}/reports/basic`, { api_key: apiKey, raporid })).body;
      return s.success_count === 2 && s.failed_count === 2 ? s : undefined;
    });
    assert.deepEqual(
      [summary.total_numbers, summary.success_count, summary.failed_count, summary.pending_count],
      [5, 2, 2, 1],
    );
    const detailed = (await postJson(`${server.url}/reports/detailed`, { api_key: apiKey, raporid })).body as {
      data?: { phone_number: string; sms_status: string; details: { status_code: number } }[];
    };
    const byNumber = new Map((detailed.data ?? []).map((r) => [r.phone_number, [r.sms_status, r.details.status_code]]));
    assert.deepEqual(byNumber.get('905321130011'), ['Number received the message', 1]);
    assert.deepEqual(byNumber.get('905321130012'), ['Number received the message', 1]);
    assert.deepEqual(byNumber.get('905321130000'), ["Number didn't receive the message", 0]);
    assert.deepEqual(byNumber.get('905321130001'), ['Expiration time', 2]);
    assert.deepEqual(byNumber.get('905321130002'), ["Number didn't receive the message", 0]);
  });

  it('loses nothing when the SMSC restarts mid-send', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await send(`9053211200${String(10 + i)}`, `restart ${i}`, 0));
    await stop(sim.child);
    for (let i = 20; i < 40; i++) ids.push(await send(`9053211200${String(10 + i)}`, `restart ${i}`, 0));
    const port = sim.port;
    sim = await startSimulator(['--port', String(port), '--receipt-delay-ms', '20-50']);
    // Receipts the stopped SMSC still owed die with it (a real SMSC keeps them); what must
    // hold is that every message reaches an SMSC and none is failed or dropped.
    for (const id of ids.slice(20)) {
      await waitFor(
        `message ${id} delivered after the restart`,
        async () => ((await status(id)).result_code === 'TS-1064' ? true : undefined),
        60_000,
      ).catch(async (e: unknown) => {
        throw new Error(
          `${String(e)}: ${JSON.stringify(await status(id))} sim ${JSON.stringify(await (await fetch(sim.stats)).json())} log ${server.output().slice(-1500)}`,
        );
      });
    }
    for (const id of ids.slice(0, 20)) {
      const s = await waitFor(
        `message ${id} submitted`,
        async () => {
          const answer = await status(id);
          return answer.result_code === 'TS-1064' || /waiting for the delivery report/.test(String(answer.details))
            ? answer
            : undefined;
        },
        60_000,
      );
      assert.notEqual(s.sms_status, undefined);
    }
  });
});

describe('the start-up warm-up with SMPP configured', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-smpp-warm-'));
  let sim: Simulator | undefined;
  let server: ServerProcess | undefined;

  after(async () => {
    if (server) await stop(server.child);
    if (sim) await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('never sends the warm-up to the configured SMSC', async () => {
    sim = await startSimulator(['--port', '0', '--receipt-delay-ms', '0']);
    writeFileSync(
      join(dir, 'smpp.json'),
      JSON.stringify({
        connections: [{ name: 'operator', host: '127.0.0.1', port: sim.port, systemId: 'haberci', password: 'pw' }],
        defaultRoute: 'operator',
      }),
    );
    server = await startServer(
      ['--data', dir, '--smpp-config', join(dir, 'smpp.json'), '--demo', 'false'],
      { HABERCI_WARM_UP: '30' },
      40_000,
    );
    const logs = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const warmed = logs.find((l) => l.msg === 'request path warmed up');
    assert.deepEqual(
      { requests: warmed?.requests, unexpected: warmed?.unexpected },
      { requests: 30, unexpected: 0 },
      server.output(),
    );
    const stats = async () => (await (await fetch(sim?.stats ?? '')).json()) as { submits: number };
    assert.equal((await stats()).submits, 0, 'the configured SMSC got nothing from the warm-up');
    // Live traffic goes to the configured SMSC.
    const { apiKey } = await provisionSender(['--data', dir], 'Warm', 10);
    const sent = await postJson(`${server.url}/sms/send`, {
      api_key: apiKey,
      sentto: '905321110021',
      title: 'ACME',
      text: 'live',
      sms_lang: 0,
    });
    assert.equal(sent.body.result_code, 'TS-1024', JSON.stringify(sent.body));
    await waitFor('the live message delivered', async () =>
      (await postJson(`${server?.url ?? ''}/sms/status`, { api_key: apiKey, sms_id: sent.body.sms_id })).body
        .result_code === 'TS-1064'
        ? true
        : undefined,
    );
    assert.equal((await stats()).submits, 1);
  });
});
