/**
 * One customer's SMPP connection: its bind state, its per-bind submit rate, its idle and
 * bind timers, and the deliver_sm it has not answered yet. What a PDU does is the server's
 * (smpp-server.ts); this class keeps the state and writes the answers.
 */
import type { Session } from 'smpp';
import { makePdu } from '../smpp/smpp-wire.js';
import type { Pdu, PduOptions } from '../smpp/smpp-wire.js';
import type { SmppUser } from '../services/smpp/smpp-service.js';

/** A token bucket of `perSecond` submits a second, holding at most one second's worth. */
export class SubmitRate {
  private tokens: number;
  private at: number;

  constructor(
    private readonly perSecond: number,
    now: number,
  ) {
    this.tokens = perSecond;
    this.at = now;
  }

  take(now: number): boolean {
    if (this.perSecond <= 0) return true;
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export interface Bound {
  /** The bind's row in the store (the cluster's count of the user's binds). */
  bindId: string;
  user: SmppUser;
  keyHash: string;
  transmit: boolean;
  receive: boolean;
  rate: SubmitRate;
  since: number;
  /** submit_sm accepted since the bind. */
  submits: number;
}

export class CustomerSession {
  bound: Bound | null = null;
  /** A bind is being checked: other PDUs wait for its answer's outcome. */
  binding = false;
  /** submit_sm being processed. */
  submitsInFlight = 0;
  /** deliver_sm sent and not answered, by sequence_number: the key of what each carries (receipt-courier.ts). */
  readonly unanswered = new Map<number, string>();
  closed = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private bindTimer: NodeJS.Timeout | null;

  constructor(
    readonly session: Session,
    readonly peer: string,
    private readonly idleMs: number,
    onIdle: (why: string) => void,
  ) {
    // A bind being checked (scrypt) is given its answer first.
    this.bindTimer = setInterval(
      () => {
        if (!this.binding) onIdle('not bound in time');
      },
      Math.min(idleMs, 30_000),
    );
    this.bindTimer.unref();
    this.touch(onIdle);
  }

  /** Something arrived: the idle timer starts again. */
  touch(onIdle: (why: string) => void): void {
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => onIdle('idle'), this.idleMs);
      this.idleTimer.unref();
    }
  }

  markBound(bound: Bound): void {
    this.bound = bound;
    if (this.bindTimer) clearInterval(this.bindTimer);
    this.bindTimer = null;
  }

  /** Free room of the deliver_sm window (0 when not bound as a receiver). */
  get room(): number {
    return this.bound?.receive && !this.closed ? this.bound.user.windowSize - this.unanswered.size : 0;
  }

  reply(pdu: Pdu, options: PduOptions = {}): void {
    if (!this.closed) this.session.send(pdu.response(options));
  }

  /** Sends a request PDU; answers its sequence_number (0 when the socket is gone). */
  send(command: string, options: PduOptions): number {
    if (this.closed) return 0;
    const pdu = makePdu(command, options);
    return this.session.send(pdu) ? pdu.sequence_number : 0;
  }

  close(): void {
    this.stopTimers();
    this.session.close();
  }

  /** Ends the connection after what was written (a refused bind's answer); a client that does not close is cut 2 s later. */
  end(): void {
    this.close();
    setTimeout(() => this.destroy(), 2000).unref();
  }

  destroy(): void {
    this.stopTimers();
    this.session.destroy();
  }

  stopTimers(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.bindTimer) clearInterval(this.bindTimer);
    this.idleTimer = null;
    this.bindTimer = null;
  }
}
