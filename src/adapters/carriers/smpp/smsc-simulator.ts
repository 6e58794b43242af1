import type { AddressInfo } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import type { Server, Session } from 'smpp';
import { SimOutbound } from './sim-outbound.js';
import type { InboundOptions } from './sim-outbound.js';
import { readSubmit, receiptFor } from './sim-submits.js';
import type { ReceivedSubmit } from './sim-submits.js';
import { emptyCounters, PeakPerSecond, RateTicker, startStatsServer } from './sim-stats.js';
import { smpp, Status, stringField } from '../../../smpp/smpp-wire.js';
import { simulatedOutcome } from '../../../domain/simulator-outcome.js';
import type { Pdu, PduOptions } from '../../../smpp/smpp-wire.js';

export type { ReceivedSubmit };

/**
 * An SMPP 3.4 SMSC for tests and local runs, listening on 127.0.0.1 only. Outcomes
 * follow the destination's last four digits (sim-receipts.ts); the latest submits (up to
 * `keepSubmits`) are kept in `received`, and served as `GET /submits?to=NUMBER` beside
 * /stats; a destination that cannot be a phone number (the built-in simulator's rule,
 * domain/simulator-outcome.ts) is answered ESME_RINVDSTADR.
 * Receipts and MO messages go out through SimOutbound.
 */

export interface SmscSimulatorOptions {
  /** 0 picks a free port. */
  port: number;
  /** When set, binds must present these. */
  systemId?: string;
  password?: string;
  receiptDelayMs: { min: number; max: number };
  /** Share of submits answered ESME_RTHROTTLED, spread evenly (0.5 = every second one). */
  throttleShare: number;
  /** Close a session, unanswered, on every Nth PDU it sends us (0 = never). */
  dropEvery: number;
  inbound?: InboundOptions;
  /** Add receipted_message_id and message_state TLVs to receipts (default true). */
  receiptTlvs?: boolean;
  receiptRetryMs?: number;
  /** Hold each submit_sm_resp this long (default 0), to keep submits in flight. */
  submitRespDelayMs?: number;
  statsPort?: number;
  /** How many of the latest submits `received` keeps (default 10,000): a long run stays bounded. */
  keepSubmits?: number;
  /** Console lines (per-second rates, binds); silent when absent. */
  print?: (line: string) => void;
}

interface SessionState {
  systemId: string;
  bound: boolean;
  transmit: boolean;
  receive: boolean;
  pdus: number;
  unanswered: number;
}

const defaultKeepSubmits = 10_000;

/** A kept submit as GET /submits shows it: the fields that say how the text was encoded. */
function wireView(r: ReceivedSubmit): {
  destination: string;
  source: string;
  /** source_addr's octets as received (a GSM-coded sender ID has ESC, 0x1b, before a shifted letter). */
  source_hex: string;
  data_coding: number;
  esm_class: number;
  short_message: string;
  message_id: string | null;
  seq: number;
  at: number;
} {
  return {
    destination: r.destination,
    source: r.source,
    source_hex: Buffer.from(r.source, 'latin1').toString('hex'),
    data_coding: r.dataCoding,
    esm_class: r.esmClass,
    short_message: r.shortMessage.toString('hex'),
    message_id: r.messageId ?? null,
    seq: r.seq,
    at: r.at,
  };
}

export class SmscSimulator {
  readonly received: ReceivedSubmit[] = [];
  readonly stats = emptyCounters();
  private server: Server | undefined;
  private statsServer: HttpServer | undefined;
  private readonly sessions = new Map<Session, SessionState>();
  private readonly ticker: RateTicker;
  private readonly outbound: SimOutbound;
  /** Ids continue from the start time, so a restarted simulator does not hand out old ids again. */
  private nextId = Date.now() * 100;
  private throttleCredit = 0;
  private readonly submitsPerSecond = new PeakPerSecond();

  constructor(private readonly options: SmscSimulatorOptions) {
    this.ticker = new RateTicker(this.stats, (line) => this.print(line));
    this.outbound = new SimOutbound(this.sessions, this.stats, options.receiptRetryMs ?? 1000);
  }

  /** Resolves with the SMPP port once listening. */
  async start(): Promise<number> {
    const server = smpp.createServer((session) => this.accept(session));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    this.print(`SMSC simulator on 127.0.0.1:${port}`);
    if (this.options.statsPort !== undefined) {
      this.statsServer = await startStatsServer(
        this.options.statsPort,
        () => this.stats,
        (to) => (to === null ? this.received : this.received.filter((r) => r.destination === to)).map(wireView),
      );
      this.print(`stats on http://127.0.0.1:${(this.statsServer.address() as AddressInfo).port}/stats`);
    }
    const inbound = this.options.inbound;
    if (inbound) this.outbound.every(inbound.everyMs, () => this.outbound.sendInbound(inbound));
    this.ticker.start();
    return port;
  }

  async stop(): Promise<void> {
    this.ticker.stop();
    this.outbound.stop();
    for (const session of this.sessions.keys()) session.destroy();
    this.sessions.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    const stats = this.statsServer;
    this.statsServer = undefined;
    if (stats) await new Promise<void>((resolve) => stats.close(() => resolve()));
  }

