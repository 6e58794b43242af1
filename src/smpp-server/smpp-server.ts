/**
 * The SMPP 3.4 server for customers (ESMEs; docs/smpp.md, "Customers over SMPP"). A bind
 * authenticates by system_id and password and then acts as the API key of its SMPP user:
 * every submit_sm is one /sms/send of one recipient, through the API's own pipeline
 * (authenticate, permissions, fields, request limits, singleSend), so nothing here
 * decides what may be sent. Receipts owed to a user are outbox rows written in the
 * transaction that accepts its submit; they go out as deliver_sm to its bound receivers and
 * transceivers (receipt-courier.ts). Concatenated parts are kept in the store
 * until the last, put together by assemblies.ts and sent as one /sms/send here; query_sm is answered from the account's
 * messages (query-sm.ts).
 *
 * One file, long because it is the PDU dispatch of one session, and every handler (bind,
 * submit and its parts, query_sm, close) reads and writes the same per-process state (the
 * sessions, the bound users, the receipt courier, the concatenation time-out); split, that state would be
 * passed around or made public for no reader's benefit.
 */
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Session } from 'smpp';
import { bodyFault, makePdu, ShortPduError, smpp, statusName, stringField } from '../smpp/smpp-wire.js';
import type { Pdu } from '../smpp/smpp-wire.js';
import type { Clock } from '../ports/clock.js';
import type { SmppService, SmppSessionState } from '../services/smpp/smpp-service.js';
import type { AssemblyPart } from '../services/smpp/concatenated-parts.js';
import type { SubmitTo } from '../services/smpp/owed-to-customers.js';
import type { Caller } from '../services/auth.js';
import { noSmppServerMetrics } from '../ports/metrics.js';
import type { SmppServerMetrics } from '../ports/metrics.js';
import type { Services } from '../services/services.js';
import { unusableHash, verifyPassword } from '../services/passwords.js';
import { smsSend, smsSendOverSmpp } from '../endpoints/sms.send.js';
import { permitted, runAdmitted } from '../endpoints/pipeline.js';
import { CustomerSession, SubmitRate } from './customer-session.js';
import { readSubmit, sendBody } from './submit-read.js';
import { assembleText, assembledSchedule } from './assemblies.js';
import { queryAnswer } from './query-sm.js';
import { CommandStatus, submitStatus } from './status-map.js';
import { storeFault } from '../util/store-faults.js';
import { BindGuesses } from '../services/smpp/bind-guesses.js';
import { Doors } from './doors.js';
import type { BindGuessPolicy } from '../services/smpp/bind-guesses.js';
import { ReceiptCourier } from './receipt-courier.js';

export interface SmppServerOptions {
  /** Its way to the store: its users, their binds, concatenated parts, what is owed to them (receipts and MO), failed binds, query_sm's read. */
  smpp: SmppService;
  services: Services;
  clock: Clock;
  log: Logger;
  /** A session silent this long is closed; an unbound connection after min(this, 30 s). */
  idleMs: number;
  /** How often owed receipts are looked for when nothing woke the courier (default 200 ms). */
  receiptPollMs?: number;
  /** How long a receipt sent is held unanswered before it may go out again (default twice the bind lease: 30 s). */
  receiptLeaseMs?: number;
  /** Owed receipts older than this are given up (default 72 hours). */
  receiptRetentionMs?: number;
  /** Binds, submits, receipts and sessions counted for /metrics. */
  metrics?: SmppServerMetrics;
  /** An unfinished concatenated message is given up this long after its first part (default 60 s). */
  assemblyTimeoutMs?: number;
  /**
   * How long a bind's row in the store outlives its process (serve's --lease-ms): a user's
   * max binds count the binds of every process, and a process that died stops counting
   * this long after its last renewal (default 15 s).
   */
  bindLeaseMs?: number;
  /** The limits on failed binds (default defaultBindGuessPolicy). */
  bindGuesses?: BindGuessPolicy;
  /** Open SMPP connections of the process, both ports together (default 1,000). */
  maxConnections?: number;
  /** Open SMPP connections from one peer address (default 50). */
  maxConnectionsPerAddress?: number;
}

/** Unfinished concatenated messages per SMPP user in this process before ESME_RMSGQFUL. */
const maxPendingAssemblies = 100;

