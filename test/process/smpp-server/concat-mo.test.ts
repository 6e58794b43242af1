/**
 * The SMPP server's concatenated submits, MO messages and query_sm through the process, on
 * SQLite and on PostgreSQL: `haberci serve --smpp-server-port` whose carrier is
 * `haberci smsc-sim` (which shows what it received and sends MO messages), our own ESME
 * (test/helpers/esme.ts) as the customer. Parts with a UDH (8- and 16-bit references, the
 * Turkish single shift, an escape and a surrogate pair split across parts, parts out of
 * order over two sessions) and with the sar_* TLVs become one API message whose text the
 * carrier receives whole; each part is answered with its own id and owed its own receipt;
 * an unfinished message is given up with REJECTD receipts; MO messages reach a bound
 * receiver as deliver_sm and wait in the store while none is bound.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { admin, postJson, provisionSender, startServer } from '../../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../../helpers/server-process.js';
import { connectEsme, smppPortOf } from '../../helpers/esme.js';
import type { Esme } from '../../helpers/esme.js';
import { startSimulator, stop } from '../../helpers/smsc-sim.js';
import type { Simulator } from '../../helpers/smsc-sim.js';
import { postgresUrl, schemaForSuite } from '../../helpers/dialects.js';
import { waitFor } from '../../helpers/wait-for.js';
import { bufferField, numberField, stringField } from '../../../src/smpp/smpp-wire.js';
import type { Pdu } from '../../../src/smpp/smpp-wire.js';
import { septetsOf } from '../../../src/domain/gsm-alphabet.js';
import { decodeShortMessage } from '../../../src/domain/sms-decoding.js';

const ESME_ROK = 0x00;
/** The simulator's MO text: ğ, ş and ı are not in the GSM default alphabet, so it comes as UCS-2. */
const moText = 'Günaydın, ğüşıöç';
const pgSkip =
  postgresUrl() === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : null;

/** Unpacked GSM 03.38 septets of a text (the Turkish single shift when `turkish`). */
function septets(text: string, turkish: boolean): Buffer {
  const out: number[] = [];
  for (const char of text) {
    const s = septetsOf(char, turkish ? 'turkish' : 'default');
    if (!s) throw new Error(`no septets for ${char}`);
    out.push(...s);
  }
  return Buffer.from(out);
}

const receiptText = (p: Pdu): string => (bufferField(p, 'short_message') ?? Buffer.alloc(0)).toString('latin1');

