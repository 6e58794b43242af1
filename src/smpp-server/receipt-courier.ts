/**
 * Receipts and MO back to customers: the consumer of the outbox's `smpp.*` rows (the SMPP
 * server's own, started and stopped with its sessions: not a row of the job table,
 * docs/decisions.md, "The job table"). For each SMPP user with a receiver or transceiver
 * bound here, it claims the receipts due to it (the outbox rows of its submits whose
 * message is final, and of its concatenated parts) and then its account's inbound messages,
 * as many as the sessions' windows have room for, with a lease in the store (`--lease-ms`
 * twice: 30 s by default), and sends them as deliver_sm, oldest first. A row is done (and
 * deleted) only on deliver_sm_resp 0 (or 0x65); a temporary refusal holds it for 5 s; a
 * session that closes gives its rows back at once; a row whose lease runs out (its process
 * died, or the client never answered) is due again for any process with a session of that
 * user. Several processes may each hold a session of one user: the lease gives a row to one
 * of them at a time, and a receipt reaches the client twice only when its answer came after
 * the lease ran out (docs/smpp.md).
 *
 * The rows are written in the transaction that accepts the submit (or receives the MO), so
 * a crash after the submit_sm_resp loses none. A receipt whose submit this process is still
 * answering is given back, not sent: it never reaches the client before the message_id it matches.
 */
import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.js';
import type { OutboxKind, OutboxLease, OwedToCustomers } from '../services/smpp/owed-to-customers.js';
import type { SmppService } from '../services/smpp/smpp-service.js';
import type { SmppServerMetrics } from '../ports/metrics.js';
import type { CustomerSession } from './customer-session.js';
import { moPdu, receiptPdu } from './receipt-pdu.js';
import type { PduOptions } from '../smpp/smpp-wire.js';

export interface ReceiptCourierOptions {
  owed: OwedToCustomers;
  users: Pick<SmppService, 'getUser'>;
  clock: Clock;
  log: Logger;
  metrics: SmppServerMetrics;
  /** This process as the outbox's `holder` names it. */
  holder: string;
  /** How often due rows are looked for when nothing woke the courier (other processes' commits). */
  pollMs: number;
  /** How long a row sent is held unanswered before it may go out again. */
  leaseMs: number;
  retentionMs: number;
  /** Bound sessions by SMPP user id. */
  receivers(): ReadonlyMap<number, ReadonlySet<CustomerSession>>;
}

/** A deliver_sm sent here and not answered: the session's window holds its place until its lease runs out. */
interface Sent {
  session: CustomerSession;
  sequence: number;
  until: number;
}

/** A receipt refused by the client as temporary (ESME_RX_T_APPN, ...) is tried again after this. */
const retryAfterMs = 5_000;
/** deliver_sm_resp status by which the client gives a receipt up: it counts as answered. */
const permanentAppError = 0x65;
const disabledCheckMs = 2_000;
const retentionCheckMs = 60_000;
const kinds: readonly OutboxKind[] = ['smpp.receipt', 'smpp.part-receipt', 'smpp.mo'];

export class ReceiptCourier {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly sent = new Map<number, Sent>();
  private done: number[] = [];
  private receiptsDone = 0;
  private held: number[] = [];
  private released: number[] = [];
  private lastDisabledCheck = 0;
  private lastRetention = 0;
  /** The message ids of submits this process has accepted and not yet answered. */
  readonly answering = new Set<string>();

