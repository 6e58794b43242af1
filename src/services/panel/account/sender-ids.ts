/** The customer's sender IDs, with the provider's reason for a rejected one, and requests for new ones. */
import { SenderIdAdmin, senderIdView } from '../../sender-id-admin.js';
import type { SenderIdView } from '../../sender-id-admin.js';
import { CustomerPart } from './account-changes.js';
import type { AdminResult } from '../../admin-result.js';

export interface PanelSenderIdView extends SenderIdView {
  reason: string | null;
}

export class CustomerSenderIds extends CustomerPart {
  async list(): Promise<PanelSenderIdView[]> {
    const { store } = this.deps;
    const reasons = await store.users.rejectionReasons(this.customer.accountId);
    return (await store.senderIds.listOf(this.customer.accountId)).map((s) => ({
      ...senderIdView(s),
      reason: s.status === 'rejected' ? (reasons.get(s.id) ?? null) : null,
    }));
  }

  /**
   * A requested sender ID is pending until the provider approves it (the console, or `admin
   * sender-id approve`); a reseller's customer's waits first for the reseller to pass it on
   * (`awaiting-reseller`). ADM-REFUSED: refused as a title, or the account has it already.
   */
  request(title: string): Promise<AdminResult<SenderIdView>> {
    return this.changes.make(
      async (store) => {
        const account = await store.accounts.getAccount(this.customer.accountId);
        const status = (account?.parentId ?? null) === null ? 'pending' : 'awaiting-reseller';
        return new SenderIdAdmin(store, this.deps.clock).add(this.customer.accountId, title, status);
      },
      (made) =>
        made.ok
          ? { action: 'sender-id.request', object: { type: 'sender-id', id: made.value.id }, detail: { title } }
          : null,
    );
  }
}
