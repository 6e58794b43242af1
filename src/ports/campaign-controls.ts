/**
 * A customer's controls over a send it made (docs/decisions.md, "Campaign controls"): cancel,
 * pause, resume. Each runs in one transaction that locks the send's row, so it meets the
 * dispatcher's claims and the expander's chunks one at a time: a message the dispatcher
 * claimed (submitting) runs its course; one still queued is held or cancelled, never both
 * sent and given back.
 */
import type { WriteOut } from './dispatch-queue.js';
import type { SendKind } from './messages.js';

/** A send of the account, of one of these kinds. */
export interface SendTarget {
  accountId: number;
  sendId: number;
  kinds: readonly SendKind[];
}

export interface CancelOutcome {
  /** Messages cancelled by this call. */
  cancelled: number;
  /** SMS credits given back by this call. */
  refunded: number;
}

/** A cancel as committed: its outcome, and the messages of the send a dispatcher had claimed then. */
export interface CancelCommit extends CancelOutcome {
  /**
   * Claimed (submitting) when the cancel committed: each is either with the carrier already
   * and runs its course, or still waiting in a dispatcher, which gives it back cancelled.
   */
  inFlight: readonly number[];
}

/** What became of a cancel's in-flight messages so far. */
export interface InFlightSettling {
  /** Still claimed by a dispatcher. */
  submitting: number;
  /** Given back and cancelled, and their SMS credits given back. */
  cancelled: number;
  refunded: number;
}

/** What a cancel would stop now and give back (the panel's confirmation). */
export interface CancelPreview {
  /** Messages not yet handed to an operator, with the recipients not yet written out. */
  waiting: number;
  /** Their SMS credits. */
  credit: number;
  /** The send's control: null while it runs. */
  control: 'paused' | 'cancelled' | null;
}

export interface ControlOutcome {
  state: 'paused' | 'running' | 'cancelled';
  /** Messages not yet submitted: queued or held, and recipients not yet written out. */
  waiting: number;
}

export type { WriteOut } from './dispatch-queue.js';

export interface CampaignControls {
  /**
   * Cancels what of the send is not yet handed to the dispatcher: its recipients not yet
   * written out are written out (as the expander would) and, with its queued and held
   * messages, cancelled; each message's credit given back once (refund key `message:<id>`),
   * an sms.cancelled event for each message of /sms/send. Null: no such send. A send with
   * more waiting than a cancel settles at once is counted and its credit given back now,
   * and the rest of its messages are cancelled by the dispatcher
   * (`DispatchQueue.settleCancels`).
   */
  cancelSend(target: SendTarget, now: number, writeOut: WriteOut): Promise<CancelCommit | null>;
  /** What became of a cancel's in-flight messages (`CancelCommit.inFlight`). */
  inFlightSettling(messageIds: readonly number[]): Promise<InFlightSettling>;
  /** Cancels one message of the account's /sms/send, if it is still queued or held. Null: no such message. */
  cancelMessage(accountId: number, messageId: number, now: number): Promise<CancelOutcome | null>;
  /** What `cancelSend` would stop and give back now, read without changing it. Null: no such send. */
  previewCancel(target: SendTarget, writeOut: WriteOut): Promise<CancelPreview | null>;
  /** Holds the send's queued messages and its list until resume. Null: no such send. */
  pause(target: SendTarget, now: number): Promise<ControlOutcome | null>;
  /** Gives a paused send back to the dispatcher. Null: no such send. */
  resume(target: SendTarget, now: number): Promise<ControlOutcome | null>;
}
