/**
 * The SMPP server for customers through the process (issue 35): `haberci serve
 * --smpp-server-port`, users made with `haberci admin smpp-user`, and our own ESME
 * (test/helpers/esme.ts). Binds, submits as /sms/send with the key's rules, the refusals'
 * command statuses, receipts matched by id, receipts kept for a user not bound, the per-bind
 * rate, max binds, bad PDUs, idle connections and disabled users.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { admin, postJson, serverForSuite } from '../../helpers/server-process.js';
import { connectEsme } from '../../helpers/esme.js';
import type { Esme } from '../../helpers/esme.js';
import { waitFor } from '../../helpers/wait-for.js';
import { smppPortOf } from '../../helpers/esme.js';
import { selfSigned } from '../../helpers/self-signed.js';
import { bufferField, numberField, stringField } from '../../../src/smpp/smpp-wire.js';

const ESME_ROK = 0x00;

describe('SMPP server for customers', () => {
  const tls = selfSigned();
  const suite = serverForSuite(
    'Smpp',
    100,
    [
      '--smpp-server-port',
      '0',
      '--sim-delay-ms',
      '50',
      '--smpp-server-idle-ms',
      '5000',
      '--smpp-server-tls-port',
      '0',
      '--smpp-server-tls-cert',
      tls.cert,
      '--smpp-server-tls-key',
      tls.key,
      '--ops-port',
      '0',
    ],
    60_000,
  );
  const esmes: Esme[] = [];
  const open = async (): Promise<Esme> => {
    const esme = await connectEsme(smppPortOf(suite.server.output()), { enquireMs: 300 });
    esmes.push(esme);
    return esme;
  };
  const user = async (systemId: string, extra: string[] = []): Promise<Record<string, unknown>> =>
    admin([
      'smpp-user',
      'create',
      '--key',
      suite.sender.keyId,
      '--system-id',
      systemId,
      '--password',
      'pw123',
      ...extra,
      ...suite.store,
    ]);
  const closeAll = async (): Promise<void> => {
    for (const e of esmes.splice(0)) await e.close();
  };

  it('creates, lists and prints SMPP users without their password', async () => {
    const created = await user('acme');
    assert.equal(created.system_id, 'acme');
    assert.equal(String(created.key_id), suite.sender.keyId);
    assert.ok(!JSON.stringify(created).includes('pw123'));
    const listed = await admin(['smpp-user', 'list', '--account', suite.sender.accountId, ...suite.store]);
    assert.deepEqual(
      (listed.smpp_users as { system_id: string }[]).map((u) => u.system_id),
      ['acme'],
    );
  });

  it('binds and submits over TLS on --smpp-server-tls-port', async () => {
    const esme = await connectEsme(smppPortOf(suite.server.output(), true), { tls: true, enquireMs: 300 });
    esmes.push(esme);
    assert.equal(esme.session.socket.constructor.name, 'TLSSocket');
    assert.equal(await esme.bind('bind_transceiver', 'acme', 'pw123'), ESME_ROK);
    const resp = await esme.submit('905321112255', 'over TLS');
    assert.equal(resp.command_status, ESME_ROK);
    const id = stringField(resp, 'message_id');
    await waitFor('the receipt over TLS', () =>
      esme.delivered.find((p) => stringField(p, 'receipted_message_id') === id),
    );
    await closeAll();
  });

  it('refuses a wrong password (ESME_RINVPASWD) and an unknown system_id (ESME_RINVSYSID)', async () => {
    assert.equal(await (await open()).bind('bind_transceiver', 'acme', 'wrong'), 0x0e);
    assert.equal(await (await open()).bind('bind_transceiver', 'nobody', 'pw123'), 0x0f);
    await closeAll();
  });

  it('accepts a submit_sm as a /sms/send: message_id is the sms_id, /sms/status knows it, the receipt matches it', async () => {
    const esme = await open();
    assert.equal(await esme.bind('bind_transceiver', 'acme', 'pw123'), ESME_ROK);
    const resp = await esme.submit('905321112233', 'Merhaba');
    assert.equal(resp.command_status, ESME_ROK);
    const messageId = stringField(resp, 'message_id') ?? '';
    assert.match(messageId, /^\d+$/);
    const status = await postJson(`${suite.server.url}/sms/status`, {
      api_key: suite.sender.apiKey,
      sms_id: Number(messageId),
    });
    assert.equal(status.status, 200, JSON.stringify(status.body));
    const receipt = await waitFor('the receipt', () =>
      esme.delivered.find((p) => stringField(p, 'receipted_message_id') === messageId),
    );
    assert.equal(numberField(receipt, 'esm_class'), 0x04);
    assert.equal(numberField(receipt, 'message_state'), 2);
    const text = (bufferField(receipt, 'short_message') ?? Buffer.alloc(0)).toString('latin1');
    assert.match(
      text,
      new RegExp(
        `^id:${messageId} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:000 text:$`,
      ),
    );
    assert.equal(stringField(receipt, 'source_addr'), '905321112233');
    assert.equal(stringField(receipt, 'destination_addr'), 'ACME');
    await closeAll();
  });

  it('maps refusals to command statuses: sender ID, destination, bind state, unknown and unoffered commands', async () => {
    const esme = await open();
    assert.equal(await esme.bind('bind_transmitter', 'acme', 'pw123'), ESME_ROK);
    assert.equal((await esme.submit('905321112233', 'x', { source_addr: 'NOTMINE' })).command_status, 0x0a);
    assert.equal((await esme.submit('12ab', 'x')).command_status, 0x0b);
    assert.equal((await esme.request('enquire_link')).command_status, ESME_ROK);
    assert.equal((await esme.request('cancel_sm', { message_id: '1', source_addr: 'ACME' })).command_status, 0x03);
    assert.equal(
      (await esme.request('bind_transmitter', { system_id: 'acme', password: 'pw123' })).command_status,
      0x05,
    );
    const receiver = await open();
    assert.equal((await receiver.submit('905321112233', 'x')).command_status, 0x04);
    assert.equal(await receiver.bind('bind_receiver', 'acme', 'pw123'), ESME_ROK);
    assert.equal((await receiver.submit('905321112233', 'x')).command_status, 0x04);
    // An unknown command_id: generic_nack with ESME_RINVCMDID.
    const nack = await new Promise<{ id: number; status: number }>((resolve) => {
      const socket = connect(smppPortOf(suite.server.output()), '127.0.0.1', () => {
        const pdu = Buffer.alloc(16);
        pdu.writeUInt32BE(16, 0);
        pdu.writeUInt32BE(0x00000077, 4);
        pdu.writeUInt32BE(7, 12);
        socket.write(pdu);
      });
      socket.once('data', (data: Buffer) => {
        resolve({ id: data.readUInt32BE(4), status: data.readUInt32BE(8) });
        socket.destroy();
      });
    });
    assert.deepEqual(nack, { id: 0x80000000, status: 0x03 });
    await closeAll();
  });

  it('answers a PDU over the size limit with generic_nack and closes the connection', async () => {
    const answer = await new Promise<{ id: number; closed: boolean }>((resolve) => {
      let id = -1;
      const socket = connect(smppPortOf(suite.server.output()), '127.0.0.1', () => {
        const head = Buffer.alloc(16);
        head.writeUInt32BE(1_000_000, 0);
        head.writeUInt32BE(0x00000004, 4);
        socket.write(head);
      });
      socket.on('data', (data: Buffer) => (id = data.readUInt32BE(4)));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ id, closed: true }));
    });
    assert.deepEqual(answer, { id: 0x80000000, closed: true });
  });

  it('refuses with the account\u2019s own rules: insufficient balance is ESME_RSUBMITFAIL', async () => {
    const poor = await admin(['account', 'create', '--name', 'Poor', '--balance', '0', ...suite.store]);
    await admin(['sender-id', 'add', '--account', String(poor.id), '--title', 'ACME', ...suite.store]);
    const key = await admin(['key', 'create', '--account', String(poor.id), ...suite.store]);
    await admin([
      'smpp-user',
      'create',
      '--key',
      String(key.id),
      '--system-id',
      'poor',
      '--password',
      'pw',
      ...suite.store,
    ]);
    const esme = await open();
    assert.equal(await esme.bind('bind_transceiver', 'poor', 'pw'), ESME_ROK);
    assert.equal((await esme.submit('905321112233', 'x')).command_status, 0x45);
    await closeAll();
  });

  it('keeps receipts for a user not bound as a receiver and sends them, oldest first, when it binds', async () => {
    await user('later');
    const tx = await open();
    assert.equal(await tx.bind('bind_transmitter', 'later', 'pw123'), ESME_ROK);
    const ids: string[] = [];
    for (const to of ['905321110011', '905321110000']) {
      const resp = await tx.submit(to, 'later');
      assert.equal(resp.command_status, ESME_ROK);
      ids.push(stringField(resp, 'message_id') ?? '');
    }
    // Both final before any receiver binds.
    await waitFor('both messages final', async () => {
      for (const id of ids) {
        const s = await postJson(`${suite.server.url}/sms/status`, {
          api_key: suite.sender.apiKey,
          sms_id: Number(id),
        });
        const details = String(s.body.details ?? '');
        if (details === '' || /Queued|waiting/.test(details)) return false;
      }
      return true;
    });
    assert.equal(tx.delivered.length, 0);
    const rx = await open();
    assert.equal(await rx.bind('bind_receiver', 'later', 'pw123'), ESME_ROK);
    await waitFor('both receipts', () => rx.delivered.length >= 2);
    assert.deepEqual(
      rx.delivered.map((p) => stringField(p, 'receipted_message_id')),
      ids,
    );
    assert.match(
      (bufferField(rx.delivered[1] as never, 'short_message') ?? Buffer.alloc(0)).toString('latin1'),
      /stat:UNDELIV/,
    );
    await closeAll();
  });

  it('sends a receipt again when its deliver_sm was refused for now, until it is answered', async () => {
    await user('retry');
    const esme = await open();
    esme.deliverStatus = 0x64;
    assert.equal(await esme.bind('bind_transceiver', 'retry', 'pw123'), ESME_ROK);
    const id = stringField(await esme.submit('905321112244', 'again'), 'message_id');
    await waitFor('a first receipt', () => esme.delivered.length >= 1);
    esme.deliverStatus = 0;
    await waitFor('the receipt again', () => esme.delivered.length >= 2, { timeoutMs: 20_000 });
    assert.ok(esme.delivered.every((p) => stringField(p, 'receipted_message_id') === id));
    await closeAll();
  });

  it('throttles a bind over its submits per second with ESME_RTHROTTLED, without dropping it', async () => {
    await user('slow', ['--max-submits-per-second', '1']);
    const esme = await open();
    assert.equal(await esme.bind('bind_transmitter', 'slow', 'pw123'), ESME_ROK);
    const statuses = await Promise.all(
      [1, 2, 3, 4].map(() => esme.submit('905321112233', 'rate', { registered_delivery: 0 })),
    );
    assert.ok(
      statuses.some((r) => r.command_status === 0x58),
      JSON.stringify(statuses.map((r) => r.command_status)),
    );
    assert.equal((await esme.request('enquire_link')).command_status, ESME_ROK);
    assert.equal(esme.closed(), false);
    await closeAll();
  });

  it('refuses a bind over --max-binds with ESME_RBINDFAIL', async () => {
    await user('single', ['--max-binds', '1']);
    assert.equal(await (await open()).bind('bind_transceiver', 'single', 'pw123'), ESME_ROK);
    assert.equal(await (await open()).bind('bind_transceiver', 'single', 'pw123'), 0x0d);
    await closeAll();
  });

  it('closes a connection that does not bind in time', async () => {
    const closed = await new Promise<boolean>((resolve) => {
      const socket = connect(smppPortOf(suite.server.output()), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(true));
    });
    assert.equal(closed, true);
  });

  it('counts binds, refusals, submits and receipts in /metrics', async () => {
    const ops = /operations listener on (http:\/\/[^\s"]+)/.exec(suite.server.output())?.[1];
    assert.ok(ops, suite.server.output());
    const text = await (await fetch(`${ops}/metrics`)).text();
    const value = (series: string): number => Number(new RegExp(`^${series} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    assert.ok(value('haberci_smpp_server_binds_total\\{outcome="bound"\\}') >= 5, text);
    assert.ok(value('haberci_smpp_server_binds_total\\{outcome="ESME_RINVPASWD"\\}') >= 1);
    assert.ok(value('haberci_smpp_server_binds_total\\{outcome="ESME_RBINDFAIL"\\}') >= 1);
    assert.ok(value('haberci_smpp_server_submits_total\\{status="ESME_ROK"\\}') >= 5);
    assert.ok(value('haberci_smpp_server_submits_total\\{status="ESME_RTHROTTLED"\\}') >= 1);
    assert.ok(value('haberci_smpp_server_receipts_total') >= 4);
    assert.match(text, /^haberci_smpp_server_sessions \d+$/m);
  });

  it('unbinds the sessions of a user once disabled, and refuses its binds', async () => {
    const created = await user('gone');
    const esme = await open();
    assert.equal(await esme.bind('bind_transceiver', 'gone', 'pw123'), ESME_ROK);
    await admin(['smpp-user', 'disable', '--id', String(created.id), ...suite.store]);
    await waitFor('the session closed', () => esme.closed());
    assert.equal(await (await open()).bind('bind_transceiver', 'gone', 'pw123'), 0x0f);
    await closeAll();
  });
});
