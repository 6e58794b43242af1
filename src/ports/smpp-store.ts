/** Customers over SMPP: their SMPP users, the parts of their concatenated submits, their binds (what is owed to them: ports/outbox.ts). */

/** An SMPP user: a system_id and password that bind as one API key, with its bind limits. */
export interface SmppUser {
  id: number;
  keyId: number;
  accountId: number;
  systemId: string;
  maxBinds: number;
  /** Unanswered deliver_sm per session. */
  windowSize: number;
  /** submit_sm a second per bind (0: no limit of its own). */
  maxSubmitsPerSecond: number;
  disabledAt: number | null;
  createdAt: number;
}

/** What a bind reads: the user, its password's hash and its key's hash (to authenticate as that key). */
export interface SmppCredentials {
  user: SmppUser;
  passwordHash: string;
  keyHash: string;
}

export type NewSmppUser = Omit<SmppUser, 'id' | 'disabledAt' | 'createdAt'> & { passwordHash: string };

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

/** One part of a concatenated submit, kept until the message's parts are all received. */
export interface AssemblyPart {
  smppUserId: number;
  sourceAddr: string;
  destination: string;
  dataCoding: number;
  reference: number;
  total: number;
  seq: number;
  /** The part's short_message after its UDH. */
  payload: Buffer;
  /** The UDH announced the Turkish single shift table. */
  turkish: boolean;
  /** The message_id the part was (or is to be) answered with. */
  partId: string;
  /** registered_delivery asked for a receipt. */
  receipt: boolean;
  receivedAt: number;
  /** Its schedule_delivery_time: not before this instant; null: none. */
  scheduledAt: number | null;
}

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

export type PartAdded =
  /** More parts to come: answer with this id (the first one given, for a part sent again). */
  | { kind: 'pending'; partId: string }
  /** This was the last part: every part, in sequence order, taken out of the store. */
  | { kind: 'complete'; parts: AssemblyPart[] }
  /** The user has `maxPending` unfinished messages already. */
  | { kind: 'full' };

export interface SmppStore {
  createUser(user: NewSmppUser, now: number): Promise<SmppUser>;
  /** The user and hashes of an enabled or disabled user by its system_id; null when none. */
  credentials(systemId: string): Promise<SmppCredentials | null>;
  getUser(id: number): Promise<SmppUser | null>;
  users(accountId: number): Promise<SmppUser[]>;
  /** Disables the user (again: keeps the first time); null when there is none. */
  disableUser(id: number, now: number): Promise<SmppUser | null>;
  /**
   * Keeps a part of a concatenated submit, giving it its own id from the id space of sends
   * and messages; answers whether the message is complete (and takes its parts out).
   */
  addAssemblyPart(part: Omit<AssemblyPart, 'partId'>, maxPending: number): Promise<PartAdded>;
  /** Puts unfinished parts back (a complete message refused for now); false when the message was started again meanwhile. */
  restoreAssembly(parts: readonly AssemblyPart[]): Promise<boolean>;
  /** The unfinished messages whose first part came before `before`, taken out of the store, each its parts. */
  expiredAssemblies(before: number): Promise<AssemblyPart[][]>;
  /**
   * Records a bind if the user has fewer than `maxBinds` live binds in the whole cluster
   * (rows whose lease has not run out), leased until `expiresAt`; false when it has them.
   */
  claimBind(bind: SmppBind, maxBinds: number, now: number, expiresAt: number): Promise<boolean>;
  /** Extends the leases of these binds (the process holding them lives); drops every lease that ran out. */
  renewBinds(sessionIds: readonly string[], now: number, expiresAt: number): Promise<void>;
  /** The sessions ended. */
  releaseBinds(sessionIds: readonly string[]): Promise<void>;
  /** Every live bind of the cluster, by system_id then time. */
  liveBinds(now: number): Promise<SmppBind[]>;
}
