/**
 * The boundary between the delivery pipeline and a mobile operator (the built-in
 * simulator, or an SMSC over SMPP). A carrier never touches the store: it submits, and
 * reports what the operator says through the listener.
 */

/** `sms_lang` of the spec: 0 GSM 7-bit, 1 GSM 7-bit with the Turkish shift table, 2 UCS-2. */
export type SmsLang = 0 | 1 | 2;

export interface CarrierMessage {
  /** Our message id (one recipient of one send). */
  messageId: number;
  /** Normalised recipient, for example 905321234567. */
  to: string;
  /** Sender ID (title) or OTPSMS. */
  from: string;
  /** Text with TS-L already turned into a line break. */
  text: string;
  lang: SmsLang;
  /** The instant the message is no longer worth delivering (SMPP validity_period); absent: the carrier's default. */
  validUntil?: number;
}

/**
 * accepted: the operator took every part; one carrier message id per part, in order.
 * retry: a passing refusal (throttled, queue full, no connection): submit again later.
 * rejected: a permanent refusal: the message fails.
 */
export type SubmitOutcome =
  | { kind: 'accepted'; carrierMessageIds: string[] }
  | { kind: 'retry'; reason: string; afterMs?: number }
  | { kind: 'rejected'; reason: string };

export type ReceiptStatus = 'delivered' | 'failed' | 'expired';

/** A delivery report for one part, matched by the operator's message id. */
export interface CarrierReceipt {
  carrierMessageId: string;
  status: ReceiptStatus;
  /** Operator's error or state text, shown as `details` on a failure. */
  detail?: string;
  doneAt?: number;
}

/** A mobile-originated message that is not a delivery receipt. */
export interface InboundSms {
  from: string;
  to: string;
  text: string;
  receivedAt: number;
}

/**
 * The pipeline's side. A carrier acknowledges a report or an inbound message to the
 * operator only after the returned promise resolves, so nothing is acknowledged that was
 * not stored.
 */
export interface CarrierListener {
  onReceipt(report: CarrierReceipt): Promise<void>;
  onInbound(message: InboundSms): Promise<void>;
}

/** A carrier's connections to its operator: how many can take submits now, of how many. */
export interface CarrierLinks {
  bound: number;
  total: number;
  /**
   * In a cluster: connections not bound here because another process holds their binds
   * (docs/smpp.md, "Binds across a cluster"); this process is ready without them.
   */
  elsewhere?: number;
}

/** One connection of a carrier, as the provider's console shows it. */
export interface ConnectionState {
  name: string;
  bound: boolean;
  /** Submits awaiting their response, of `windowSize`. */
  inFlight: number;
  windowSize: number;
  /** Submits answered OK since start. */
  submits: number;
  /** Submits per second now: the configured rate, or less after the SMSC said throttled or queue full. */
  rate?: number;
  /** The last few refusals and lost sessions (`at`: epoch ms), newest last. */
  recentErrors: { at: number; what: string }[];
  /** In a cluster: the binds the connection may have across it. */
  maxBinds?: number;
  /** In a cluster: the connection's submits per second for the whole cluster now (after its last cut). */
  clusterRate?: number;
  /** In a cluster: its binds' places held now, by which process (`mine`: this one). */
  binds?: { slot: number; owner: string; mine: boolean }[];
}

export interface Carrier {
  readonly name: string;
  /** For carriers that hold connections (SMPP): each one's state now. */
  connections?(): ConnectionState[];
  /**
   * For carriers that hold connections (SMPP): calls `onChange` now and on every change of
   * how many are bound. The simulator has none and leaves it out.
   */
  watchLinks?(onChange: (links: CarrierLinks) => void): void;
  /**
   * For carriers with a narrow link (SMPP): how many submits it takes at once (its windows).
   * The dispatcher gives it no more than this, and holds the rest in lane and account order
   * (LaneScheduler), so an interactive message never waits behind bulk in the carrier.
   * Left out (the simulator): no limit, every message goes at once.
   */
  capacity?(): number;
  /**
   * For carriers whose binds are shared by the processes of a store (SMPP): whether this
   * process should take live messages now (it holds a bind, or no process does). Left out: always.
   */
  takesWork?(): boolean;
  start(listener: CarrierListener): Promise<void>;
  submit(message: CarrierMessage): Promise<SubmitOutcome>;
  /** Stops taking submits and closes connections; pending reports may be lost to the operator's retry. */
  stop(): Promise<void>;
}
