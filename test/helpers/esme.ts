/**
 * A small ESME (SMPP client) for the SMPP server's tests, on the codec haberci uses
 * (src/smpp/smpp-wire.ts): bind, submit, collect deliver_sm (answered with `deliverStatus`).
 */
import type { Session } from 'smpp';
import { smpp } from '../../src/smpp/smpp-wire.js';
import type { Pdu, PduOptions } from '../../src/smpp/smpp-wire.js';
import { waitFor } from './wait-for.js';

export interface Esme {
  session: Session;
  /** deliver_sm received, in order. */
  delivered: Pdu[];
  closed(): boolean;
  request(command: string, options?: PduOptions): Promise<Pdu>;
  bind(command: string, systemId: string, password: string): Promise<number>;
  /** A submit_sm with the usual fields; `extra` overrides them. */
  submit(to: string, text: string, extra?: PduOptions): Promise<Pdu>;
  /** The status of deliver_sm_resp from now on (default 0). */
  deliverStatus: number;
  close(): Promise<void>;
}

/** `localAddress`: the address the connection comes from (another loopback address, 127.0.0.2, is another peer). */
export async function connectEsme(
  port: number,
  options: { tls?: boolean; enquireMs?: number; localAddress?: string } = {},
): Promise<Esme> {
  const connectOptions: Record<string, unknown> = { host: '127.0.0.1', port };
  if (options.localAddress) connectOptions.localAddress = options.localAddress;
  if (options.tls) Object.assign(connectOptions, { tls: true, rejectUnauthorized: false });
  if (options.enquireMs) connectOptions.auto_enquire_link_period = options.enquireMs;
  const session = smpp.connect(connectOptions as { host: string; port: number });
  let isClosed = false;
  session.on('close', () => (isClosed = true));
  session.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    session.once(options.tls ? 'secureConnect' : 'connect', () => resolve());
    session.once('error', reject);
  });
  const esme: Esme = {
    session,
    delivered: [],
    deliverStatus: 0,
    closed: () => isClosed,
    request: (command, pduOptions = {}) =>
      new Promise<Pdu>((resolve, reject) => {
        const sent = session.send(new smpp.PDU(command, pduOptions), resolve);
        if (!sent) reject(new Error('the session is closed'));
        session.once('close', () => reject(new Error(`closed before the answer to ${command}`)));
      }),
    async bind(command, systemId, password) {
      const resp = await esme.request(command, { system_id: systemId, password, system_type: 'VMA' });
      return resp.command_status;
    },
    submit: (to, text, extra = {}) =>
      esme.request('submit_sm', {
        source_addr_ton: 5,
        source_addr_npi: 0,
        source_addr: 'ACME',
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        destination_addr: to,
        esm_class: 0x03,
        registered_delivery: 1,
        data_coding: 0,
        short_message: Buffer.from(text, 'latin1'),
        ...extra,
      }),
    async close() {
      if (isClosed) return;
      session.destroy();
      await waitFor('the ESME closed', () => isClosed);
    },
  };
  session.on('pdu', (pdu: Pdu) => {
    if (pdu.command === 'deliver_sm') {
      esme.delivered.push(pdu);
      session.send(pdu.response({ command_status: esme.deliverStatus }));
    } else if (pdu.command === 'unbind') session.send(pdu.response());
  });
  return esme;
}

/** The port of `serve`'s SMPP server from its log (`--smpp-server-port 0`); `tls`: the TLS listener's. */
export function smppPortOf(output: string, tls = false): number {
  const pattern = tls ? /SMPP server \(TLS\) on [^\s"]+:(\d+)"/ : /SMPP server on [^\s"]+:(\d+)"/;
  const port = Number(pattern.exec(output)?.[1]);
  if (!port) throw new Error(`no SMPP port in the output:\n${output}`);
  return port;
}
