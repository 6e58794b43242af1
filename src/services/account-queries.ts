import type { SenderId, SenderIdStore } from '../ports/sender-ids.js';

/** Read-only account queries of the public API. */
export class AccountQueries {
  constructor(private readonly store: SenderIdStore) {}

  /** Approved sender IDs, newest first; pending and rejected ones are never listed. */
  approvedSenderIds(accountId: number): Promise<SenderId[]> {
    return this.store.approvedSenderIds(accountId);
  }
}
