/**
 * Panel users, sign-in and sessions. A session token is 32 random bytes, given to the
 * browser once (in its cookie); the store keeps its SHA-256 only. A session ends after
 * `idleMs` without a request or `absoluteMs` after sign-in, whichever comes first. A user's
 * own changes (password, sign out everywhere) are written with their audit row in one
 * transaction; a password is hashed before it, never inside.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import type { PanelUser, PanelSession } from '../../ports/user-store.js';
import { hashPassword, passwordProblem, unusableHash, verifyPassword } from '../passwords.js';
import { ok } from '../../domain/result.js';
import { notFound, refused } from '../admin-result.js';
import type { AdminResult } from '../admin-result.js';
import { AuditLog } from '../audit-log.js';
import { admits } from './brand-admission.js';
import type { UserActor } from '../audit-log.js';

export interface SessionPolicy {
  idleMs: number;
  absoluteMs: number;
  /** Failed sign-ins allowed per address, and per email, in `windowMs`. */
  perAddress: number;
  perUser: number;
  windowMs: number;
  /** How long a set-password link works. */
  linkMs: number;
}

export const defaultSessionPolicy: SessionPolicy = {
  idleMs: 2 * 3600_000,
  absoluteMs: 12 * 3600_000,
  perAddress: 20,
  perUser: 5,
  windowMs: 15 * 60_000,
  linkMs: 72 * 3600_000,
};

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The synchronizer token of a session: derived from its secret token, so nothing more is stored. */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`csrf\0${sessionToken}`).digest('base64url');
}

const newToken = (): string => randomBytes(32).toString('base64url');

export interface UserView {
  id: number;
  account_id: number | null;
  provider: boolean;
  email: string;
  status: PanelUser['status'];
  password_set: boolean;
  created_at: string;
}

export function userView(u: PanelUser): UserView {
  return {
    id: u.id,
    account_id: u.accountId,
    provider: u.accountId === null,
    email: u.email,
    status: u.status,
    password_set: u.passwordHash !== null,
    created_at: new Date(u.createdAt).toISOString(),
  };
}

export type SignIn =
  | { ok: true; token: string; user: PanelUser }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'limited'; retryAfterMinutes: number };

