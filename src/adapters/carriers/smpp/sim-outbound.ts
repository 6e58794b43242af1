import type { Session } from 'smpp';
import { encodeForSubmit } from '../../../domain/sms-encoding.js';
import { receiptPdu } from './sim-receipts.js';
import type { ReceiptInput } from './sim-receipts.js';
import type { SimCounters } from './sim-stats.js';
import { makePdu, Status } from '../../../smpp/smpp-wire.js';

/**
 * What the SMSC simulator sends to ESMEs: delivery receipts and mobile-originated
 * messages, on a bound receiving session. A receipt answered with a non-zero
 * deliver_sm_resp, with no receiver bound, or whose session ended before its resp came, is
 * sent again every retryMs, up to MAX_RECEIPT_ATTEMPTS, as SMSCs do.
 */

export interface ReceiverSession {
  systemId: string;
  bound: boolean;
  receive: boolean;
}

export interface InboundOptions {
  everyMs: number;
  from: string;
  to: string;
  text: string;
}

export const MAX_RECEIPT_ATTEMPTS = 10;

export class SimOutbound {
  private readonly timers = new Set<NodeJS.Timeout>();
  private inboundRef = 0;
  private stopped = false;
  /** Receipts sent on each session and not yet answered: sent again if it ends first. */
  private readonly unanswered = new Map<Session, Set<() => void>>();

  constructor(
    private readonly sessions: ReadonlyMap<Session, ReceiverSession>,
    private readonly stats: SimCounters,
    private readonly retryMs: number,
  ) {}

  /** A session ended: its receipts not yet answered are sent again (on another session). */
  sessionClosed(session: Session): void {
    const retries = this.unanswered.get(session);
    this.unanswered.delete(session);
    for (const retry of retries ?? []) retry();
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  after(ms: number, run: () => void): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  every(ms: number, run: () => void): void {
    this.after(ms, () => {
      run();
      this.every(ms, run);
    });
  }

  sendReceipt(systemId: string, receipt: ReceiptInput, attempt = 1): void {
    const retry = (): void => {
      if (attempt < MAX_RECEIPT_ATTEMPTS)
        this.after(this.retryMs, () => this.sendReceipt(systemId, receipt, attempt + 1));
    };
    const session = this.receiver(systemId);
    if (!session) return retry();
    const waiting = this.unanswered.get(session) ?? new Set<() => void>();
    this.unanswered.set(session, waiting);
    waiting.add(retry);
    const sent = session.send(makePdu('deliver_sm', receiptPdu({ ...receipt, doneAt: Date.now() })), (resp) => {
      waiting.delete(retry);
      if (resp.command_status === Status.OK) this.stats.receiptResps++;
      else {
        this.stats.receiptRespErrors++;
        retry();
      }
    });
    if (sent) this.stats.receiptsSent++;
    else {
      waiting.delete(retry);
      retry();
    }
  }

  /** One MO message (all its parts), Turkish single shift or UCS-2 as the text needs. */
  sendInbound(inbound: InboundOptions): void {
    const session = this.receiver('');
    if (!session) return;
    this.inboundRef = (this.inboundRef + 1) % 256;
    const encoded = encodeForSubmit(inbound.text, 1, this.inboundRef);
    for (const part of encoded.parts) {
      const pdu = makePdu('deliver_sm', {
        source_addr_ton: 1,
        source_addr_npi: 1,
        source_addr: inbound.from,
        dest_addr_ton: 0,
        dest_addr_npi: 0,
        destination_addr: inbound.to,
        esm_class: encoded.esmClass,
        data_coding: encoded.dataCoding,
        short_message: part,
      });
      const sent = session.send(pdu, (resp) => {
        if (resp.command_status === Status.OK) this.stats.inboundResps++;
      });
      if (sent) this.stats.inboundSent++;
    }
  }

  /** A bound receiving session, preferring the given system_id. */
  private receiver(systemId: string): Session | undefined {
    const receivers = [...this.sessions].filter(([, s]) => s.bound && s.receive);
    return (receivers.find(([, s]) => s.systemId === systemId) ?? receivers[0])?.[0];
  }
}
