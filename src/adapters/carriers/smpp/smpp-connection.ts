import { SubmitGate } from './flow-control.js';
import type { SmppConnectionConfig } from './smpp-config.js';
import { SmppLink } from './smpp-link.js';
import type { BindCommand, Reply, SmppLog } from './smpp-link.js';
import { Status, statusName, stringField } from '../../../smpp/smpp-wire.js';
import type { Pdu, PduOptions } from '../../../smpp/smpp-wire.js';
import type { ConnectionMetrics } from '../../../ports/metrics.js';
import { senderOnWire } from '../../../domain/sender-title.js';
import { noConnectionMetrics } from '../../../ports/metrics.js';

/** Parts whose receipt is awaited for the receipt-lag metric, at most; the oldest are forgotten first. */
const awaitedCap = 100_000;
/** Recent errors a connection keeps for the provider's console. */
const recentErrorsKept = 5;

/** A connection's error, for the provider's console: when, and what (a status name, or a lost session). */
export interface ConnectionError {
  at: number;
  what: string;
}

/**
 * One configured SMSC account: a transceiver link, or a transmitter link for submits
 * plus a receiver link for deliver_sm. Submits go through the connection's window and
 * pacing gate.
 */

/**
 * accepted: submit_sm_resp OK. status: the SMSC refused with this command_status.
 * lost: the session ended or the resp did not come in time; the SMSC may still have the
 * message. unavailable: not bound, or no window slot before the deadline; nothing sent.
 */
export type PartResult =
  | { kind: 'accepted'; messageId: string }
  | { kind: 'status'; status: number }
  | { kind: 'lost'; why: 'dropped' | 'timeout' }
  | { kind: 'unavailable' };

export class SmppConnection {
  private readonly links: { submit: SmppLink; all: SmppLink[] };
  private readonly gate: SubmitGate;
  /** submit_sm answered OK since start. */
  submits = 0;
  /** The last few refusals and lost sessions, newest last. */
  readonly recentErrors: ConnectionError[] = [];
  /** When each accepted part's submit was answered (performance.now()), by carrier message id; null when not counted. */
  private readonly awaited: Map<string, number> | null;
  /**
   * Whether this process may bind now: always alone; in a cluster, while it holds a lease of
   * one of the connection's places (BindLeases). Cleared before the bind is closed, so not
   * one submit goes out once the lease is in doubt.
   */
  private leased = true;

  constructor(
    readonly config: SmppConnectionConfig,
    private readonly submitTimeoutMs: number,
    onRequest: (pdu: Pdu, reply: Reply) => void,
    log: SmppLog,
    /** Told when the link that takes submits binds or loses its bind (isBound changed). */
    onBoundChange: () => void = () => undefined,
    private readonly metrics: ConnectionMetrics = noConnectionMetrics,
    /** Told when the SMSC said throttled or queue full (the cluster's rate is cut too). */
    private readonly onThrottled: () => void = () => undefined,
  ) {
    this.awaited = metrics === noConnectionMetrics ? null : new Map();
    const boundChanged = (bound: boolean): void => {
      metrics.bound(bound);
      if (!bound) this.noteError('session lost');
      onBoundChange();
    };
    const make = (bind: BindCommand, submits: boolean): SmppLink =>
      new SmppLink({
        ...config,
        bind,
        log,
        onRequest,
        name: `${config.name}/${bind.slice(5)}`,
        ...(submits ? { onBoundChange: boundChanged } : {}),
      });
    if (config.bindMode === 'transceiver') {
      const link = make('bind_transceiver', true);
      this.links = { submit: link, all: [link] };
    } else {
      const submit = make('bind_transmitter', true);
      this.links = { submit, all: [submit, make('bind_receiver', false)] };
    }
    this.gate = new SubmitGate(config.windowSize, config.maxSubmitsPerSecond);
  }

  get name(): string {
    return this.config.name;
  }

  get prefixes(): string[] | undefined {
    return this.config.prefixes;
  }

