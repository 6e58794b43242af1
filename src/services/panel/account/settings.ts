/**
 * The customer's account as the Account page shows it: its facts, its users, its latest
 * audit entries, and the IP allowlist of its keys.
 */
import type { Clock } from '../../../ports/clock.js';
import type { Store } from '../../../ports/store.js';
import type { AuditEntry } from '../../../ports/audit-store.js';
import { AdminService, accountView } from '../../admin.js';
import type { AccountView } from '../../admin.js';
import type { AuditLog } from '../../audit-log.js';
import { userView } from '../users.js';
import type { UserView } from '../users.js';
import type { AccountChanges, Customer } from './account-changes.js';
import { windowView } from '../../../domain/send-controls.js';
import type { SendControls } from '../../../domain/send-controls.js';
import { ok } from '../../../domain/result.js';
import type { AdminResult } from '../../admin-result.js';

/** An audit entry as the customer sees it: the provider's staff and commands are not named. */
export interface ActivityEntry extends AuditEntry {
  /** By the provider (its staff or a command): actor and address are blank. */
  byProvider: boolean;
}

export class CustomerAccount {
  constructor(
    private readonly deps: { store: Store; clock: Clock; audit: AuditLog },
    private readonly customer: Customer,
    private readonly changes: AccountChanges,
  ) {}

  async view(): Promise<AdminResult<AccountView>> {
    const account = await new AdminService(this.deps.store, this.deps.clock).account(this.customer.accountId);
    return account.ok ? ok(accountView(account.value)) : account;
  }

  async users(): Promise<UserView[]> {
    return (await this.deps.store.users.usersOf(this.customer.accountId)).map(userView);
  }

  /** The account's latest audit entries, newest first. */
  async activity(limit: number): Promise<ActivityEntry[]> {
    const own = new Set((await this.deps.store.users.usersOf(this.customer.accountId)).map((u) => u.id));
    const { entries } = await this.deps.audit.search({ accountId: this.customer.accountId }, limit);
    return entries.map((e) =>
      e.actorUserId !== null && own.has(e.actorUserId)
        ? { ...e, byProvider: false }
        : { ...e, actor: '', address: null, byProvider: true },
    );
  }

  /** The account's default window, speed and validity (the same the provider sets: `admin account update`). */
  async sendDefaults(): Promise<SendControls | null> {
    return (await this.deps.store.accounts.getAccount(this.customer.accountId))?.sendDefaults ?? null;
  }

  /** Replaces the account's send defaults (each null: no default), with its audit row. */
  setSendDefaults(controls: SendControls): Promise<AdminResult<AccountView>> {
    return this.changes.make(
      (store) =>
        new AdminService(store, this.deps.clock).updateAccount(this.customer.accountId, { sendDefaults: controls }, {}),
      (done) =>
        done.ok
          ? {
              action: 'account.send_defaults',
              object: { type: 'account', id: this.customer.accountId },
              detail: {
                window: controls.window === null ? 'none' : JSON.stringify(windowView(controls.window)),
                speed: controls.speed ?? 'none',
                validity_minutes: controls.validityMinutes ?? 'none',
              },
            }
          : null,
    );
  }

  /** Addresses allowed to use the account's keys (checked by the page, again by the service). */
  setAllowlist(ipAllow: string[]): Promise<AdminResult<AccountView>> {
    return this.changes.make(
      (store) => new AdminService(store, this.deps.clock).updateAccount(this.customer.accountId, { ipAllow }, {}),
      (done) =>
        done.ok
          ? {
              action: 'account.allowlist',
              object: { type: 'account', id: this.customer.accountId },
              detail: { entries: ipAllow.length },
            }
          : null,
    );
  }
}
