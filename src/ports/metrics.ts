/**
 * What the program counts, in its own words; an adapter (adapters/metrics/, Prometheus)
 * turns it into metrics. Each surface or job gets the part it counts: the API its requests,
 * the send paths and the dispatcher their messages, the SMPP carrier its connections, the
 * webhook courier its attempts, the store its write-lock waits. Every part has a no-op
 * default: without an operations listener (--ops-port) nothing is counted.
 *
 * Labels stay bounded: never a number, a key or a URL; a connection is named by its
 * configured name and its index.
 */
import type { Lane } from '../domain/lanes.js';

/** The API's requests: one call per answered request. */
export interface ApiMetrics {
  /**
   * `endpoint`: a path of the endpoint table or `other` (never a raw URL: the label set stays
   * bounded); `resultCode`: the answer's result_code, or `none`.
   */
  request(endpoint: string, resultCode: string, seconds: number): void;
}

/** Counts nothing (no operations listener). */
export const noApiMetrics: ApiMetrics = { request: () => undefined };

/**
 * A message's steps: accepted (committed by a send, HTTP thread), submitted (the carrier
 * took it), and its final state (delivered, failed: a receipt or a rejected submit; expired).
 */
export type MessageOutcome = 'accepted' | 'submitted' | 'delivered' | 'failed' | 'expired';

export const messageOutcomes: readonly MessageOutcome[] = ['accepted', 'submitted', 'delivered', 'failed', 'expired'];

/** Messages by step: `count` messages reached `outcome`. */
export interface MessageMetrics {
  messages(outcome: MessageOutcome, count: number): void;
}

export const noMessageMetrics: MessageMetrics = { messages: () => undefined };

/** One connection of a carrier that holds connections (SMPP). */
export interface ConnectionMetrics {
  /** The connection bound (true) or lost its bind (false). */
  bound(isBound: boolean): void;
  /** One submit_sm answered OK. */
  submitted(): void;
  /** One submit_sm refused; `status`: the command status's name (ESME_RTHROTTLED), a bounded set. */
  refused(status: string): void;
  /** A receipt arrived `seconds` after its part's submit was answered. */
  receiptLag(seconds: number): void;
  /** In a cluster: this process took (true) or let go (false) a place of the connection's binds. */
  held?(isHeld: boolean): void;
}

export const noConnectionMetrics: ConnectionMetrics = {
  bound: () => undefined,
  submitted: () => undefined,
  refused: () => undefined,
  receiptLag: () => undefined,
};

/** The carrier's connections, each named by its configured name and index; `windowInUse` is read at scrape time. */
export interface CarrierMetrics {
  connection(name: string, index: number, windowInUse: () => number): ConnectionMetrics;
}

export const noCarrierMetrics: CarrierMetrics = { connection: () => noConnectionMetrics };

/**
 * A webhook attempt's outcome: delivered (2xx: the event is done), retrying (it failed, another
 * attempt is due), failed (it failed and was the event's last).
 */
export type WebhookOutcome = 'delivered' | 'retrying' | 'failed';

export interface WebhookMetrics {
  attempt(outcome: WebhookOutcome, seconds: number): void;
}

export const noWebhookMetrics: WebhookMetrics = { attempt: () => undefined };

/** What a scrape reads from the store: the queues' depths (each count bounded by the store). */
export interface Backlog {
  /** Messages queued and due now (waiting for a dispatcher), with the recipients of due bulk sends not yet written out. */
  dispatchDue: number;
  /** Messages queued for later (a retry), with the recipients of scheduled sends not yet due. */
  scheduled: number;
  /** Webhook events waiting for an attempt. */
  webhookPending: number;
  /** When the oldest pending webhook event was written (epoch ms); null when none is. */
  webhookOldestAt: number | null;
  /**
   * Per lane (domain/lanes.ts): messages queued and due now, and when the oldest of them
   * came due (epoch ms; null when none is). Written-out messages only (a bulk send's
   * recipients not yet written out count in `dispatchDue` alone).
   */
  lanes?: Record<Lane, { due: number; oldestDueAt: number | null }>;
  /** Destination prefixes the OTP conversion watch holds now (suspected SMS pumping). */
  otpHeldPrefixes: number;
  /** Per account: messages queued and due now, the accounts with the most first (at most `accountBacklogCap`). */
  accounts?: { accountId: number; due: number }[];
}

/** The most accounts a backlog lists (the metric's label values stay few). */
export const accountBacklogCap = 50;

/** Counts into both (the metrics, and the provider console's traffic per minute). */
export function bothMessageMetrics(a: MessageMetrics, b: MessageMetrics): MessageMetrics {
  return {
    messages: (outcome, count) => {
      a.messages(outcome, count);
      b.messages(outcome, count);
    },
  };
}

/**
 * The SMPP server for customers: binds by outcome (`bound`, or the refusal's
 * command status name), submit_sm answered by command status name, receipts acknowledged,
 * and the sessions bound now.
 */
export interface SmppServerMetrics {
  bind(outcome: string): void;
  submit(status: string): void;
  receiptAcknowledged(count: number): void;
  sessions(bound: number): void;
}

export const noSmppServerMetrics: SmppServerMetrics = {
  bind: () => undefined,
  submit: () => undefined,
  receiptAcknowledged: () => undefined,
  sessions: () => undefined,
};
