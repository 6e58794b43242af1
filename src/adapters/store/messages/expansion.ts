/** Bulk and scheduled sends written out as queued messages, a chunk at a time, under a lease. */
import type { DueExpansion } from '../../../ports/dispatch-queue.js';
import type { NewMessage } from '../../../ports/messages.js';
import { StorePart } from '../store-part.js';
import { SqlMessageStore } from './message-store.js';
import { dueOf, sendColumns } from './cancel-work.js';

export class SqlExpansion extends StorePart {
  async claimExpansion(now: number, leaseUntil: number): Promise<DueExpansion | null> {
    return this.transact(async (self) => {
      const due = await self.db
        .selectFrom('sends')
        .select(sendColumns)
        .where('pending_recipients', 'is not', null)
        // A paused send's list waits for resume; a cancelled one's is written out by its cancel
        // or its settling (cancel-work.ts).
        .where('control', 'is', null)
        .where((eb) => eb.or([eb('scheduled_at', 'is', null), eb('scheduled_at', '<=', now)]))
        .where((eb) => eb.or([eb('expand_lease_until', 'is', null), eb('expand_lease_until', '<=', now)]))
        .orderBy('priority')
        .orderBy('id')
        .limit(1)
        .$call((qb) => self.sql.claim(qb))
        .executeTakeFirst();
      if (!due || due.pending_recipients === null) return null;
      await self.db.updateTable('sends').set({ expand_lease_until: leaseUntil }).where('id', '=', due.id).execute();
      return dueOf(due);
    });
  }

  async expandChunk(
    send: DueExpansion,
    from: number,
    messages: readonly NewMessage[],
    done: boolean,
    now: number,
  ): Promise<boolean> {
    return this.transact(async (self) => {
      // Only the worker that knows where the list stands may write the next chunk. The lease
      // covers one chunk and is released with it: kept until the next chunk, it would stop
      // every worker, this one included, from claiming the send again until it ran out
      // (a 50,000-number campaign took ten lease periods to be written out).
      const moved = await self.db
        .updateTable('sends')
        .set({
          expanded_count: from + messages.length,
          updated_at: now,
          expand_lease_until: null,
          ...(done ? { pending_recipients: null } : {}),
        })
        .where('id', '=', send.id)
        .where('expanded_count', '=', from)
        // Paused or cancelled since the claim: nothing is written (campaign-controls.ts).
        .where('control', 'is', null)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return false;
      const writes = new SqlMessageStore(self.context);
      const ids = await writes.allocateIds(messages.length);
      await writes.insertMessagesOf([
        {
          send: {
            id: send.id,
            accountId: send.accountId,
            keyId: send.keyId,
            sandbox: send.sandbox,
            createdAt: now,
            dueAt: now,
            priority: send.priority,
          },
          ids,
          messages,
        },
      ]);
      return true;
    });
  }
}
