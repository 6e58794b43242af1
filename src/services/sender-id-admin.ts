import type { Clock } from '../ports/clock.js';
import type { SenderId } from '../ports/sender-ids.js';
import type { Store } from '../ports/store.js';
import { canonicalTitle, senderIdRefusal } from '../domain/sender-title.js';
import { AdminError } from './admin-error.js';

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

/** Provider commands for sender IDs: add (checked as /sms/send checks `title`), list, remove. */
export class SenderIdAdmin {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  private async requireAccount(accountId: number): Promise<void> {
    if (!(await this.store.accounts.getAccount(accountId))) throw new AdminError(`no account with id ${accountId}`);
  }

  async add(accountId: number, raw: string, status: SenderId['status']): Promise<SenderIdView> {
    const title = canonicalTitle(raw);
    const refusal = senderIdRefusal(title);
    if (refusal !== null) throw new AdminError(refusal);
    await this.requireAccount(accountId);
    const added = await this.store.senderIds.addSenderId(accountId, title, status, this.clock.now());
    if (!added) throw new AdminError(`account ${accountId} already has the sender ID ${JSON.stringify(title)}`);
    return senderIdView(added);
  }

  async list(accountId: number): Promise<{ sender_ids: SenderIdView[] }> {
    await this.requireAccount(accountId);
    return { sender_ids: (await this.store.senderIds.listOf(accountId)).map(senderIdView) };
  }

  /** Removes a sender ID named by its id, or by its account and title. */
  async remove(
    which: { id: number } | { accountId: number; title: string },
  ): Promise<{ removed: true } & SenderIdView> {
    const found =
      'id' in which
        ? await this.store.senderIds.getSenderId(which.id)
        : await this.byTitle(which.accountId, which.title);
    if (!found || !(await this.store.senderIds.removeSenderId(found.id))) {
      throw new AdminError(
        'id' in which
          ? `no sender ID with id ${which.id}`
          : `account ${which.accountId} has no sender ID ${JSON.stringify(which.title)}`,
      );
    }
    return { removed: true, ...senderIdView(found) };
  }

  private async byTitle(accountId: number, title: string): Promise<SenderId | null> {
    await this.requireAccount(accountId);
    return (await this.store.senderIds.listOf(accountId)).find((s) => s.title === title) ?? null;
  }
}
