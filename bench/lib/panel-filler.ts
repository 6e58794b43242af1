import { join } from 'node:path';
import Database from 'better-sqlite3';
import { dayMs } from '../../src/domain/istanbul-time.js';

/** Istanbul's offset (UTC+3 all year since 2016), as migration 0016 counts days in SQL. */
const istanbulOffsetMs = 3 * 3_600_000;

/** What the filler made, for the bench to ask for: ids of a campaign, a message and a cursor deep in the log. */
export interface FilledPanelStore {
  messages: number;
  campaignId: number;
  messageId: number;
  /** `after` of the message log at about two thirds of the account's history. */
  deepCursor: string;
  number: string;
}

/**
 * Fills a stopped server's SQLite store for the panel pages bench: for each account,
 * `campaigns` bulk sends of `perCampaign` messages and `singles` one-message sends, spread
 * over the last `days` days, with the outcomes a day of traffic has (delivered, failed,
 * expired, a few still awaiting a report). Written with prepared statements in large
 * transactions, not through the API, then the panel's rollups counted from them once. Also a group of 1,000 contacts and 1,000 blocked numbers per account.
 */
export function fillPanelStore(
  dataDir: string,
  accounts: readonly { accountId: number; keyId: number }[],
  shape: { campaigns: number; perCampaign: number; singles: number; days: number },
  now: number,
): FilledPanelStore {
  const db = new Database(join(dataDir, 'haberci.sqlite'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const insertSend = db.prepare(
      `INSERT INTO sends (id, account_id, key_id, kind, sender, text, lang, content_type, scheduled_at, sandbox, total_numbers, invalid_numbers, blocked_numbers, sms_cost, pending_recipients, created_at, updated_at, expanded_count, expand_lease_until, priority)
       VALUES (?, ?, ?, ?, 'BENCH', ?, 0, 0, NULL, 0, ?, 0, 0, ?, NULL, ?, ?, ?, NULL, ?)`,
    );
    const insertMessage = db.prepare(
      `INSERT INTO messages (id, send_id, account_id, key_id, recipient, text, sms_count, operator, state, priority, due_at, lease_until, attempts, carrier, submitted_at, done_at, detail, sandbox, created_at)
       VALUES (?, ?, ?, ?, ?, NULL, 1, 'TURKCELL', ?, 1, ?, NULL, 1, 'simulator', ?, ?, ?, 0, ?)`,
    );
    const insertGroup = db.prepare(`INSERT INTO contact_groups (account_id, name, created_at) VALUES (?, ?, ?)`);
    const insertContact = db.prepare(`INSERT INTO contacts (group_id, number, created_at) VALUES (?, ?, ?)`);
    const insertBlocked = db.prepare(
      `INSERT INTO blocked_numbers (account_id, subscriber, number, created_at) VALUES (?, ?, ?, ?)`,
    );
    const stateOf = (i: number): { state: string; detail: string | null } => {
      const r = i % 100;
      if (r < 90) return { state: 'delivered', detail: 'stat:DELIVRD' };
      if (r < 95) return { state: 'failed', detail: 'stat:UNDELIV' };
      if (r < 98) return { state: 'expired', detail: 'stat:EXPIRED' };
      return { state: 'sent', detail: null };
    };
    let id = Number(
      (db.prepare(`SELECT next_id FROM id_counter WHERE name = 'ids'`).get() as { next_id: number }).next_id,
    );
    let total = 0;
    const result: FilledPanelStore = { messages: 0, campaignId: 0, messageId: 0, deepCursor: '', number: '' };
    const span = shape.days * dayMs;
    for (const [a, account] of accounts.entries()) {
      const start = now - span;
      // Sends in time order, campaigns spread among the single sends.
      const sendsTotal = shape.campaigns + shape.singles;
      const campaignEvery = Math.floor(sendsTotal / Math.max(1, shape.campaigns));
      const writeBatch = db.transaction((from: number, to: number) => {
        for (let s = from; s < to; s++) {
          const at = start + Math.floor((s / sendsTotal) * span);
          const isCampaign = s % campaignEvery === 0 && Math.floor(s / campaignEvery) < shape.campaigns;
          const count = isCampaign ? shape.perCampaign : 1;
          const sendId = id++;
          insertSend.run(
            sendId,
            account.accountId,
            account.keyId,
            isCampaign ? 'group' : 'sms',
            isCampaign ? 'Bench campaign' : 'Bench single',
            count,
            count,
            at,
            at,
            count,
            isCampaign ? 1 : 0,
          );
          for (let i = 0; i < count; i++) {
            const { state, detail } = stateOf(total);
            const recipient = `9053${String(a)}${String((s * 7919 + i) % 10_000_000).padStart(7, '0')}`;
            const done = state === 'sent' ? null : at + 3000;
            insertMessage.run(
              id++,
              sendId,
              account.accountId,
              account.keyId,
              recipient,
              state,
              at,
              at + 1000,
              done,
              detail,
              at,
            );
            total++;
          }
          if (a === 0 && isCampaign) result.campaignId = sendId;
          if (a === 0 && s === Math.floor(sendsTotal / 3)) {
            result.deepCursor = `${at}.${id - 1}`;
            result.messageId = id - 1;
            result.number = recipient0(a, s);
          }
        }
      });
      const batch = 5000;
      for (let s = 0; s < sendsTotal; s += batch) writeBatch(s, Math.min(sendsTotal, s + batch));
      db.transaction(() => {
        const group = insertGroup.run(account.accountId, 'Bench customers', now);
        for (let i = 0; i < 1000; i++)
          insertContact.run(Number(group.lastInsertRowid), `90542${String(1_000_000 + i)}`, now);
        for (let i = 0; i < 1000; i++)
          insertBlocked.run(account.accountId, `543${String(1_000_000 + i)}`, `90543${String(1_000_000 + i)}`, now);
      })();
    }
    db.prepare(`UPDATE id_counter SET next_id = ? WHERE name = 'ids'`).run(id);
    // The store's writes keep the rollups (migration 0016); rows written here by hand are
    // counted once, as 0016 counts a store's existing messages.
    const day = `((m.created_at + ${istanbulOffsetMs}) / ${dayMs})`;
    const sums = `count(*), sum(m.sms_count), sum(case when m.state = 'delivered' then 1 else 0 end), sum(case when m.state in ('failed', 'expired') then 1 else 0 end)`;
    db.transaction(() => {
      db.exec('DELETE FROM daily_counts; DELETE FROM send_counts');
      db.exec(
        `INSERT INTO daily_counts (account_id, day, messages, sms, delivered, failed) SELECT m.account_id, ${day}, ${sums} FROM messages m GROUP BY m.account_id, ${day}`,
      );
      db.exec(
        `INSERT INTO send_counts (send_id, messages, sms, delivered, failed) SELECT m.send_id, ${sums} FROM messages m GROUP BY m.send_id`,
      );
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    result.messages = total;
    return result;
  } finally {
    db.close();
  }
}

function recipient0(account: number, send: number): string {
  return `9053${String(account)}${String((send * 7919) % 10_000_000).padStart(7, '0')}`;
}
