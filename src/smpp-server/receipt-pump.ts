/**
 * Receipts back to customers: every `pollMs`, for each SMPP user with a receiver or
 * transceiver bound here, the receipts owed to it (store.smpp.owed: messages accepted over
 * SMPP with registered_delivery, now final, not yet acknowledged; store.smpp.owedParts: the
 * other parts of concatenated submits, each under its own message_id) and then its
 * account's inbound (MO) messages not yet given over SMPP (store.smpp.owedMo) go out as
 * deliver_sm, oldest first, as far as the sessions' windows allow. Everything sent is
 * known by a key: `r:<sms_id>`, `p:<part id>`, `m:<account>:<inbound id>`. A receipt is acknowledged in the
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
import { moPdu, receiptPdu } from './receipt-pdu.js';
import type { PduOptions } from '../smpp/smpp-wire.js';

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
  private readonly inFlight = new Map<string, InFlight>();
  private acks: string[] = [];
  private lastDisabledCheck = 0;
  private lastRetention = 0;
  /**
   * Per account, the id below which every inbound message was acknowledged at the last look.
   * Forgotten every minute: an id handed out before and committed after a look (another
   * process's) is then found, a minute late rather than never.
   */
  private readonly moFloor = new Map<number, number>();

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
    const key = session.unanswered.get(sequence);
    if (key === undefined) return;
    session.unanswered.delete(sequence);
    const flight = this.inFlight.get(key);
    if (status === 0 || status === permanentAppError) {
      this.inFlight.delete(key);
      this.acks.push(key);
    } else if (flight) {
      // Kept in flight (not looked for again) until its retry time.
      flight.until = this.o.clock.now() + retryAfterMs;
      flight.sequence = -1;
    }
  }

  /** The session closed: what it did not answer goes out again at the next tick. */
  release(session: CustomerSession): void {
    for (const key of session.unanswered.values()) this.inFlight.delete(key);
    session.unanswered.clear();
  }

  private async tick(): Promise<void> {
    const now = this.o.clock.now();
    for (const [key, flight] of this.inFlight)
      if (flight.until <= now) {
        this.inFlight.delete(key);
        if (flight.sequence >= 0) flight.session.unanswered.delete(flight.sequence);
      }
    await this.flushAcks();
    for (const [userId, sessions] of this.o.receivers()) await this.send(userId, [...sessions], now);
    if (now - this.lastDisabledCheck >= disabledCheckMs) await this.closeDisabled(now);
    if (now - this.lastRetention >= retentionCheckMs) {
      this.lastRetention = now;
      this.moFloor.clear();
      const removed = await this.o.store.removeBefore(now - this.o.retentionMs);
      if (removed > 0) this.o.log.warn({ removed }, 'SMPP server: receipts never acknowledged were given up');
    }
  }

  private async send(userId: number, sessions: CustomerSession[], now: number): Promise<void> {
    let room = sessions.reduce((sum, s) => sum + Math.max(0, s.room), 0);
    const user = sessions[0]?.bound?.user;
    if (room === 0 || !user) return;
    const want = room + this.inFlight.size;
    const items: { key: string; pdu: () => PduOptions }[] = [];
    for (const r of await this.o.store.owed(userId, want))
      items.push({ key: `r:${r.messageId}`, pdu: () => receiptPdu(r) });
    if (items.length < want)
      for (const r of await this.o.store.owedParts(userId, want))
        items.push({ key: `p:${r.partId}`, pdu: () => receiptPdu(r, r.partId) });
    if (items.length < want) {
      const since = Math.max(user.createdAt, now - this.o.retentionMs);
      const owedMo = await this.o.store.owedMo(user.accountId, since, this.moFloor.get(user.accountId) ?? 0, want);
      // Every inbound message below the oldest owed one was acknowledged: later looks start there.
      if (owedMo[0]) this.moFloor.set(user.accountId, owedMo[0].id);
      for (const m of owedMo) items.push({ key: `m:${user.accountId}:${m.id}`, pdu: () => moPdu(m) });
    }
    for (const item of items) {
      if (room === 0) break;
      if (this.inFlight.has(item.key)) continue;
      const session = sessions.reduce((best, s) => (s.room > best.room ? s : best));
      if (session.room <= 0) break;
      const sequence = session.send('deliver_sm', item.pdu());
      if (sequence === 0) continue;
      session.unanswered.set(sequence, item.key);
      this.inFlight.set(item.key, { session, sequence, until: now + resendMs });
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
    const receipts: number[] = [];
    const parts: string[] = [];
    const mo: { inboundId: number; accountId: number }[] = [];
    for (const key of acks) {
      const [kind, a = '', b = ''] = key.split(':');
      if (kind === 'r') receipts.push(Number(a));
      else if (kind === 'p') parts.push(key.slice(2));
      else mo.push({ accountId: Number(a), inboundId: Number(b) });
    }
    try {
      const now = this.o.clock.now();
      await this.o.store.acknowledged(receipts, now);
      await this.o.store.partsAcknowledged(parts, now);
      await this.o.store.moAcknowledged(mo, now);
      this.o.metrics.receiptAcknowledged(receipts.length + parts.length);
    } catch (error) {
      this.acks.push(...acks);
      throw error;
    }
  }
}