  /** Able to take submits now. */
  get isBound(): boolean {
    return this.leased && this.links.submit.isBound;
  }

  /** In a cluster: binds only once `standUp()` says a lease is held. */
  waitForLease(): void {
    this.leased = false;
  }

  /** A lease of the connection is held: bind. */
  standUp(): void {
    this.leased = true;
    this.metrics.held?.(true);
    this.start();
  }

  /** The lease is lost or in doubt: no submit from now on, and the bind closed within `withinMs`. */
  async standDown(withinMs: number): Promise<void> {
    this.leased = false;
    this.metrics.held?.(false);
    await Promise.all(this.links.all.map((link) => link.stop(withinMs)));
  }

  /** In a cluster: no submit before `at` (epoch ms; SubmitGate.holdUntil). */
  holdSubmitsUntil(at: number): void {
    this.gate.holdUntil(at);
  }

  /** In a cluster: this bind's share of the connection's rate (SubmitGate.follow). */
  followRate(share: number): void {
    this.gate.follow(share);
  }

  get inFlight(): number {
    return this.gate.pending;
  }

  /** Submits per second now (below the configured rate while the SMSC has been refusing). */
  get rate(): number {
    return this.gate.rate;
  }

  /** A receipt came for `carrierMessageId`: its lag is counted if this connection submitted it. */
  receiptFor(carrierMessageId: string): boolean {
    const at = this.awaited?.get(carrierMessageId);
    if (at === undefined) return false;
    this.awaited?.delete(carrierMessageId);
    this.metrics.receiptLag((performance.now() - at) / 1000);
    return true;
  }

  private noteError(what: string): void {
    this.recentErrors.push({ at: Date.now(), what });
    if (this.recentErrors.length > recentErrorsKept) this.recentErrors.shift();
  }

  get windowSize(): number {
    return this.config.windowSize;
  }

  start(): void {
    if (!this.leased) return;
    for (const link of this.links.all) link.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.links.all.map((link) => link.stop()));
  }

  /** One submit_sm, waiting for a window and pacing slot until `deadline` (epoch ms). */
  /** An alphanumeric sender ID (TON 5) written as this connection's `senderIdEncoding` says. */
  private onThisLink(options: PduOptions): PduOptions {
    const source = options.source_addr;
    if (options.source_addr_ton !== 5 || typeof source !== 'string') return options;
    return { ...options, source_addr: Buffer.from(senderOnWire(source, this.config.senderIdEncoding)) };
  }

  async submit(options: PduOptions, deadline: number): Promise<PartResult> {
    if (!this.isBound) return { kind: 'unavailable' };
    if (!(await this.gate.acquire(deadline))) return { kind: 'unavailable' };
    try {
      // The link may have dropped while we waited for a slot.
      if (!this.isBound) return { kind: 'unavailable' };
      const result = await this.links.submit.request('submit_sm', this.onThisLink(options), this.submitTimeoutMs);
      if (result.kind !== 'resp') {
        this.noteError(`submit_sm ${result.kind === 'timeout' ? 'timed out' : 'lost'}`);
        return { kind: 'lost', why: result.kind };
      }
      const status = result.pdu.command_status;
      if (status === Status.THROTTLED || status === Status.MSGQFUL) {
        this.gate.slowDown();
        this.onThrottled();
      }
      if (status !== Status.OK) {
        const name = statusName(status);
        this.metrics.refused(name);
        this.noteError(name);
        return { kind: 'status', status };
      }
      const messageId = stringField(result.pdu, 'message_id') ?? '';
      this.gate.speedUp();
      this.submits += 1;
      this.metrics.submitted();
      if (this.awaited !== null) {
        if (this.awaited.size >= awaitedCap) this.awaited.delete(this.awaited.keys().next().value as string);
        this.awaited.set(messageId, performance.now());
      }
      return { kind: 'accepted', messageId };
    } finally {
      this.gate.release();
    }
  }
}
