import type { Session } from 'smpp';
import { makePdu, smpp, Status, statusText } from '../../../smpp/smpp-wire.js';
import type { Pdu, PduOptions } from '../../../smpp/smpp-wire.js';

/**
 * One SMPP session to an SMSC: connect, bind, keep alive with enquire_link, and on any
 * loss re-connect and re-bind with exponential backoff (reconnectMinMs doubling up to
 * reconnectMaxMs; each wait is drawn between half and all of that ceiling, never below
 * reconnectMinMs, so that many ESMEs do not return in step).
 */

export type Reply = (options: PduOptions) => void;

export type BindCommand = 'bind_transceiver' | 'bind_transmitter' | 'bind_receiver';

export interface SmppLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export const silentLog: SmppLog = { info: () => undefined, warn: () => undefined };

export interface LinkOptions {
  name: string;
  host: string;
  port: number;
  bind: BindCommand;
  systemId: string;
  password: string;
  systemType: string;
  enquireLinkMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  log: SmppLog;
  /**
   * Requests from the SMSC (deliver_sm...). `reply` answers on the session the request
   * came on; after that session ended it does nothing (the SMSC will deliver again).
   */
  onRequest: (pdu: Pdu, reply: Reply) => void;
  onBoundChange?: (bound: boolean) => void;
}

/** resp: the SMSC answered; dropped: the session ended first; timeout: no answer in time. */
export type RequestResult = { kind: 'resp'; pdu: Pdu } | { kind: 'dropped' } | { kind: 'timeout' };

export class SmppLink {
  private session: Session | undefined;
  private bound = false;
  private stopped = true;
  private attempts = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private keepAliveTimer: NodeJS.Timeout | undefined;
  /** Requests awaiting a resp on the current session; all settle when it ends. */
  private readonly pending = new Map<number, (result: RequestResult) => void>();
  /** The session whose socket is corked until the end of this tick (see send). */
  private corked: Session | undefined;

  constructor(private readonly options: LinkOptions) {}

  get isBound(): boolean {
    return this.bound;
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  /**
   * Unbinds politely (bounded by enquireLinkMs), then closes; no reconnect afterwards. All of
   * it within about `withinMs` (a bind whose lease is ending must be gone before it ends).
   */
  async stop(withinMs = 3000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const session = this.session;
    if (!session) return;
    if (this.bound) await this.request('unbind', {}, Math.min(this.options.enquireLinkMs, 2000, withinMs / 2));
    // The SMSC may have closed the session already (onClose cleared this.session).
    if (this.session !== session) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(
        () => {
          session.destroy();
          resolve();
        },
        Math.min(1000, withinMs / 2),
      );
      session.once('close', () => {
        clearTimeout(force);
        resolve();
      });
      session.close();
    });
  }

  /** Sends a request and waits for its resp; never throws and never waits past timeoutMs. */
  request(command: string, options: PduOptions, timeoutMs: number): Promise<RequestResult> {
    const session = this.session;
    if (!session) return Promise.resolve({ kind: 'dropped' });
    return new Promise((resolve) => {
      let seq = -1;
      const timer = setTimeout(() => settle({ kind: 'timeout' }), timeoutMs);
      const settle = (result: RequestResult): void => {
        clearTimeout(timer);
        this.pending.delete(seq);
        resolve(result);
      };
      const pdu = makePdu(command, options);
      const sent = this.send(session, pdu, (resp) => settle({ kind: 'resp', pdu: resp }));
      if (!sent) return settle({ kind: 'dropped' });
      seq = pdu.sequence_number;
      this.pending.set(seq, settle);
    });
  }

  private connect(): void {
    const { host, port, name } = this.options;
    const session = smpp.connect({ host, port });
    this.session = session;
    // A silent host would otherwise hold the attempt for the OS's TCP timeout (minutes).
    const connectTimer = setTimeout(() => session.destroy(), this.options.enquireLinkMs);
    session.on('connect', () => {
      clearTimeout(connectTimer);
      void this.bind(session);
    });
    session.on('close', () => clearTimeout(connectTimer));
    // After an error (socket or unparsable PDU) the stream cannot be trusted: start afresh.
    session.on('error', (error) => {
      this.options.log.warn({ connection: name, error: error.message }, 'SMPP session error');
      session.destroy();
    });
    session.on('close', () => this.onClose(session));
    session.on('pdu', (pdu) => this.onPdu(session, pdu));
  }

  private async bind(session: Session): Promise<void> {
    const { bind, systemId, password, systemType, name } = this.options;
    const result = await this.request(
      bind,
      { system_id: systemId, password, system_type: systemType, interface_version: 0x34 },
      this.options.enquireLinkMs,
    );
    if (session !== this.session) return;
    if (result.kind === 'resp' && result.pdu.command_status === Status.OK) {
      this.bound = true;
      this.attempts = 0;
      this.options.log.info({ connection: name, bind }, 'SMPP bound');
      this.options.onBoundChange?.(true);
      this.keepAlive(session);
      return;
    }
    const why = result.kind === 'resp' ? statusText(result.pdu.command_status) : result.kind;
    this.options.log.warn({ connection: name, bind, status: why }, 'SMPP bind refused');
    session.destroy();
  }

  /** An enquire_link without an answer within enquireLinkMs means the link is dead. */
  private keepAlive(session: Session): void {
    this.keepAliveTimer = setTimeout(async () => {
      if (session !== this.session || !this.bound) return;
      const result = await this.request('enquire_link', {}, this.options.enquireLinkMs);
      if (session !== this.session) return;
      if (result.kind === 'resp') this.keepAlive(session);
      else session.destroy();
    }, this.options.enquireLinkMs);
  }

  private onPdu(session: Session, pdu: Pdu): void {
    if (session !== this.session || pdu.isResponse()) return;
    if (pdu.command === 'enquire_link') return void this.send(session, pdu.response());
    if (pdu.command === 'unbind') {
      this.send(session, pdu.response());
      return void session.close();
    }
    if (!this.bound) return void this.send(session, pdu.response({ command_status: Status.INVBNDSTS }));
    this.options.onRequest(pdu, (options) => {
      if (session === this.session) this.send(session, pdu.response(options));
    });
  }

  /**
   * Writes a PDU. The PDUs written in one tick (a batch of submits, the receipts of a stored
   * batch answered) leave in one write: the socket is corked until the tick ends, where one
   * write call each cost a system call and a wake-up of the SMSC.
   */
  private send(session: Session, pdu: Pdu, onResp?: (resp: Pdu) => void): boolean {
    if (this.corked !== session) {
      this.corked = session;
      session.socket.cork();
      process.nextTick(() => {
        this.corked = undefined;
        session.socket.uncork();
      });
    }
    return session.send(pdu, onResp);
  }

  private onClose(session: Session): void {
    if (session !== this.session) return;
    this.session = undefined;
    clearTimeout(this.keepAliveTimer);
    const wasBound = this.bound;
    this.bound = false;
    for (const settle of [...this.pending.values()]) settle({ kind: 'dropped' });
    if (wasBound) this.options.onBoundChange?.(false);
    if (this.stopped) return;
    const delay = this.backoff();
    this.options.log.warn({ connection: this.options.name, retryInMs: delay }, 'SMPP connection lost');
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private backoff(): number {
    const { reconnectMinMs, reconnectMaxMs } = this.options;
    const ceiling = Math.min(reconnectMaxMs, reconnectMinMs * 2 ** Math.min(this.attempts, 30));
    this.attempts++;
    return Math.max(reconnectMinMs, Math.round(ceiling / 2 + Math.random() * (ceiling / 2)));
  }
}
