/**
 * The binds of customers' SMPP users across the cluster: a user's max binds count the binds of
 * every process, each a row with a lease its process renews (docs/smpp.md, "Customers over SMPP").
 */

/** A session bound to some process of the cluster (the store's row of it). */
export interface SmppBind {
  sessionId: string;
  smppUserId: number;
  accountId: number;
  systemId: string;
  /** The process holding it (host and pid). */
  process: string;
  peer: string;
  bindType: 'transmitter' | 'receiver' | 'transceiver';
  boundAt: number;
}

/** One session bound to a process of the cluster, as the SMPP server tells it (the provider console's SMPP page). */
export interface SmppSessionState {
  systemId: string;
  accountId: number;
  peer: string;
  bindType: 'transmitter' | 'receiver' | 'transceiver';
  since: number;
  /** The process holding the session (host and pid). */
  process: string;
  /** Held by the process that answers (its counts below are known); false: by another process of the cluster. */
  here: boolean;
  /** submit_sm accepted on this session since it bound; null for another process's session. */
  submits: number | null;
  /** deliver_sm sent and not answered yet; null for another process's session. */
  unanswered: number | null;
  /** Receipts owed to its SMPP user, final and not acknowledged (of messages and of parts). */
  owedReceipts: number;
}

export interface SmppBindStore {
  /**
   * Records a bind if the user has fewer than `maxBinds` live binds in the whole cluster
   * (rows whose lease has not run out), leased until `expiresAt`; false when it has them.
   */
  take(bind: SmppBind, maxBinds: number, now: number, expiresAt: number): Promise<boolean>;
  /** Extends the leases of these binds (the process holding them lives); drops every lease that ran out. */
  renew(sessionIds: readonly string[], now: number, expiresAt: number): Promise<void>;
  /** The sessions ended. */
  release(sessionIds: readonly string[]): Promise<void>;
  /** Every live bind of the cluster, by system_id then time. */
  live(now: number): Promise<SmppBind[]>;
}