  /** Closes every session abruptly, as a failing SMSC would; the listener stays up. */
  dropAll(): void {
    for (const session of this.sessions.keys()) this.drop(session);
  }

  get boundSessions(): number {
    return [...this.sessions.values()].filter((s) => s.bound).length;
  }

  private print(line: string): void {
    this.options.print?.(`[smsc-sim] ${line}`);
  }

  private accept(session: Session): void {
    const state: SessionState = { systemId: '', bound: false, transmit: false, receive: false, pdus: 0, unanswered: 0 };
    this.sessions.set(session, state);
    session.on('error', () => session.destroy());
    session.on('close', () => {
      if (state.bound) this.stats.boundNow--;
      this.sessions.delete(session);
      this.outbound.sessionClosed(session);
    });
    session.on('pdu', (pdu) => {
      if (pdu.isResponse()) return;
      state.pdus++;
      if (this.options.dropEvery > 0 && state.pdus % this.options.dropEvery === 0) return this.drop(session);
      this.onRequest(session, state, pdu);
    });
  }

  private drop(session: Session): void {
    this.stats.drops++;
    session.destroy();
  }

  private onRequest(session: Session, state: SessionState, pdu: Pdu): void {
    const reply = (options: PduOptions = {}): void => void session.send(pdu.response(options));
    switch (pdu.command) {
      case 'bind_transceiver':
      case 'bind_transmitter':
      case 'bind_receiver':
        return this.bind(state, pdu, reply);
      case 'enquire_link':
        this.stats.enquireLinks++;
        return reply();
      case 'unbind':
        reply();
        return void session.close();
      case 'submit_sm':
        return state.bound && state.transmit
          ? this.submit(state, pdu, this.submitReply(state, reply))
          : reply({ command_status: Status.INVBNDSTS });
      default:
        return reply({ command_status: Status.INVCMDID });
    }
  }

  private bind(state: SessionState, pdu: Pdu, reply: (options?: PduOptions) => void): void {
    const systemId = stringField(pdu, 'system_id') ?? '';
    const { systemId: wantId, password: wantPassword } = this.options;
    if (
      (wantId !== undefined && systemId !== wantId) ||
      (wantPassword !== undefined && stringField(pdu, 'password') !== wantPassword)
    ) {
      this.stats.bindsRefused++;
      return reply({ command_status: Status.BINDFAIL });
    }
    if (!state.bound) {
      this.stats.boundNow++;
      this.stats.peakBound = Math.max(this.stats.peakBound, this.stats.boundNow);
    }
    Object.assign(state, {
      systemId,
      bound: true,
      transmit: pdu.command !== 'bind_receiver',
      receive: pdu.command !== 'bind_transmitter',
    });
    this.stats.binds++;
    this.print(`${pdu.command} system_id=${systemId}`);
    reply({ system_id: 'SMSCSIM' });
  }

  /** Counts submits awaiting their resp (stats.peakUnanswered) and applies submitRespDelayMs. */
  private submitReply(state: SessionState, reply: (options?: PduOptions) => void): (options?: PduOptions) => void {
    state.unanswered++;
    this.stats.peakUnanswered = Math.max(this.stats.peakUnanswered, state.unanswered);
    const delay = this.options.submitRespDelayMs ?? 0;
    return (options) => {
      const send = (): void => {
        state.unanswered--;
        reply(options);
      };
      if (delay > 0) this.outbound.after(delay, send);
      else send();
    };
  }

  private submit(state: SessionState, pdu: Pdu, reply: (options?: PduOptions) => void): void {
    this.stats.submits++;
    this.stats.peakSubmitsPerSecond = this.submitsPerSecond.add(performance.now());
    if (simulatedOutcome(stringField(pdu, 'destination_addr') ?? '') === 'refused')
      return reply({ command_status: Status.INVDSTADR });
    const record = readSubmit(pdu, state.systemId);
    record.seq = this.stats.submits;
    this.received.push(record);
    const keep = this.options.keepSubmits ?? defaultKeepSubmits;
    // Trimmed in steps of `keep`, not one at a time: shifting the array each submit would cost O(n).
    if (this.received.length >= 2 * keep) this.received.splice(0, this.received.length - keep);
    this.throttleCredit += this.options.throttleShare;
    if (this.throttleCredit >= 1) {
      this.throttleCredit -= 1;
      this.stats.throttled++;
      return reply({ command_status: Status.THROTTLED });
    }
    const messageId = (++this.nextId).toString(16).toUpperCase().padStart(12, '0');
    record.messageId = messageId;
    this.stats.submitsAccepted++;
    reply({ message_id: messageId });
    const receipt = receiptFor(record, messageId, this.options.receiptTlvs ?? true);
    if (!receipt) return;
    const { min, max } = this.options.receiptDelayMs;
    this.outbound.after(min + Math.floor(Math.random() * (max - min + 1)), () =>
      this.outbound.sendReceipt(state.systemId, receipt),
    );
  }
}
