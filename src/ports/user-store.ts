/**
 * What the customer panel keeps beside the API's data: its users, their sign-in sessions,
 * counts of failed sign-ins, one-time set-password links, why a sender ID was rejected and
 * when each key was last used. Tokens are stored as hashes only.
 */
import type { SenderId } from './sender-ids.js';

export interface PanelUser {
  id: number;
  /** null: a provider user (the provider console), not a customer's. */
  accountId: number | null;
  email: string;
  /** null until a password is set (through a one-time link). */
  passwordHash: string | null;
  status: 'active' | 'disabled';
  createdAt: number;
  passwordChangedAt: number | null;
}

export interface PanelSession {
  tokenHash: string;
  userId: number;
  createdAt: number;
  lastSeenAt: number;
}

export interface UserStore {
  /** null when a user with this email (lower-cased) exists already. */
  createUser(
    input: { accountId: number | null; email: string; passwordHash: string | null },
    now: number,
  ): Promise<PanelUser | null>;
  getUser(id: number): Promise<PanelUser | null>;
  findUserByEmail(email: string): Promise<PanelUser | null>;
  /** Users of an account, oldest first. */
  usersOf(accountId: number): Promise<PanelUser[]>;
  /** null: no password (until a set-password link is used). */
  setPasswordHash(userId: number, hash: string | null, now: number): Promise<void>;
  setUserStatus(userId: number, status: PanelUser['status']): Promise<PanelUser | null>;

  createSession(session: PanelSession): Promise<void>;
  findSession(tokenHash: string): Promise<PanelSession | null>;
  touchSession(tokenHash: string, now: number): Promise<void>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Every session of the user ("sign out everywhere", a disabled user, a new password). */
  deleteSessionsOf(userId: number): Promise<number>;

  /** Failures of the subject in the window that began at most `windowMs` ago (0 when older). */
  signInFailures(subject: string, now: number, windowMs: number): Promise<number>;
  /**
   * Reserves one attempt of the subject before its password is checked: counts it unless the
   * window (started at most `windowMs` ago) already holds `limit`, in one atomic statement, so
   * concurrent attempts in any process cannot all pass. A window older than `windowMs` starts
   * again at one. Returns the count with this attempt, or null when refused (nothing counted).
   */
  reserveSignInAttempt(subject: string, now: number, windowMs: number, limit: number): Promise<number | null>;
  /** Gives back one reserved attempt (it was not a failure: the password matched, or another subject refused). */
  releaseSignInAttempt(subject: string): Promise<void>;
  clearSignInFailures(subject: string): Promise<void>;

  createPasswordToken(tokenHash: string, userId: number, expiresAt: number): Promise<void>;
  /** The user of an unused, unexpired token, marking it used in the same statement; null otherwise. */
  usePasswordToken(tokenHash: string, now: number): Promise<number | null>;
  /** Ends every unused link of the user (a reset, a password set by a link); returns how many. */
  endPasswordTokensOf(userId: number, now: number): Promise<number>;
  /** The user of an unused, unexpired token without using it. */
  peekPasswordToken(tokenHash: string, now: number): Promise<number | null>;

  /**
   * Sets a sender ID's status; a rejection keeps its reason (an approval clears it). With
   * `onlyFrom`, only while its status is that one (else null).
   */
  reviewSenderId(
    id: number,
    status: SenderId['status'],
    reason: string | null,
    now: number,
    onlyFrom?: SenderId['status'],
  ): Promise<SenderId | null>;
  /** Rejection reasons of an account's sender IDs, by sender ID id. */
  rejectionReasons(accountId: number): Promise<Map<number, string>>;

  /** Ids of an account's keys, oldest first (every state). */
  keyIdsOf(accountId: number): Promise<number[]>;
  /** Records keys' last use (each `at` only moves a key's time forward). */
  markKeysUsed(entries: readonly { keyId: number; at: number }[]): Promise<void>;
  /** Last use of keys, by key id; keys never used are absent. */
  lastUsed(keyIds: readonly number[]): Promise<Map<number, number>>;
}
