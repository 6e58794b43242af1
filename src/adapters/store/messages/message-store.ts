/** Sends and their messages as the send paths write them. */
import type { MessageDefaults, MessageStore, NewMessage, NewSend } from '../../../ports/messages.js';
import { StorePart } from '../store-part.js';
import { messageRow, sendRow } from './rows.js';
import { messagesInsert, preparedChunk, sendsInsert } from './statements.js';
import { RollupDeltas } from './rollups.js';
import { recordFailedAtOnce } from '../event-outbox.js';

export class SqlMessageStore extends StorePart implements MessageStore {
  allocateIds(count: number): Promise<number[]> {
    return this.sql.allocateIds(this.db, count);
  }

  async insertSends(sends: readonly { id: number; send: NewSend }[]): Promise<void> {
    for (let start = 0; start < sends.length; start += preparedChunk) {
      await this.db.executeQuery(
        sendsInsert(
          this.db,
          sends.slice(start, start + preparedChunk).map(({ id, send }) => sendRow(id, send)),
        ),
      );
    }
  }

  async insertMessagesOf(
    groups: readonly { send: MessageDefaults; ids: readonly number[]; messages: readonly NewMessage[] }[],
  ): Promise<void> {
    const rows = groups.flatMap((g) => g.messages.map((m, i) => messageRow(g.send, g.ids[i] ?? 0, m)));
    if (rows.length === 0) return;
    // The send paths call this inside their transaction; a caller outside one gets its own,
    // so the messages and their counts are written together.
    await this.transact(async (self) => {
      for (let start = 0; start < rows.length; start += preparedChunk) {
        await self.db.executeQuery(messagesInsert(self.db, rows.slice(start, start + preparedChunk)));
      }
      // The panel's rollups: one upsert per (account, day) and per send of these messages.
      const deltas = new RollupDeltas();
      deltas.inserted(rows);
      await deltas.queue(self.db);
      const evented = groups.flatMap((g) =>
        g.messages.flatMap((m, i) =>
          m.failedEvent === undefined
            ? []
            : [{ keyId: g.send.keyId, messageId: g.ids[i] ?? 0, extra: m.failedEvent, at: g.send.createdAt }],
        ),
      );
      if (evented.length > 0) await recordFailedAtOnce(self.db, evented, evented[0]?.at ?? 0);
    });
  }
}
