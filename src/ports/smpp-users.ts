/** The SMPP users of customers: a system_id and password that bind as one of their API keys (docs/smpp.md, "Customers over SMPP"). */

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

export interface SmppUserStore {
  createUser(user: NewSmppUser, now: number): Promise<SmppUser>;
  /** The user and hashes of an enabled or disabled user by its system_id; null when none. */
  credentials(systemId: string): Promise<SmppCredentials | null>;
  getUser(id: number): Promise<SmppUser | null>;
  users(accountId: number): Promise<SmppUser[]>;
  /** Disables the user (again: keeps the first time); null when there is none. */
  disableUser(id: number, now: number): Promise<SmppUser | null>;
}
