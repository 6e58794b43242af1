/** Sends and their messages as the send paths write them. */
import type { MessageDefaults, MessageStore, NewMessage, NewSend } from '../../../ports/messages.js';
import { StorePart } from '../store-part.js';
import { messageRow, sendRow } from './rows.js';
import { advanceIds, messagesInsert, nextIds, preparedChunk, sendsInsert } from './statements.js';

export class SqlMessageStore extends StorePart implements MessageStore {
  async allocateIds(count: number): Promise<number[]> {
    if (count <= 0) return [];
    if (this.dialect === 'postgres') {
      const result = await this.db.executeQuery(nextIds(this.db, { count }));
      return result.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    }
    const row = (await this.db.executeQuery(advanceIds(this.db, { count }))).rows[0];
    if (!row) throw new Error('the id counter is missing');
    const end = Number(row.next_id);
    return Array.from({ length: count }, (_, i) => end - count + i);
  }

  async insertSends(sends: readonly { id: number; send: NewSend }[]): Promise<void> {
    for (let start = 0; start < sends.length; start += preparedChunk) {
      await this.db.executeQuery(sendsInsert(this.db, sends.slice(start, start + preparedChunk).map(({ id, send }) => sendRow(id, send))));
    }
  }

  async insertMessagesOf(groups: readonly { send: MessageDefaults; ids: readonly number[]; messages: readonly NewMessage[] }[]): Promise<void> {
    const rows = groups.flatMap((g) => g.messages.map((m, i) => messageRow(g.send, g.ids[i] ?? 0, m)));
    for (let start = 0; start < rows.length; start += preparedChunk) {
      await this.db.executeQuery(messagesInsert(this.db, rows.slice(start, start + preparedChunk)));
    }
  }
}