export type PasswordChange =
  { ok: true; token: string } | { ok: false; reason: 'wrong-current' | 'too-short' | 'too-long' };

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class UserService {
  private readonly audit: AuditLog;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly policy: SessionPolicy = defaultSessionPolicy,
  ) {
    this.audit = new AuditLog(store, clock);
  }

  private get users() {
    return this.store.users;
  }

  /** `admin user create`: without a password, the answer carries a one-time set-password token. */
  async create(input: {
    accountId: number | null;
    email: string;
    password?: string;
  }): Promise<AdminResult<UserView & { set_password_token?: string }>> {
    const email = input.email.trim().toLowerCase();
    if (!emailPattern.test(email)) return refused(`not an email address: ${input.email}`);
    if (input.accountId !== null && !(await this.store.accounts.getAccount(input.accountId)))
      return notFound(`no account with id ${input.accountId}`);
    if (input.password !== undefined) {
      const problem = passwordProblem(input.password);
      if (problem !== null)
        return refused(
          problem === 'too-short' ? 'a password needs at least 10 characters' : 'a password has at most 200 characters',
        );
    }
    const hash = input.password === undefined ? null : await hashPassword(input.password);
    const user = await this.users.createUser(
      { accountId: input.accountId, email, passwordHash: hash },
      this.clock.now(),
    );
    if (!user) return refused(`a user with the email ${email} exists already`);
    if (input.password !== undefined) return ok(userView(user));
    return ok({ ...userView(user), set_password_token: await this.issueLink(user.id) });
  }

  private async issueLink(userId: number): Promise<string> {
    const token = newToken();
    await this.users.createPasswordToken(tokenHash(token), userId, this.clock.now() + this.policy.linkMs);
    return token;
  }

  /** A user known to be there (the signed-in one, one just reset): users are never deleted. */
  private async acting(userId: number): Promise<PanelUser> {
    const user = await this.users.getUser(userId);
    if (!user) throw new Error(`no user with id ${userId}`);
    return user;
  }

  async list(accountId: number): Promise<AdminResult<{ users: UserView[] }>> {
    if (!(await this.store.accounts.getAccount(accountId))) return notFound(`no account with id ${accountId}`);
    return ok({ users: (await this.users.usersOf(accountId)).map(userView) });
  }

  /** Disabled: cannot sign in, and every session ends now. */
  async disable(id: number): Promise<AdminResult<UserView>> {
    const user = await this.users.setUserStatus(id, 'disabled');
    if (!user) return notFound(`no user with id ${id}`);
    await this.users.deleteSessionsOf(id);
    return ok(userView(user));
  }

  /**
   * The password stops working, every session and every earlier link ends; one new link
   * sets a new password. In one transaction: no earlier link outlives a reset that answered.
   */
  async resetPassword(id: number): Promise<AdminResult<UserView & { set_password_token: string }>> {
    if (!(await this.users.getUser(id))) return notFound(`no user with id ${id}`);
    const token = newToken();
    await this.store.transaction(async (store) => {
      const now = this.clock.now();
      await store.users.setPasswordHash(id, null, now);
      await store.users.deleteSessionsOf(id);
      await store.users.endPasswordTokensOf(id, now);
      await store.users.createPasswordToken(tokenHash(token), id, now + this.policy.linkMs);
    });
    return ok({ ...userView(await this.acting(id)), set_password_token: token });
  }

  /**
   * Reserves the attempt against the address and the email before the password is hashed,
   * each in one atomic statement (so a burst of concurrent guesses, in one process or many,
   * gets at most the limit evaluated, and a guesser who reached it learns nothing more). A
   * reservation is kept as the failure it turns out to be; a right password gives the
   * address's back and clears the email's. On a brand's host (`brandOf`: its reseller) a
   * user of another account is answered and counted as a wrong password.
   */
  async signIn(emailRaw: string, password: string, address: string, brandOf: number | null = null): Promise<SignIn> {
    const now = this.clock.now();
    const email = emailRaw.trim().toLowerCase();
    const { perAddress, perUser, windowMs } = this.policy;
    const byAddress = `ip:${address}`;
    const byUser = `user:${email}`;
    const limited: SignIn = { ok: false, reason: 'limited', retryAfterMinutes: Math.ceil(windowMs / 60_000) };
    if ((await this.users.reserveSignInAttempt(byAddress, now, windowMs, perAddress)) === null) return limited;
    if ((await this.users.reserveSignInAttempt(byUser, now, windowMs, perUser)) === null) {
      await this.users.releaseSignInAttempt(byAddress);
      return limited;
    }
    const user = email === '' ? null : await this.users.findUserByEmail(email);
    const matches = await verifyPassword(password, user?.passwordHash ?? unusableHash);
    if (
      !user ||
      !matches ||
      user.passwordHash === null ||
      user.status !== 'active' ||
      !(await admits(this.store, user, brandOf))
    )
      return { ok: false, reason: 'invalid' };
    await this.users.releaseSignInAttempt(byAddress);
    await this.users.clearSignInFailures(byUser);
    return { ok: true, token: await this.openSession(user.id), user };
  }

  private async openSession(userId: number, store: Store = this.store): Promise<string> {
    const token = newToken();
    const now = this.clock.now();
    await store.users.createSession({ tokenHash: tokenHash(token), userId, createdAt: now, lastSeenAt: now });
    return token;
  }

  /** The signed-in user of a session token, or null (unknown, expired, user disabled). */
  async session(
    token: string,
    brandOf: number | null = null,
  ): Promise<{ user: PanelUser; session: PanelSession } | null> {
    const hash = tokenHash(token);
    const session = await this.users.findSession(hash);
    if (!session) return null;
    const now = this.clock.now();
    if (now - session.lastSeenAt >= this.policy.idleMs || now - session.createdAt >= this.policy.absoluteMs) {
      await this.users.deleteSession(hash);
      return null;
    }
    const user = await this.users.getUser(session.userId);
    if (!user || user.status !== 'active' || !(await admits(this.store, user, brandOf))) return null;
    // Written at most once a minute per session: a page load need not be a write.
    if (now - session.lastSeenAt >= 60_000) await this.users.touchSession(hash, now);
    return { user, session };
  }

  async signOut(token: string): Promise<void> {
    await this.users.deleteSession(tokenHash(token));
  }

  /** Ends every session of the acting user. */
  async signOutEverywhere(actor: UserActor): Promise<number> {
    const user = await this.acting(actor.userId);
    return this.audit.change(
      actor,
      (store) => store.users.deleteSessionsOf(user.id),
      () => ({ action: 'user.sign-out-everywhere', accountId: user.accountId, object: { type: 'user', id: user.id } }),
    );
  }

  /** A new password ends every session; the answer is a fresh session for the browser that asked. */
  async changePassword(actor: UserActor, current: string, next: string): Promise<PasswordChange> {
    const user = await this.acting(actor.userId);
    if (user.passwordHash === null || !(await verifyPassword(current, user.passwordHash)))
      return { ok: false, reason: 'wrong-current' };
    const problem = passwordProblem(next);
    if (problem !== null) return { ok: false, reason: problem };
    const hash = await hashPassword(next);
    const token = await this.audit.change(
      actor,
      async (store) => {
        await store.users.setPasswordHash(user.id, hash, this.clock.now());
        await store.users.deleteSessionsOf(user.id);
        return this.openSession(user.id, store);
      },
      () => ({ action: 'user.password-change', accountId: user.accountId, object: { type: 'user', id: user.id } }),
    );
    return { ok: true, token };
  }

  /** Whether a set-password link still works (the page asks before showing its form). */
  async linkValid(token: string): Promise<boolean> {
    return (await this.users.peekPasswordToken(tokenHash(token), this.clock.now())) !== null;
  }

  /**
   * Sets the password of the link's user and ends the link and their sessions. Signed out,
   * the user is known by the link: the audit row names them, from `address`.
   */
  async setPasswordWithLink(
    token: string,
    password: string,
    address: string,
  ): Promise<{ ok: true; userId: number } | { ok: false; reason: 'invalid-link' | 'too-short' | 'too-long' }> {
    const problem = passwordProblem(password);
    if (problem !== null) return { ok: false, reason: problem };
    const hash = await hashPassword(password);
    return this.store.transaction(async (store) => {
      const userId = await store.users.usePasswordToken(tokenHash(token), this.clock.now());
      const user = userId === null ? null : await store.users.getUser(userId);
      if (user === null) return { ok: false, reason: 'invalid-link' };
      await store.users.setPasswordHash(user.id, hash, this.clock.now());
      await store.users.deleteSessionsOf(user.id);
      // A password set by one link ends the user's other links too.
      await store.users.endPasswordTokensOf(user.id, this.clock.now());
      await this.audit.record(
        { kind: 'user', userId: user.id, email: user.email, address },
        { action: 'user.password-set', accountId: user.accountId, object: { type: 'user', id: user.id } },
        store,
      );
      return { ok: true, userId: user.id };
    });
  }
}
