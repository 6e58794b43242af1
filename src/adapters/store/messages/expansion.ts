/** Bulk and scheduled sends written out as queued messages, a chunk at a time, under a lease. */
import type { DueExpansion } from '../../../ports/dispatch-queue.js';
import type { NewMessage } from '../../../ports/messages.js';
import { StorePart } from '../store-part.js';
import { SqlLinkStore } from '../link-store.js';
import { dueOf, insertChunk, sendColumns } from './cancel-work.js';
import type { NewMessage as Message, StoredControls } from '../../../ports/messages.js';
import { decodeWindow, dueTimes } from '../../../domain/send-controls.js';

/** A send's window, speed and validity as its row keeps them; nothing for a send without. */
export function controlsOf(row: {
  send_window: string | null;
  speed: number | null;
  valid_until: number | string | null;
  pace_next_at: number | string | null;
}): { controls?: StoredControls } {
  if (row.send_window === null && row.speed === null && row.valid_until === null) return {};
  return {
    controls: {
      window: decodeWindow(row.send_window),
      speed: row.speed,
      validUntil: row.valid_until === null ? null : Number(row.valid_until),
      paceNextAt: row.pace_next_at === null ? null : Number(row.pace_next_at),
    },
  };
}

/**
 * Sets when each message of a chunk is due (its send's window and pace); answers the send's
 * next free slot when it is paced, null otherwise.
 */
export function dueOnPace(controls: StoredControls, messages: readonly Message[], now: number): number | null {
  const going = messages.filter((m) => m.failedDetail === undefined);
  const due = dueTimes(controls, now, going.length, { from: controls.paceNextAt, validUntil: controls.validUntil });
  going.forEach((m, i) => (m.dueAt = due.dueAts[i] ?? now));
  return due.next;
}

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
      return { ...dueOf(due), ...controlsOf(due) };
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
      const paced = send.controls ? dueOnPace(send.controls, messages, now) : null;
      if (paced !== null)
        await self.db.updateTable('sends').set({ pace_next_at: paced }).where('id', '=', send.id).execute();
      await insertChunk(self.context, send, messages, now);
      // A send with short links: its messages' links, committed with them (deferred-messages.ts).
      const links = messages.flatMap((m) => m.links ?? []);
      if (links.length > 0) await new SqlLinkStore(self.context).insert(send.accountId, send.id, links, now);
      return true;
    });
  }
}