  constructor(private readonly o: ReceiptCourierOptions) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.wake(), this.o.pollMs);
    this.timer.unref();
  }

  /** Looks for due rows now (a bind, an answer): at most one round at a time. */
  wake(): void {
    if (this.running || !this.timer) return;
    this.running = this.tick()
      .catch((error: unknown) => this.o.log.warn({ err: error }, 'SMPP server: receipts: store error; retrying'))
      .finally(() => (this.running = null));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    for (const session of new Set([...this.sent.values()].map((f) => f.session))) this.release(session);
    await this.flush();
  }

  /** A deliver_sm_resp arrived. */
  answered(session: CustomerSession, sequence: number, status: number): void {
    const key = session.unanswered.get(sequence);
    if (key === undefined) return;
    session.unanswered.delete(sequence);
    const id = Number(key.slice(2));
    this.sent.delete(id);
    if (status === 0 || status === permanentAppError) {
      this.done.push(id);
      if (key.startsWith('r:')) this.receiptsDone++;
    } else this.held.push(id);
  }

  /** The session closed: what it did not answer is given back, due again at once. */
  release(session: CustomerSession): void {
    for (const key of session.unanswered.values()) {
      const id = Number(key.slice(2));
      this.sent.delete(id);
      this.released.push(id);
    }
    session.unanswered.clear();
  }

  private async tick(): Promise<void> {
    const now = this.o.clock.now();
    // Unanswered past its lease: its row is due again (here or elsewhere); its place in the window is freed.
    for (const [id, flight] of this.sent)
      if (flight.until <= now) {
        this.sent.delete(id);
        flight.session.unanswered.delete(flight.sequence);
      }
    await this.flush();
    const lease = { holder: this.o.holder, now, until: now + this.o.leaseMs };
    for (const [userId, sessions] of this.o.receivers()) await this.send(userId, [...sessions], lease);
    await this.flush();
    if (now - this.lastDisabledCheck >= disabledCheckMs) await this.closeDisabled(now);
    if (now - this.lastRetention >= retentionCheckMs) {
      this.lastRetention = now;
      const removed = await this.o.owed.removeBefore(kinds, now - this.o.retentionMs);
      if (removed > 0) this.o.log.warn({ removed }, 'SMPP server: receipts never acknowledged were given up');
    }
  }

  private async send(userId: number, sessions: CustomerSession[], lease: OutboxLease): Promise<void> {
    const room = sessions.reduce((sum, s) => sum + Math.max(0, s.room), 0);
    const user = sessions[0]?.bound?.user;
    if (room === 0 || !user) return;
    const items: { id: number; key: string; pdu: () => PduOptions }[] = [];
    for (const r of await this.o.owed.claimReceipts(userId, lease, room)) {
      // Still being answered here: given back, found again at the next round.
      if (this.answering.has(r.messageId)) this.released.push(r.id);
      else items.push({ id: r.id, key: `r:${r.id}`, pdu: () => receiptPdu(r) });
    }
    if (items.length < room)
      for (const m of await this.o.owed.claimMo(user.accountId, lease, room - items.length))
        items.push({ id: m.id, key: `m:${m.id}`, pdu: () => moPdu(m.message) });
    for (const item of items) {
      const session = sessions.reduce((best, s) => (s.room > best.room ? s : best));
      const sequence = session.room > 0 ? session.send('deliver_sm', item.pdu()) : 0;
      if (sequence === 0) {
        this.released.push(item.id);
        continue;
      }
      session.unanswered.set(sequence, item.key);
      this.sent.set(item.id, { session, sequence, until: lease.until });
    }
  }

  /** A user disabled since it bound: its sessions are unbound. */
  private async closeDisabled(now: number): Promise<void> {
    this.lastDisabledCheck = now;
    for (const [userId, sessions] of this.o.receivers()) {
      const user = await this.o.users.getUser(userId);
      if (user && user.disabledAt === null) continue;
      for (const s of sessions) {
        s.send('unbind', {});
        s.close();
      }
    }
  }

  /** Writes what was answered, refused for now, or given back since the last round. */
  private async flush(): Promise<void> {
    const done = this.done;
    const held = this.held;
    const released = this.released;
    const receipts = this.receiptsDone;
    this.done = [];
    this.held = [];
    this.released = [];
    this.receiptsDone = 0;
    try {
      await this.o.owed.settle({ done, held, released }, this.o.holder, this.o.clock.now() + retryAfterMs);
      if (receipts > 0) this.o.metrics.receiptAcknowledged(receipts);
    } catch (error) {
      this.done.push(...done);
      this.held.push(...held);
      this.released.push(...released);
      this.receiptsDone += receipts;
      throw error;
    }
  }
}
