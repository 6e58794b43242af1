import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { AdminError } from './admin-error.js';
import { senderIdView } from './sender-id-admin.js';
import type { SenderIdView } from './sender-id-admin.js';

/** `admin sender-id approve|reject`: the provider's decision on a requested sender ID. */
export class SenderIdReview {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async approve(id: number): Promise<SenderIdView> {
    const done = await this.store.users.reviewSenderId(id, 'approved', null, this.clock.now());
    if (!done) throw new AdminError(`no sender ID with id ${id}`);
    return senderIdView(done);
  }

  /** The reason is shown to the customer beside the sender ID. */
  async reject(id: number, reason: string): Promise<SenderIdView & { reason: string }> {
    const text = reason.trim();
    if (text === '') throw new AdminError('a rejection needs a reason');
    const done = await this.store.users.reviewSenderId(id, 'rejected', text, this.clock.now());
    if (!done) throw new AdminError(`no sender ID with id ${id}`);
    return { ...senderIdView(done), reason: text };
  }
}
