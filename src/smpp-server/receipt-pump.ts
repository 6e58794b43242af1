/**
 * Receipts back to customers: every `pollMs`, for each SMPP user with a receiver or
 * transceiver bound here, the receipts owed to it (store.smpp.owed: messages accepted over
 * SMPP with registered_delivery, now final, not yet acknowledged) go out as deliver_sm,
 * oldest first, as far as the sessions' windows allow. A receipt is acknowledged in the
 * store only by a deliver_sm_resp; one unanswered for `resendMs`, or whose session closed,
 * goes out again, so a receipt for a user not bound waits in the store until it binds (up
 * to the retention limit). The store is the queue: several processes may each hold a
 * session of one user, and a receipt may then reach the client twice (docs/smpp.md).
 */
import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.js';
import type { SmppStore } from '../ports/smpp-store.js';
import type { SmppServerMetrics } from '../ports/metrics.js';
import type { CustomerSession } from './customer-session.js';
import { receiptPdu } from './receipt-pdu.js';

export interface ReceiptPumpOptions {
  store: SmppStore;
  clock: Clock;
  log: Logger;
  metrics: SmppServerMetrics;
  pollMs: number;
  retentionMs: number;
  /** Bound sessions by SMPP user id. */
  receivers(): ReadonlyMap<number, ReadonlySet<CustomerSession>>;
}

/** A receipt sent and not answered. */
interface InFlight {
  session: CustomerSession;
  sequence: number;
  /** When it may go out again if still unanswered. */
  until: number;
}

const resendMs = 30_000;
/** A receipt refused by the client as temporary (ESME_RX_T_APPN, ...) is tried again after this. */
const retryAfterMs = 5_000;
/** deliver_sm_resp status by which the client gives a receipt up: it counts as answered. */
const permanentAppError = 0x65;
const disabledCheckMs = 2_000;
const retentionCheckMs = 60_000;

export class ReceiptPump {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly inFlight = new Map<number, InFlight>();
  private acks: number[] = [];
  private lastDisabledCheck = 0;
  private lastRetention = 0;

  constructor(private readonly o: ReceiptPumpOptions) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((error: unknown) => this.o.log.warn({ err: error }, 'SMPP server: receipts: store error; retrying'))
        .finally(() => (this.running = null));
    }, this.o.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.flushAcks();
  }

  /** A deliver_sm_resp arrived. */
  answered(session: CustomerSession, sequence: number, status: number): void {
    const messageId = session.unanswered.get(sequence);
    if (messageId === undefined) return;
    session.unanswered.delete(sequence);
    const flight = this.inFlight.get(messageId);
    if (status === 0 || status === permanentAppError) {
      this.inFlight.delete(messageId);
      this.acks.push(messageId);
    } else if (flight) {
      // Kept in flight (not looked for again) until its retry time.
      flight.until = this.o.clock.now() + retryAfterMs;
      flight.sequence = -1;
    }
  }

  /** The session closed: what it did not answer goes out again at the next tick. */
  release(session: CustomerSession): void {
    for (const messageId of session.unanswered.values()) this.inFlight.delete(messageId);
    session.unanswered.clear();
  }

  private async tick(): Promise<void> {
    const now = this.o.clock.now();
    for (const [messageId, flight] of this.inFlight)
      if (flight.until <= now) {
        this.inFlight.delete(messageId);
        if (flight.sequence >= 0) flight.session.unanswered.delete(flight.sequence);
      }
    await this.flushAcks();
    for (const [userId, sessions] of this.o.receivers()) await this.send(userId, [...sessions], now);
    if (now - this.lastDisabledCheck >= disabledCheckMs) await this.closeDisabled(now);
    if (now - this.lastRetention >= retentionCheckMs) {
      this.lastRetention = now;
      const removed = await this.o.store.removeBefore(now - this.o.retentionMs);
      if (removed > 0) this.o.log.warn({ removed }, 'SMPP server: receipts never acknowledged were given up');
    }
  }

  private async send(userId: number, sessions: CustomerSession[], now: number): Promise<void> {
    let room = sessions.reduce((sum, s) => sum + Math.max(0, s.room), 0);
    if (room === 0) return;
    const owed = await this.o.store.owed(userId, room + this.inFlight.size);
    for (const receipt of owed) {
      if (room === 0) break;
      if (this.inFlight.has(receipt.messageId)) continue;
      const session = sessions.reduce((best, s) => (s.room > best.room ? s : best));
      if (session.room <= 0) break;
      const sequence = session.send('deliver_sm', receiptPdu(receipt));
      if (sequence === 0) continue;
      session.unanswered.set(sequence, receipt.messageId);
      this.inFlight.set(receipt.messageId, { session, sequence, until: now + resendMs });
      room--;
    }
  }

  /** A user disabled since it bound: its sessions are unbound. */
  private async closeDisabled(now: number): Promise<void> {
    this.lastDisabledCheck = now;
    for (const [userId, sessions] of this.o.receivers()) {
      const user = await this.o.store.getUser(userId);
      if (user && user.disabledAt === null) continue;
      for (const s of sessions) {
        s.send('unbind', {});
        s.close();
      }
    }
  }

  private async flushAcks(): Promise<void> {
    if (this.acks.length === 0) return;
    const acks = this.acks;
    this.acks = [];
    try {
      await this.o.store.acknowledged(acks, this.o.clock.now());
      this.o.metrics.receiptAcknowledged(acks.length);
    } catch (error) {
      this.acks.push(...acks);
      throw error;
    }
  }
}
