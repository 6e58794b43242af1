import type { Clock } from '../ports/clock.js';
import type { SenderId } from '../ports/sender-ids.js';
import type { Store } from '../ports/store.js';
import { canonicalTitle, senderIdRefusal } from '../domain/sender-title.js';
import { ok } from '../domain/result.js';
import { notFound, refused } from './admin-result.js';
import type { AdminResult } from './admin-result.js';

export interface SenderIdView {
  id: number;
  account_id: number;
  title: string;
  status: SenderId['status'];
  created_at: string;
}

export function senderIdView(s: SenderId): SenderIdView {
  return {
    id: s.id,
    account_id: s.accountId,
    title: s.title,
    status: s.status,
    created_at: new Date(s.createdAt).toISOString(),
  };
}

/**
 * Provider commands for sender IDs: add (checked as /sms/send checks `title`), list, remove.
 * No account or sender ID is ADM-NOT-FOUND; a title refused or had already, ADM-REFUSED.
 */
export class SenderIdAdmin {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  private async requireAccount(accountId: number): Promise<AdminResult<true>> {
    if (!(await this.store.accounts.getAccount(accountId))) return notFound(`no account with id ${accountId}`);
    return ok(true);
  }

  async add(accountId: number, raw: string, status: SenderId['status']): Promise<AdminResult<SenderIdView>> {
    const title = canonicalTitle(raw);
    const refusal = senderIdRefusal(title);
    if (refusal !== null) return refused(refusal);
    const account = await this.requireAccount(accountId);
    if (!account.ok) return account;
    const added = await this.store.senderIds.addSenderId(accountId, title, status, this.clock.now());
    if (!added) return refused(`account ${accountId} already has the sender ID ${JSON.stringify(title)}`);
    return ok(senderIdView(added));
  }

  async list(accountId: number): Promise<AdminResult<{ sender_ids: SenderIdView[] }>> {
    const account = await this.requireAccount(accountId);
    if (!account.ok) return account;
    return ok({ sender_ids: (await this.store.senderIds.listOf(accountId)).map(senderIdView) });
  }

  /** Removes a sender ID named by its id, or by its account and title. */
  async remove(
    which: { id: number } | { accountId: number; title: string },
  ): Promise<AdminResult<{ removed: true } & SenderIdView>> {
    let found: SenderId | null;
    if ('id' in which) found = await this.store.senderIds.getSenderId(which.id);
    else {
      const account = await this.requireAccount(which.accountId);
      if (!account.ok) return account;
      found = (await this.store.senderIds.listOf(which.accountId)).find((s) => s.title === which.title) ?? null;
    }
    if (!found || !(await this.store.senderIds.removeSenderId(found.id))) {
      return notFound(
        'id' in which
          ? `no sender ID with id ${which.id}`
          : `account ${which.accountId} has no sender ID ${JSON.stringify(which.title)}`,
      );
    }
    return ok({ removed: true as const, ...senderIdView(found) });
  }
}
