/**
 * PDUs whose lengths lie (issue 42, item 6), through SMPP to the server in this process: a
 * command_length under the 16-byte header (0 among them) gets no answer and the connection
 * is closed; a submit_sm whose sm_length runs past its body is ESME_RINVMSGLEN, one whose TLV
 * length does is ESME_RINVCMDLEN, and another command's C-string without its NUL too: none
 * is acted on (nothing charged), and the session goes on.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { harnessFor } from '../helpers/harness.js';
import { connectEsme } from '../helpers/esme.js';
import type { Esme } from '../helpers/esme.js';
import type { SmppServer } from '../../src/smpp-server/smpp-server.js';
import { smppServerOn } from '../helpers/smpp-server.js';
import { smpp } from '../../src/smpp/smpp-wire.js';
import type { Pdu, PduOptions } from '../../src/smpp/smpp-wire.js';
import { valueOf } from '../helpers/results.js';

const ESME_ROK = 0x00;
const ESME_RINVMSGLEN = 0x01;
const ESME_RINVCMDLEN = 0x02;

/** The bytes of a PDU as the codec writes them, with `sequence`. */
function bytesOf(command: string, options: PduOptions, sequence: number): Buffer {
  return new smpp.PDU(command, { ...options, sequence_number: sequence }).toBuffer();
}

const submitFields: PduOptions = {
  source_addr_ton: 5,
  source_addr: 'ACME',
  dest_addr_ton: 1,
  dest_addr_npi: 1,
  destination_addr: '905321112233',
  data_coding: 0,
  short_message: Buffer.from('hello', 'latin1'),
};

/** Writes raw bytes on the ESME's connection; resolves with the answer of `sequence`. */
function answerTo(esme: Esme, bytes: Buffer, sequence: number): Promise<Pdu> {
  return new Promise((resolve) => {
    const seen = (pdu: Pdu): void => {
      if (pdu.sequence_number !== sequence) return;
      esme.session.off('pdu', seen);
      resolve(pdu);
    };
    esme.session.on('pdu', seen);
    esme.session.socket.write(bytes);
  });
}

for (const dialect of testDialects()) {
  describeOn(dialect, `SMPP server: PDUs whose lengths lie (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    let server: SmppServer;
    let port = 0;
    let accountId = 0;
    let esme: Esme;

    before(async () => {
      const p = await h.provision();
      accountId = p.accountId;
      await valueOf(h.runtime.smppUsers.create({ keyId: p.keyId, systemId: 'liar', password: 'pw' }));
      server = smppServerOn(h.runtime, h.clock);
      port = await server.listen({ port: 0, host: '127.0.0.1' });
      esme = await connectEsme(port);
      assert.equal(await esme.bind('bind_transceiver', 'liar', 'pw'), ESME_ROK);
    });
    after(async () => {
      await esme.close();
      await server.close();
    });

    const balance = async (): Promise<number> =>
      (await h.runtime.store.accounts.balancesOf([accountId])).get(accountId)?.main ?? -1;

    for (const length of [0, 8, 15]) {
      it(`answers nothing to command_length ${length} and closes the connection`, async () => {
        const got = await new Promise<{ bytes: number; closed: boolean }>((resolve) => {
          let bytes = 0;
          const socket = connect(port, '127.0.0.1', () => {
            const head = Buffer.alloc(16);
            head.writeUInt32BE(length, 0);
            head.writeUInt32BE(0x00000015, 4); // enquire_link
            head.writeUInt32BE(3, 12);
            socket.write(head);
          });
          socket.on('data', (data: Buffer) => (bytes += data.length));
          socket.on('error', () => undefined);
          socket.on('close', () => resolve({ bytes, closed: true }));
        });
        assert.deepEqual(got, { bytes: 0, closed: true });
      });
    }

    it('refuses a submit_sm whose sm_length runs past its body with ESME_RINVMSGLEN, charging nothing', async () => {
      const before = await balance();
      const bytes = bytesOf('submit_sm', submitFields, 901);
      // sm_length is the byte before the 5 bytes of short_message, the last field.
      bytes.writeUInt8(200, bytes.length - 6);
      const resp = await answerTo(esme, bytes, 901);
      assert.equal(resp.command_status, ESME_RINVMSGLEN);
      assert.equal(await balance(), before);
      // The framing held: the session goes on.
      assert.equal((await esme.submit('905321112233', 'fine')).command_status, ESME_ROK);
      assert.equal(await balance(), before - 1);
    });

    it('refuses a submit_sm whose TLV length runs past its body with ESME_RINVCMDLEN', async () => {
      const before = await balance();
      const bytes = bytesOf('submit_sm', { ...submitFields, user_message_reference: 7 }, 902);
      // The TLV is last: tag (2), length (2), value (2); its length now claims 40 bytes.
      bytes.writeUInt16BE(40, bytes.length - 4);
      const resp = await answerTo(esme, bytes, 902);
      assert.equal(resp.command_status, ESME_RINVCMDLEN);
      // A TLV header cut short (two bytes past the last field) is refused the same way.
      const cut = Buffer.concat([bytesOf('submit_sm', submitFields, 903), Buffer.from([0x02, 0x04])]);
      cut.writeUInt32BE(cut.length, 0);
      assert.equal((await answerTo(esme, cut, 903)).command_status, ESME_RINVCMDLEN);
      assert.equal(await balance(), before);
    });

    it('refuses another command whose C-string runs past its body with ESME_RINVCMDLEN', async () => {
      const bytes = bytesOf('query_sm', { message_id: '12', source_addr: 'ACME' }, 904);
      // The last byte is source_addr's NUL: without it the string runs past the body.
      const cut = bytes.subarray(0, bytes.length - 1);
      cut.writeUInt32BE(cut.length, 0);
      const resp = await answerTo(esme, cut, 904);
      assert.equal(resp.command, 'query_sm_resp');
      assert.equal(resp.command_status, ESME_RINVCMDLEN);
      assert.equal((await esme.request('enquire_link')).command_status, ESME_ROK);
    });
  });
}