/** submit_sm in processing per session before ESME_RMSGQFUL (the client's window is usually 10). */
const maxSubmitsInFlight = 100;

/** The answer to a body whose sm_length (message) or another length (command) runs past its end. */
const faultStatus = { message: CommandStatus.RINVMSGLEN, command: CommandStatus.RINVCMDLEN } as const;

/** Commands of SMPP 3.4 this server does not offer: answered with their _resp and ESME_RINVCMDID. */
const notOffered = new Set(['submit_multi', 'data_sm', 'cancel_sm', 'replace_sm', 'outbind']);

function bindTypeOf(b: { transmit: boolean; receive: boolean }): 'transmitter' | 'receiver' | 'transceiver' {
  return b.transmit && b.receive ? 'transceiver' : b.transmit ? 'transmitter' : 'receiver';
}

function peerOf(session: Session): string {
  const address = session.socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

export class SmppServer {
  private readonly doors: Doors;
  private readonly sessions = new Set<CustomerSession>();
  /** Bound sessions by SMPP user id (max binds, receipts). */
  private readonly byUser = new Map<number, Set<CustomerSession>>();
  private readonly receipts: ReceiptCourier;
  private readonly expiry: NodeJS.Timeout;
  private readonly leases: NodeJS.Timeout;
  private renewing: Promise<void> | null = null;
  /** This process as the store's bind rows name it. */
  private readonly process = `${hostname()}:${process.pid}`;
  private readonly bindLeaseMs: number;
  private expiring: Promise<void> | null = null;
  private stopping = false;
  private readonly metrics: SmppServerMetrics;
  private readonly guesses: BindGuesses;

  constructor(private readonly o: SmppServerOptions) {
    this.metrics = o.metrics ?? noSmppServerMetrics;
    this.guesses = new BindGuesses(o.smpp.bindAttempts, o.clock, o.bindGuesses);
    // A TLS handshake is given no longer than a bind (CustomerSession's bind timer), and 10 s at most.
    const doorLimits = {
      maxConnections: o.maxConnections ?? 1000,
      maxConnectionsPerAddress: o.maxConnectionsPerAddress ?? 50,
      handshakeMs: Math.min(10_000, o.idleMs, 30_000),
    };
    this.doors = new Doors(doorLimits, o.log, (socket: Socket) => this.accept(new smpp.Session({ socket })));
    this.bindLeaseMs = o.bindLeaseMs ?? 15_000;
    this.receipts = new ReceiptCourier({
      metrics: this.metrics,
      owed: o.smpp.owed,
      users: o.smpp,
      clock: o.clock,
      log: o.log,
      holder: this.process,
      pollMs: o.receiptPollMs ?? 200,
      leaseMs: o.receiptLeaseMs ?? 2 * this.bindLeaseMs,
      retentionMs: o.receiptRetentionMs ?? 72 * 3600_000,
      receivers: () => this.byUser,
    });
    const timeoutMs = o.assemblyTimeoutMs ?? 60_000;
    this.expiry = setInterval(
      () => {
        if (this.expiring) return;
        this.expiring = this.o.smpp.parts
          .expired(this.o.clock.now() - timeoutMs)
          .then((gone) => this.giveUp(gone))
          .catch((error: unknown) => this.o.log.warn({ err: error }, 'SMPP server: concatenated parts: store error'))
          .finally(() => (this.expiring = null));
      },
      Math.min(1000, timeoutMs),
    );
    this.expiry.unref();
    this.leases = setInterval(
      () => {
        if (this.renewing) return;
        const ids = this.boundIds();
        const now = this.o.clock.now();
        this.renewing = this.o.smpp.binds
          .renew(ids, now, now + this.bindLeaseMs)
          .catch((error: unknown) => this.o.log.warn({ err: error }, 'SMPP server: binds: the lease was not renewed'))
          .finally(() => (this.renewing = null));
      },
      Math.max(100, Math.floor(this.bindLeaseMs / 3)),
    );
    this.leases.unref();
  }

  private boundIds(): string[] {
    const ids: string[] = [];
    for (const sessions of this.byUser.values()) for (const s of sessions) if (s.bound) ids.push(s.bound.bindId);
    return ids;
  }

  /**
   * The sessions bound to every process of the cluster now (the store's live binds), those
   * held here with their counts, and the receipts owed to each one's user (the provider console).
   */
  async boundSessions(): Promise<SmppSessionState[]> {
    const here = new Map<string, CustomerSession>();
    for (const sessions of this.byUser.values()) for (const s of sessions) if (s.bound) here.set(s.bound.bindId, s);
    const binds = await this.o.smpp.binds.live(this.o.clock.now());
    const owed = new Map<number, number>();
    const users = new Set([...binds.map((b) => b.smppUserId), ...this.byUser.keys()]);
    for (const userId of users) owed.set(userId, await this.o.smpp.owed.receiptsDue(userId));
    const out: SmppSessionState[] = [];
    for (const s of here.values()) {
      const b = s.bound;
      if (!b) continue;
      out.push({
        systemId: b.user.systemId,
        accountId: b.user.accountId,
        peer: s.peer,
        bindType: bindTypeOf(b),
        since: b.since,
        process: this.process,
        here: true,
        submits: b.submits,
        unanswered: s.unanswered.size,
        owedReceipts: owed.get(b.user.id) ?? 0,
      });
    }
    for (const b of binds) {
      if (here.has(b.sessionId)) continue;
      out.push({
        systemId: b.systemId,
        accountId: b.accountId,
        peer: b.peer,
        bindType: b.bindType,
        since: b.boundAt,
        process: b.process,
        here: false,
        submits: null,
        unanswered: null,
        owedReceipts: owed.get(b.smppUserId) ?? 0,
      });
    }
    return out.sort((a, b) => a.systemId.localeCompare(b.systemId) || a.since - b.since);
  }

  /** Opens a listener (TLS with `tls`); resolves with its port. */
  async listen(where: { port: number; host: string; tls?: { key: Buffer; cert: Buffer } }): Promise<number> {
    const port = await this.doors.listen(where);
    this.receipts.start();
    return port;
  }

  /** Open SMPP connections, bound or not (both ports). */
  get connections(): number {
    return this.doors.count;
  }

  /**
   * Stops taking connections and closes at once every one not bound (a TLS handshake never
   * started among them), unbinds every session (waiting up to a second for the answers and
   * the submits in flight), stops the receipts.
   */
  async close(): Promise<void> {
    this.stopping = true;
    const doorsClosed = this.doors.close();
    for (const s of this.sessions) if (s.bound) s.send('unbind', {});
    const deadline = Date.now() + 1000;
    while ([...this.sessions].some((s) => s.bound || s.submitsInFlight > 0) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const ids = this.boundIds();
    for (const s of this.sessions) s.destroy();
    await doorsClosed;
    // Unfinished concatenated messages stay in the store: their parts may still come, here or elsewhere.
    clearInterval(this.expiry);
    clearInterval(this.leases);
    await this.renewing;
    // The binds end with the process: other processes may take them at once.
    await this.o.smpp.binds
      .release(ids)
      .catch((error: unknown) => this.o.log.warn({ err: error }, 'SMPP server: binds: not released at stop'));
    await this.expiring;
    await this.receipts.stop();
  }

  private accept(session: Session): void {
    const s = new CustomerSession(session, peerOf(session), this.o.idleMs, (why) => {
      this.o.log.info({ peer: s.peer, system_id: s.bound?.user.systemId, why }, 'SMPP server: session closed');
      s.destroy();
    });
    this.sessions.add(s);
    if (this.stopping) return s.destroy();
    session.on('error', (error: Error) => {
      // A command_length under the header's 16 bytes: nothing to answer (no sequence_number), the stream is lost.
      // A PDU the codec cannot read (too long, malformed): generic_nack, then the connection goes.
      if (!s.closed && !(error instanceof ShortPduError) && /PDU|length|out of range|buffer/i.test(error.message)) {
        session.send(makePdu('generic_nack', { command_status: CommandStatus.RINVCMDLEN }));
      }
      s.destroy();
    });
    session.on('close', () => this.gone(s));
    session.on('pdu', (pdu: Pdu) => {
      s.touch(() => s.destroy());
      if (pdu.isResponse()) return this.answered(s, pdu);
      // A length inside the body (sm_length, a TLV's) runs past it: refused, never acted on.
      const fault = bodyFault(pdu);
      if (fault !== null) {
        if (pdu.command === 'submit_sm') this.metrics.submit(statusName(faultStatus[fault]));
        return s.reply(pdu, { command_status: faultStatus[fault] });
      }
      void this.request(s, pdu).catch((error: unknown) => {
        // A store that could not be reached or did not answer, with nothing of the request
        // committed, is "again, later" (the API's 503): ESME_RTHROTTLED, which clients retry.
        // Anything else, a commit whose outcome is unknown among them, stays ESME_RSYSERR.
        const later = storeFault(error) !== null;
        this.o.log.error({ err: error, command: pdu.command }, 'SMPP server: a request failed');
        s.reply(pdu, { command_status: later ? CommandStatus.RTHROTTLED : CommandStatus.RSYSERR });
      });
    });
  }

  private gone(s: CustomerSession): void {
    s.closed = true;
    s.stopTimers();
    this.sessions.delete(s);
    if (s.bound) {
      const mine = this.byUser.get(s.bound.user.id);
      mine?.delete(s);
      if (mine?.size === 0) this.byUser.delete(s.bound.user.id);
      this.metrics.sessions(this.boundCount());
      if (!this.stopping)
        void this.o.smpp.binds
          .release([s.bound.bindId])
          .catch((error: unknown) =>
            this.o.log.warn({ err: error }, 'SMPP server: binds: not released (it runs out with its lease)'),
          );
    }
    this.receipts.release(s);
  }

  private boundCount(): number {
    let n = 0;
    for (const sessions of this.byUser.values()) n += sessions.size;
    return n;
  }

  private answered(s: CustomerSession, pdu: Pdu): void {
    if (pdu.command === 'deliver_sm_resp') this.receipts.answered(s, pdu.sequence_number, pdu.command_status);
    else if (pdu.command === 'unbind_resp') s.close();
  }

  private async request(s: CustomerSession, pdu: Pdu): Promise<void> {
    switch (pdu.command) {
      case 'bind_transmitter':
      case 'bind_receiver':
      case 'bind_transceiver':
        return this.bind(s, pdu);
      case 'enquire_link':
        return s.reply(pdu);
      case 'unbind':
        s.reply(pdu);
        return s.close();
      case 'submit_sm':
        return this.submit(s, pdu);
      case 'query_sm':
        return this.query(s, pdu);
      case 'unknown':
        // An unknown command_id: generic_nack ESME_RINVCMDID (the codec's response() makes it).
        return s.reply(pdu);
      default:
        return s.reply(pdu, {
          command_status: notOffered.has(pdu.command) || s.bound ? CommandStatus.RINVCMDID : CommandStatus.RINVBNDSTS,
        });
    }
  }

  private async bind(s: CustomerSession, pdu: Pdu): Promise<void> {
    if (s.bound || s.binding) return s.reply(pdu, { command_status: CommandStatus.RALYBND });
    s.binding = true;
    try {
      const status = await this.checkBind(s, pdu);
      this.metrics.bind(status === CommandStatus.ROK ? 'bound' : statusName(status));
      if (status === CommandStatus.ROK) this.metrics.sessions(this.boundCount());
      if (status !== CommandStatus.ROK) {
        this.o.log.info(
          { peer: s.peer, system_id: stringField(pdu, 'system_id'), command_status: status },
          'SMPP server: bind refused',
        );
        // A failed bind ends the connection: each guess costs a new one (under the caps).
        s.reply(pdu, { command_status: status });
        return s.end();
      }
      s.reply(pdu, { system_id: 'haberci' });
    } finally {
      s.binding = false;
    }
  }

  /** Checks a bind and, when it passes, binds the session; answers the command_status. */
  private async checkBind(s: CustomerSession, pdu: Pdu): Promise<number> {
    const systemId = stringField(pdu, 'system_id') ?? '';
    const password = stringField(pdu, 'password') ?? '';
    const found = await this.o.smpp.credentials(systemId);
    // Counted in the store before the hash: past a limit the password is not evaluated.
    const reserved = await this.guesses.reserve(systemId, s.peer, found?.user.maxBinds ?? 0);
    if (reserved === null) {
      this.o.log.warn(
        { peer: s.peer, system_id: systemId },
        'SMPP server: bind refused unchecked: too many failed binds',
      );
      return CommandStatus.RBINDFAIL;
    }
    // The password is checked even for an unknown system_id, so timing does not tell them apart.
    const matches = await verifyPassword(password, found?.passwordHash ?? unusableHash);
    if (!found || found.user.disabledAt !== null) return CommandStatus.RINVSYSID;
    if (!matches) return CommandStatus.RINVPASWD;
    await reserved.giveBack();
    const auth = await this.o.services.auth.authenticate('', s.peer, found.keyHash);
    if (!auth.ok) return CommandStatus.RBINDFAIL;
    const mine = this.byUser.get(found.user.id) ?? new Set<CustomerSession>();
    if (mine.size >= found.user.maxBinds || s.closed) return CommandStatus.RBINDFAIL;
    // The user's max binds count every process's binds: the store holds them, with leases.
    const bindId = randomUUID();
    const now = this.o.clock.now();
    const transmit = pdu.command !== 'bind_receiver';
    const receive = pdu.command !== 'bind_transmitter';
    const claimed = await this.o.smpp.binds.take(
      {
        sessionId: bindId,
        smppUserId: found.user.id,
        accountId: found.user.accountId,
        systemId: found.user.systemId,
        process: this.process,
        peer: s.peer,
        bindType: bindTypeOf({ transmit, receive }),
        boundAt: now,
      },
      found.user.maxBinds,
      now,
      now + this.bindLeaseMs,
    );
    if (!claimed) return CommandStatus.RBINDFAIL;
    // Closed while the store answered, or another bind of this process took the last place meanwhile.
    if (s.closed || mine.size >= found.user.maxBinds) {
      await this.o.smpp.binds.release([bindId]);
      return CommandStatus.RBINDFAIL;
    }
    mine.add(s);
    this.byUser.set(found.user.id, mine);
    this.doors.markBound(s.session.socket);
    s.markBound({
      bindId,
      user: found.user,
      keyHash: found.keyHash,
      transmit,
      receive,
      rate: new SubmitRate(found.user.maxSubmitsPerSecond, this.o.clock.now()),
      since: this.o.clock.now(),
      submits: 0,
    });
    this.o.log.info({ peer: s.peer, system_id: systemId, command: pdu.command }, 'SMPP server: bound');
    return CommandStatus.ROK;
  }

  private async submit(s: CustomerSession, pdu: Pdu): Promise<void> {
    const refuse = (status: number): void => {
      this.metrics.submit(statusName(status));
      s.reply(pdu, { command_status: status });
    };
    const bound = s.bound;
    if (!bound?.transmit) return refuse(CommandStatus.RINVBNDSTS);
    if (!bound.rate.take(this.o.clock.now())) return refuse(CommandStatus.RTHROTTLED);
    if (s.submitsInFlight >= maxSubmitsInFlight) return refuse(CommandStatus.RMSGQFUL);
    const read = readSubmit(pdu, this.o.clock.now());
    if (!read.ok) return refuse(read.status);
    s.submitsInFlight++;
    const answering: string[] = [];
    try {
      const caller = await this.caller(s);
      if (!caller.ok) return refuse(caller.status);
      const request = read.request;
      const to = { sourceAddr: request.sourceAddr, recipient: request.body.sentto };
      let text = request.body.text;
      let scheduledAt = request.scheduledAt;
      let others: AssemblyPart[] = [];
      if (request.part) {
        const { part } = request;
        const added = await this.o.smpp.parts.add(
          {
            smppUserId: bound.user.id,
            sourceAddr: request.sourceAddr,
            destination: request.body.sentto,
            dataCoding: part.dataCoding,
            reference: part.reference,
            total: part.total,
            seq: part.seq,
            payload: part.payload,
            turkish: part.table === 'turkish',
            receipt: request.receipt,
            receivedAt: this.o.clock.now(),
            scheduledAt: request.scheduledAt,
          },
          maxPendingAssemblies,
        );
        if (added.kind === 'full') return refuse(CommandStatus.RMSGQFUL);
        if (added.kind === 'pending') {
          this.metrics.submit(statusName(CommandStatus.ROK));
          bound.submits++;
          return s.reply(pdu, { message_id: added.partId });
        }
        text = assembleText(added.parts);
        scheduledAt = assembledSchedule(added.parts);
        others = added.parts.filter((p) => p.seq !== part.seq);
      }
      const body = sendBody(request, text, scheduledAt, this.o.clock.now());
      // The receipts owed, written in the transaction that accepts the message; until it is
      // answered here, the courier gives them back rather than send them before the message_id.
      const keptFrom = scheduledAt ?? 0;
      const owe = this.o.smpp.owed.withSubmit({
        smppUserId: bound.user.id,
        to,
        receipt: request.receipt,
        others,
        keptFrom,
        clock: this.o.clock,
        accepting: (messageId) => {
          answering.push(messageId);
          this.receipts.answering.add(messageId);
        },
      });
      const result = await runAdmitted(smsSendOverSmpp(owe), body, caller.value, this.o.services);
      if (!result.ok) {
        const status = submitStatus(result);
        refuse(status);
        // Refused for now: the client sends this part again, and the others wait for it.
        if (status === CommandStatus.RTHROTTLED && others.length > 0 && (await this.o.smpp.parts.restore(others)))
          return;
        // The parts answered before are not a message: their receipts say REJECTD.
        return await this.oweRejected(bound.user.id, to, others);
      }
      const messageId = Number(result.value.fields?.sms_id);
      this.metrics.submit(statusName(CommandStatus.ROK));
      bound.submits++;
      s.reply(pdu, { message_id: String(messageId) });
    } finally {
      s.submitsInFlight--;
      for (const id of answering) this.receipts.answering.delete(id);
    }
  }

  /** The bound key as the API's caller of /sms/send, checked again at every submit (it may have changed since the bind). */
  private async caller(s: CustomerSession): Promise<{ ok: true; value: Caller } | { ok: false; status: number }> {
    const bound = s.bound;
    if (!bound) return { ok: false, status: CommandStatus.RINVBNDSTS };
    const auth = await this.o.services.auth.authenticate('', s.peer, bound.keyHash);
    if (!auth.ok) return { ok: false, status: submitStatus(auth) };
    const caller = permitted(smsSend, auth.value);
    if (!caller.ok) return { ok: false, status: submitStatus(caller) };
    return { ok: true, value: caller.value };
  }

  /** The parts of a concatenated message that never made one (given up, or refused): their receipts say REJECTD. */
  private async oweRejected(smppUserId: number, to: SubmitTo, parts: readonly AssemblyPart[]): Promise<void> {
    await this.o.smpp.owed
      .rejectedParts(smppUserId, to, parts, this.o.clock.now())
      .catch((error: unknown) =>
        this.o.log.error({ err: error }, 'SMPP server: the receipts owed for parts were not recorded'),
      );
  }

  /** Concatenated messages not complete in time: logged, and their parts' receipts say REJECTD. */
  private async giveUp(assemblies: AssemblyPart[][]): Promise<void> {
    for (const parts of assemblies) {
      const first = parts[0];
      if (!first) continue;
      this.o.log.warn(
        { smpp_user_id: first.smppUserId, parts: parts.length, total: first.total },
        'SMPP server: a concatenated message was given up: its parts did not all come in time',
      );
      this.metrics.submit('assembly_given_up');
      const to = { sourceAddr: first.sourceAddr, recipient: first.destination };
      await this.oweRejected(first.smppUserId, to, parts);
    }
  }

  /** query_sm: the state of one of the account's messages by the message_id of its submit_sm_resp. */
  private async query(s: CustomerSession, pdu: Pdu): Promise<void> {
    if (!s.bound?.transmit) return s.reply(pdu, { command_status: CommandStatus.RINVBNDSTS });
    const caller = await this.caller(s);
    if (!caller.ok) return s.reply(pdu, { command_status: caller.status });
    const id = stringField(pdu, 'message_id') ?? '';
    const message = /^\d{1,15}$/.test(id) ? await this.o.smpp.findMessage(Number(id), caller.value.account.id) : null;
    s.reply(pdu, queryAnswer(id, message));
  }
}
