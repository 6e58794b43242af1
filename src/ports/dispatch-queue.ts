/**
 * The dispatch queue, what the job threads do with messages: bulk and scheduled sends
 * written out as queued messages, messages claimed for submission with a lease, the outcomes of their
 * submits, and the carrier's delivery receipts that settle them. Every state change moves
 * the delivery state machine (domain/delivery-state) along one of its edges, guarded in SQL.
 */
import type { CommercialTally } from '../domain/iys.js';
import type { DeliveryState } from '../domain/delivery-state.js';
import type { Lane } from '../domain/lanes.js';
import type { CarrierReceipt, SmsLang } from './carrier.js';
import type { NewMessage, SendKind, StoredControls } from './messages.js';

/** A bulk or scheduled send whose recipients are due to be written out as messages. */
export interface DueExpansion {
  id: number;
  accountId: number;
  keyId: number;
  kind: SendKind;
  text: string | null;
  lang: SmsLang;
  sandbox: boolean;
  priority: number;
  expandedCount: number;
  pendingRecipients: string;
  /** A commercial send's filter: its last `none + ret` recipients are left out. */
  iys: CommercialTally | null;
  /** Its window, speed and validity, when it asked for some: the messages written out are due accordingly. */
  controls?: StoredControls;
}

/** A message claimed for submission, with what the carrier needs. */
export interface ClaimedMessage {
  id: number;
  sendId: number;
  keyId: number;
  recipient: string;
  text: string;
  sender: string;
  lang: SmsLang;
  sandbox: boolean;
  attempts: number;
  accountId: number;
  lane: Lane;
  /** Its send's validity: the carrier is told to give up on it then (SMPP validity_period). */
  validUntil?: number;
}

/** A state change the pipeline made; events (webhooks) are derived from these. */
export interface Transition {
  messageId: number;
  keyId: number;
  state: DeliveryState;
  /** True when the change wrote a webhook event (in the same transaction). */
  webhookEvent?: boolean;
}

/** A submit the carrier accepted: the ids it gave each part. */
export interface SentItem {
  messageId: number;
  carrier: string;
  carrierMessageIds: readonly string[];
}

/** One (lane, account)'s oldest due messages, offered to a LaneShare. */
export interface LaneCandidates {
  lane: Lane;
  accountId: number;
  weight: number;
  /** Oldest first. */
  ids: number[];
}

/**
 * How a claim shares its room when several (lane, account) pairs wait (the dispatcher's
 * LaneScheduler): lanes in order, accounts by weight and by what each was given before.
 */
export interface LaneShare {
  /**
   * Whether this claim looks for the waiting accounts again; when not, the claim is the
   * plain one in queue order (the last look found one account or none, a moment ago).
   */
  shouldScan(): boolean;
  /** Each account's weight, as the store holds it (told at every look, one entry per waiting lane and account). */
  learnWeights(weights: readonly { accountId: number; weight: number }[]): void;
  /** The ids to claim, at most `limit`, from each pair's oldest first. */
  choose(candidates: readonly LaneCandidates[], limit: number): number[];
}

/**
 * The messages of recipients [from, to) of a send whose list is not written out yet (to the
 * end of its list without `to`, or where it ends), as the expander would write them
 * (src/services/deferred-messages.ts).
 */
export type WriteOut = (send: DueExpansion, from: number, to?: number) => NewMessage[];

export interface DispatchQueue {
  /** Claims one send whose recipients are due to be written out, leasing it until `leaseUntil`. */
  claimExpansion(now: number, leaseUntil: number): Promise<DueExpansion | null>;
  /**
   * Settles up to `limit` messages of one cancelled send still being settled (its list
   * written out, its waiting messages cancelled, their refunds taken from the credit given
   * back ahead); how many it settled (at least 1 when it found one), 0 when none is left.
   */
  settleCancels(now: number, writeOut: WriteOut, limit: number): Promise<number>;
  /**
   * Writes recipients [from, from + messages.length) of a send as messages, in one
   * transaction, and releases the send's lease; `done` closes the send's list. False when
   * another worker got there first.
   */
  expandChunk(
    send: DueExpansion,
    from: number,
    messages: readonly NewMessage[],
    done: boolean,
    now: number,
  ): Promise<boolean>;
  /**
   * Claims due queued messages, leasing them until `leaseUntil`: in (priority, due_at, id)
   * order, or, given `share` and several lanes or accounts waiting, as `share` chooses.
   */
  claimDue(now: number, limit: number, leaseUntil: number, share?: LaneShare): Promise<ClaimedMessage[]>;
  /**
   * Extends the leases of messages this worker still holds (state submitting, lease not yet
   * run out) to `until`; a lease that has run out is left alone, as another worker may have
   * taken the message since. Returns how many were extended.
   */
  extendLeases(ids: readonly number[], now: number, until: number): Promise<number>;
  /**
   * Returns messages whose lease ran out (a worker died mid-submit) to the queue; those of a
   * paused send are held, those of a cancelled one cancelled (`giveBack`). How many were
   * returned, and the cancellations (with their sms.cancelled events, as `giveBack`'s).
   */
  requeueExpiredLeases(now: number): Promise<{ requeued: number; cancelled: Transition[] }>;
  /** Of these sends, those paused or cancelled (a dispatcher holding their claimed messages looks now and then). */
  controlledSends(sendIds: readonly number[]): Promise<number[]>;
  /**
   * Gives back claimed messages the dispatcher will not submit, their send paused or cancelled
   * since the claim: held (paused) until resume, or cancelled with their credit back once
   * and their sms.cancelled events, unless a large cancel is still being settled (then its
   * settling takes them). The cancelled messages' transitions.
   */
  giveBack(messageIds: readonly number[], now: number): Promise<Transition[]>;
  /** Records accepted submits (and their parts) in one transaction; one list of transitions per item. */
  markSentMany(items: readonly SentItem[], now: number): Promise<Transition[][]>;
  markRetry(messageId: number, dueAt: number, detail: string): Promise<void>;
  markFailed(messageId: number, detail: string, now: number): Promise<Transition | null>;
  /** Applies delivery receipts in one transaction; a receipt for an unknown carrier id is kept until its message is known. */
  applyReceipts(reports: readonly CarrierReceipt[], now: number): Promise<(Transition | 'unmatched' | null)[]>;
  /** Applies kept receipts whose message has become known since. */
  retryUnmatchedReceipts(now: number): Promise<Transition[]>;
  /**
   * Messages sent to a carrier before `submittedBefore` and still waiting for a receipt (for
   * a carrier that can replay receipts).
   */
  awaitingReceipts(
    carrier: string,
    submittedBefore: number,
    limit: number,
  ): Promise<{ carrierMessageId: string; recipient: string }[]>;
}
