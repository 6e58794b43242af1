import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { AdminError } from './admin-error.js';
import { senderIdView } from './sender-id-admin.js';
import type { SenderIdView } from './sender-id-admin.js';
import type { SenderId } from '../ports/sender-ids.js';

/** A review of a sender ID that another review decided meanwhile (the console reviews pending ones only). */
export class AlreadyReviewed extends AdminError {}

/**
 * `admin sender-id approve|reject` and the console: the provider's decision on a sender ID.
 * The command may change any decision (`onlyPending` false); the console decides only a
 * pending request, so a stale page or two staff at once cannot turn a decision over.
 */
export class SenderIdReview {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly onlyPending = false,
  ) {}

  async approve(id: number): Promise<SenderIdView> {
    return senderIdView(await this.review(id, 'approved', null));
  }

  /** The reason is shown to the customer beside the sender ID. */
  async reject(id: number, reason: string): Promise<SenderIdView & { reason: string }> {
    const text = reason.trim();
    if (text === '') throw new AdminError('a rejection needs a reason');
    return { ...senderIdView(await this.review(id, 'rejected', text)), reason: text };
  }

  private async review(id: number, status: 'approved' | 'rejected', reason: string | null): Promise<SenderId> {
    const done = await this.store.users.reviewSenderId(
      id,
      status,
      reason,
      this.clock.now(),
      this.onlyPending ? 'pending' : undefined,
    );
    if (done) return done;
    if (this.onlyPending && (await this.store.senderIds.getSenderId(id)) !== null)
      throw new AlreadyReviewed(`sender ID ${id} was already reviewed`);
    throw new AdminError(`no sender ID with id ${id}`);
  }
}