for (const storeName of ['sqlite', 'postgres'] as const) {
  describe(`SMPP server: concatenated submits, MO and query_sm (${storeName})`, () => {
    if (storeName === 'postgres' && pgSkip !== null) {
      it('runs on PostgreSQL', { skip: pgSkip }, () => undefined);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'haberci-smpp-concat-'));
    let server: ServerProcess | null = null;
    let sim: Simulator | null = null;
    const esmes: Esme[] = [];
    after(async () => {
      for (const e of esmes) await e.close();
      if (server) await stop(server.child);
      if (sim) await stop(sim.child);
      rmSync(dir, { recursive: true, force: true });
    });
    // Registered after the hook above, so the processes stop before their schema goes.
    const schema = storeName === 'postgres' ? schemaForSuite() : null;
    const store = (): string[] => (schema ? ['--database', schema.url] : ['--data', dir]);
    let sender: ProvisionedSender;

    before(async () => {
      sim = await startSimulator([
        '--port',
        '0',
        '--receipt-delay-ms',
        '20-50',
        '--inbound-every-ms',
        '150',
        '--inbound-text',
        moText,
      ]);
      writeFileSync(
        join(dir, 'smpp.json'),
        JSON.stringify({
          connections: [{ name: 'sim', host: '127.0.0.1', port: sim.port, systemId: 'haberci', password: 'pw' }],
          defaultRoute: 'sim',
        }),
      );
      await admin(['store', 'init', ...store()]);
      sender = await provisionSender(store(), 'Concat', 1000);
      for (const systemId of ['concat', 'mo'])
        await admin([
          'smpp-user',
          'create',
          '--key',
          sender.keyId,
          '--system-id',
          systemId,
          '--password',
          'pw',
          '--max-binds',
          '20',
          ...store(),
        ]);
      server = await serve('1500');
    });

    /** `serve` on the suite's store, its carrier the simulator; `assemblyMs`: the concatenation time-out. */
    const serve = (assemblyMs: string): Promise<ServerProcess> =>
      startServer([
        ...store(),
        '--demo',
        'false',
        '--smpp-config',
        join(dir, 'smpp.json'),
        '--smpp-server-port',
        '0',
        '--smpp-server-assembly-timeout-ms',
        assemblyMs,
      ]);

    /** A new session; the previous ones are closed first (a receipt goes to any session of the user). */
    const open = async (bind = 'bind_transceiver', systemId = 'concat', keep = false): Promise<Esme> => {
      if (!keep) for (const e of esmes.splice(0)) await e.close();
      const esme = await connectEsme(smppPortOf(server?.output() ?? ''), { enquireMs: 300 });
      esmes.push(esme);
      assert.equal(await esme.bind(bind, systemId, 'pw'), ESME_ROK);
      return esme;
    };
    /** The texts the carrier received for a number: each message's parts decoded and joined. */
    const carrierText = async (to: string): Promise<string> => {
      const url = (sim?.stats ?? '').replace(/\/stats$/, `/submits?to=${to}`);
      const all = (await (await fetch(url)).json()) as {
        data_coding: number;
        esm_class: number;
        short_message: string;
        message_id: string | null;
      }[];
      return all
        .filter((s) => s.message_id !== null)
        .map((s) => decodeShortMessage(Buffer.from(s.short_message, 'hex'), s.data_coding, s.esm_class).text)
        .join('');
    };
    const status = async (smsId: string): Promise<Record<string, unknown>> =>
      (await postJson(`${server?.url ?? ''}/sms/status`, { api_key: sender.apiKey, sms_id: Number(smsId) })).body;

    it('puts GSM parts with an 8-bit reference and the Turkish shift together: one message, charged as /sms/send, each part its own id and receipt', async () => {
      const esme = await open();
      const text = 'Şişli çarşısında ğüzel çiçekler satılır, İstanbul! '.repeat(5);
      const body = septets(text, true);
      // Cut right after an escape (0x1b), so a shifted letter is split across two parts.
      const cut1 = body.indexOf(0x1b, 100) + 1;
      const cut2 = 200;
      const chunks = [body.subarray(0, cut1), body.subarray(cut1, cut2), body.subarray(cut2)];
      assert.equal(chunks[0]?.at(-1), 0x1b);
      const to = '905321117001';
      const ids: string[] = [];
      for (const [i, chunk] of chunks.entries()) {
        const udh = Buffer.from([8, 0x00, 0x03, 0x2a, 3, i + 1, 0x24, 0x01, 0x01]);
        const resp = await esme.submit(to, '', { esm_class: 0x43, short_message: Buffer.concat([udh, chunk]) });
        assert.equal(resp.command_status, ESME_ROK);
        ids.push(stringField(resp, 'message_id') ?? '');
      }
      // Every id decimal (from the id space of messages), each part its own.
      for (const id of ids) assert.match(id, /^\d+$/);
      assert.equal(new Set(ids).size, 3);
      // One message of the API, charged by its parts as /sms/send charges the same text.
      const viaHttp = await postJson(`${server?.url ?? ''}/sms/send`, {
        api_key: sender.apiKey,
        sentto: '905321117002',
        title: 'ACME',
        text,
        sms_lang: 1,
      });
      assert.equal(viaHttp.body.result_code, 'TS-1024', JSON.stringify(viaHttp.body));
      const smpp = await waitFor('the message delivered', async () => {
        const s = await status(ids[2] ?? '');
        return s.result_code === 'TS-1064' ? s : undefined;
      });
      const http = await status(String(viaHttp.body.sms_id));
      assert.equal(smpp.sms_balance, http.sms_balance);
      assert.ok(Number(smpp.sms_balance) >= 3, JSON.stringify(smpp));
      assert.equal(await carrierText(to), text);
      // A receipt for each part, under that part's own id.
      const receipts = await waitFor('three receipts', () => {
        const mine = esme.delivered.filter((p) => ids.includes(stringField(p, 'receipted_message_id') ?? ''));
        return mine.length >= 3 ? mine : undefined;
      });
      assert.deepEqual(new Set(receipts.map((p) => stringField(p, 'receipted_message_id'))), new Set(ids));
      for (const r of receipts) {
        assert.equal(numberField(r, 'message_state'), 2);
        assert.match(receiptText(r), new RegExp(`^id:${stringField(r, 'receipted_message_id')} .*stat:DELIVRD`));
      }
    });

    it('puts UCS-2 parts with a 16-bit reference together out of order, over two sessions, a surrogate pair split across them', async () => {
      const a = await open();
      const b = await open('bind_transceiver', 'concat', true);
      const text = 'Merhaba 😀 dünya — ' + 'çok uzun bir ileti '.repeat(4);
      const bytes = Buffer.from(text, 'utf16le').swap16();
      // Between the two halves of the emoji's surrogate pair.
      const cut = Buffer.from('Merhaba ', 'utf16le').length + 2;
      const part = (seq: number, chunk: Buffer): Buffer =>
        Buffer.concat([Buffer.from([6, 0x08, 0x04, 0x12, 0x34, 2, seq]), chunk]);
      const to = '905321117003';
      const second = await b.submit(to, '', {
        esm_class: 0x40,
        data_coding: 8,
        registered_delivery: 0,
        short_message: part(2, bytes.subarray(cut)),
      });
      assert.equal(second.command_status, ESME_ROK);
      assert.match(stringField(second, 'message_id') ?? '', /^\d+$/);
      const first = await a.submit(to, '', {
        esm_class: 0x40,
        data_coding: 8,
        registered_delivery: 0,
        short_message: part(1, bytes.subarray(0, cut)),
      });
      assert.equal(first.command_status, ESME_ROK);
      assert.match(stringField(first, 'message_id') ?? '', /^\d+$/);
      await waitFor('the carrier got the text', async () => (await carrierText(to)) === text);
    });

    it('puts parts announced by the sar_* TLVs together', async () => {
      const esme = await open();
      const to = '905321117004';
      const texts = ['The first half, ', 'and the second.'];
      const resps: Pdu[] = [];
      for (const [i, t] of texts.entries())
        resps.push(
          await esme.submit(to, t, {
            esm_class: 0x00,
            registered_delivery: 0,
            sar_msg_ref_num: 0xbeef,
            sar_total_segments: 2,
            sar_segment_seqnum: i + 1,
          }),
        );
      assert.deepEqual(
        resps.map((r) => r.command_status),
        [ESME_ROK, ESME_ROK],
      );
      assert.match(stringField(resps[1] as Pdu, 'message_id') ?? '', /^\d+$/);
      await waitFor('the carrier got the text', async () => (await carrierText(to)) === texts.join(''));
    });

    it('refuses malformed parts, and gives up an unfinished message with a REJECTD receipt for its part', async () => {
      const esme = await open();
      const udh = (total: number, seq: number): Buffer => Buffer.from([5, 0x00, 0x03, 0x07, total, seq]);
      const submitPart = (total: number, seq: number, extra = {}): Promise<Pdu> =>
        esme.submit('905321117005', '', {
          esm_class: 0x40,
          short_message: Buffer.concat([udh(total, seq), Buffer.from('part')]),
          ...extra,
        });
      assert.equal((await submitPart(2, 3)).command_status, 0x43);
      assert.equal((await submitPart(40, 1)).command_status, 0x01);
      assert.equal(
        (await esme.submit('905321117005', 'x', { sar_msg_ref_num: 1, sar_total_segments: 2, sar_segment_seqnum: 0 }))
          .command_status,
        0xc4,
      );
      const lone = await submitPart(2, 1);
      assert.equal(lone.command_status, ESME_ROK);
      const id = stringField(lone, 'message_id') ?? '';
      const receipt = await waitFor(
        'the REJECTD receipt of the part never completed',
        () => esme.delivered.find((p) => stringField(p, 'receipted_message_id') === id),
        { timeoutMs: 20_000 },
      );
      assert.equal(numberField(receipt, 'message_state'), 8);
      assert.match(receiptText(receipt), new RegExp(`^id:${id} sub:001 dlvrd:000 .*stat:REJECTD`));
    });

    it('refuses the part that completes a message the API refuses, and the parts before it get REJECTD receipts', async () => {
      const esme = await open();
      const part = (seq: number): Promise<Pdu> =>
        esme.submit('905321117006', '', {
          source_addr: 'NOTMINE',
          esm_class: 0x40,
          short_message: Buffer.concat([Buffer.from([5, 0x00, 0x03, 0x09, 2, seq]), Buffer.from('half')]),
        });
      const first = await part(1);
      assert.equal(first.command_status, ESME_ROK);
      assert.equal((await part(2)).command_status, 0x0a);
      const id = stringField(first, 'message_id');
      const receipt = await waitFor('the REJECTD receipt', () =>
        esme.delivered.find((p) => stringField(p, 'receipted_message_id') === id),
      );
      assert.match(receiptText(receipt), /stat:REJECTD/);
    });

    it('answers query_sm for the account\u2019s own messages by the id of submit_sm_resp', async () => {
      const esme = await open();
      const id = stringField(await esme.submit('905321117007', 'query me', { registered_delivery: 0 }), 'message_id');
      const answer = await waitFor('the message delivered, as query_sm says', async () => {
        const resp = await esme.request('query_sm', { message_id: id, source_addr: 'ACME' });
        return numberField(resp, 'message_state') === 2 ? resp : undefined;
      });
      assert.equal(answer.command_status, ESME_ROK);
      assert.equal(stringField(answer, 'message_id'), id);
      // Sent as SMPP absolute time ("YYMMDDhhmmss000+"); the ESME's codec reads it as a Date.
      const finalDate = answer.final_date;
      assert.ok(finalDate instanceof Date && !Number.isNaN(finalDate.getTime()), String(finalDate));
      assert.equal((await esme.request('query_sm', { message_id: '999999999' })).command_status, 0x67);
      assert.equal((await esme.request('query_sm', { message_id: 'x-00' })).command_status, 0x67);
      // A part's own id names no message.
      const part = await esme.submit('905321117007', '', {
        esm_class: 0x40,
        registered_delivery: 0,
        short_message: Buffer.concat([Buffer.from([5, 0x00, 0x03, 0x11, 2, 1]), Buffer.from('one half')]),
      });
      assert.equal(part.command_status, ESME_ROK);
      assert.equal(
        (await esme.request('query_sm', { message_id: stringField(part, 'message_id') })).command_status,
        0x67,
      );
      // Another account's message is not found.
      const other = await provisionSender(store(), 'Other', 10);
      const theirs = await postJson(`${server?.url ?? ''}/sms/send`, {
        api_key: other.apiKey,
        sentto: '905321117008',
        title: 'ACME',
        text: 'not yours',
      });
      assert.equal(theirs.body.result_code, 'TS-1024');
      const resp = await esme.request('query_sm', { message_id: String(theirs.body.sms_id) });
      assert.equal(resp.command_status, 0x67);
    });

    it('delivers the account\u2019s MO messages to its receiver as deliver_sm, keeping those that arrive while none is bound', async () => {
      // Routed from now on: every MO of the account arrives after its SMPP users were made.
      await admin(['inbound-route', 'add', '--account', sender.accountId, '--number', '4444', ...store()]);
      const first = await open('bind_receiver', 'mo');
      await waitFor('a first MO', () => first.delivered.length >= 2);
      const mo = first.delivered[0] as Pdu;
      assert.equal(numberField(mo, 'esm_class'), 0);
      assert.equal(stringField(mo, 'source_addr'), '905321112233');
      assert.equal(stringField(mo, 'destination_addr'), '4444');
      assert.equal(numberField(mo, 'data_coding'), 8);
      assert.equal(decodeShortMessage(bufferField(mo, 'short_message') ?? Buffer.alloc(0), 8, 0).text, moText);
      await first.close();
      const seen = first.delivered.length;
      // While no receiver is bound, more MO arrive and are kept.
      await waitFor('MO stored while unbound', async () => {
        const listed = (await admin(['inbound', 'list', '--account', sender.accountId, '--limit', '1000', ...store()]))
          .messages as unknown[];
        return listed.length >= seen + 3;
      });
      const again = await open('bind_transceiver', 'mo');
      const listed = (await admin(['inbound', 'list', '--account', sender.accountId, '--limit', '1000', ...store()]))
        .messages as unknown[];
      await waitFor('every MO stored so far, over the two binds', () => seen + again.delivered.length >= listed.length);
      assert.ok(again.delivered.every((p) => numberField(p, 'esm_class') === 0));
    });

    it('keeps the parts of an unfinished message in the store: a part sent after the process was killed and started again completes it', async () => {
      const kill = async (): Promise<void> => {
        if (!server) return;
        server.child.kill('SIGKILL');
        await server.exited;
      };
      // A time-out longer than the restarts take.
      await kill();
      server = await serve('600000');
      const to = '905321117009';
      const texts = ['Sent before the restart, ', 'and the end after it.'];
      const part = (seq: number): Buffer =>
        Buffer.concat([Buffer.from([5, 0x00, 0x03, 0x21, 2, seq]), Buffer.from(texts[seq - 1] ?? '', 'latin1')]);
      const before = await open();
      const first = await before.submit(to, '', { esm_class: 0x40, registered_delivery: 0, short_message: part(1) });
      assert.equal(first.command_status, ESME_ROK);
      await before.close();
      // Killed, not stopped: the part answered is in the store already.
      await kill();
      server = await serve('600000');
      const after = await open();
      const second = await after.submit(to, '', { esm_class: 0x40, registered_delivery: 0, short_message: part(2) });
      assert.equal(second.command_status, ESME_ROK);
      assert.match(stringField(second, 'message_id') ?? '', /^\d+$/);
      assert.notEqual(stringField(second, 'message_id'), stringField(first, 'message_id'));
      await waitFor('the carrier got the whole text', async () => (await carrierText(to)) === texts.join(''));
    });
  });
}
