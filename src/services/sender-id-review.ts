import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { ok } from '../domain/result.js';
import { decided, notFound, refused } from './admin-result.js';
import type { AdminResult } from './admin-result.js';
import { senderIdView } from './sender-id-admin.js';
import type { SenderIdView } from './sender-id-admin.js';
import type { SenderId } from '../ports/sender-ids.js';

/**
 * `admin sender-id approve|reject` and the console: the provider's decision on a sender ID.
 * The command may change any decision (`onlyPending` false); the console decides only a
 * pending request, so a stale page or two staff at once cannot turn a decision over: one
 * another review decided meanwhile is ADM-DECIDED; no such sender ID is ADM-NOT-FOUND.
 */
export class SenderIdReview {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly onlyPending = false,
  ) {}

  async approve(id: number): Promise<AdminResult<SenderIdView>> {
    const done = await this.review(id, 'approved', null);
    return done.ok ? ok(senderIdView(done.value)) : done;
  }

  /** The reason is shown to the customer beside the sender ID. */
  async reject(id: number, reason: string): Promise<AdminResult<SenderIdView & { reason: string }>> {
    const text = reason.trim();
    if (text === '') return refused('a rejection needs a reason');
    const done = await this.review(id, 'rejected', text);
    return done.ok ? ok({ ...senderIdView(done.value), reason: text }) : done;
  }

  private async review(
    id: number,
    status: 'approved' | 'rejected',
    reason: string | null,
  ): Promise<AdminResult<SenderId>> {
    const done = await this.store.users.reviewSenderId(
      id,
      status,
      reason,
      this.clock.now(),
      this.onlyPending ? 'pending' : undefined,
    );
    if (done) return ok(done);
    if (this.onlyPending && (await this.store.senderIds.getSenderId(id)) !== null)
      return decided(`sender ID ${id} was already reviewed`);
    return notFound(`no sender ID with id ${id}`);
  }
}
