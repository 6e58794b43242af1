import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Fills a stopped server's SQLite store with finished campaigns of one account, fast: one
 * transaction of prepared inserts into `sends` and `messages` as the schema
 * (src/adapters/store/migrations/) has them, ids taken from `id_counter` as the store
 * takes them. Each campaign is a delivered /group/send: kind `group`, fully expanded, every
 * message `delivered` with its submit and receipt times. Only for building a large store
 * around a real send; the measured report always comes from a real /group/send.
 */
export function fillDeliveredCampaigns(
  dataDir: string,
  target: { accountId: number; keyId: number },
  campaigns: number,
  perCampaign: number,
  now: number,
): void {
  const db = new Database(join(dataDir, 'haberci.sqlite'));
  try {
    db.pragma('journal_mode = WAL');
    const insertSend = db.prepare(
      `INSERT INTO sends (id, account_id, key_id, kind, sender, text, lang, content_type, scheduled_at, sandbox, total_numbers, invalid_numbers, blocked_numbers, sms_cost, pending_recipients, created_at, updated_at, expanded_count, expand_lease_until, priority)
       VALUES (?, ?, ?, 'group', 'BENCH', 'Benchmark campaign', 0, 0, NULL, 0, ?, 0, 0, ?, NULL, ?, ?, ?, NULL, 1)`,
    );
    const insertMessage = db.prepare(
      `INSERT INTO messages (id, send_id, account_id, key_id, recipient, text, sms_count, operator, state, priority, due_at, lease_until, attempts, carrier, submitted_at, done_at, detail, sandbox, created_at)
       VALUES (?, ?, ?, ?, ?, NULL, 1, 'TURKCELL', 'delivered', 1, ?, NULL, 1, 'simulator', ?, ?, NULL, 0, ?)`,
    );
    const fill = db.transaction(() => {
      const row = db.prepare(`SELECT next_id FROM id_counter WHERE name = 'ids'`).get() as { next_id: number };
      let id = Number(row.next_id);
      for (let c = 0; c < campaigns; c++) {
        // Spread over the last days, a campaign an hour apart, before the real send.
        const createdAt = now - (campaigns - c) * 3_600_000;
        const sendId = id++;
        insertSend.run(
          sendId,
          target.accountId,
          target.keyId,
          perCampaign,
          perCampaign,
          createdAt,
          createdAt,
          perCampaign,
        );
        for (let i = 0; i < perCampaign; i++) {
          const recipient = `90532${String(1_000_000 + i).padStart(7, '0')}`;
          insertMessage.run(
            id++,
            sendId,
            target.accountId,
            target.keyId,
            recipient,
            createdAt,
            createdAt + 1000,
            createdAt + 2000,
            createdAt,
          );
        }
      }
      db.prepare(`UPDATE id_counter SET next_id = ? WHERE name = 'ids'`).run(id);
    });
    fill();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** The id of the one key of an account (the bench's provisioning creates exactly one). */
export function keyIdOf(dataDir: string, accountId: number): number {
  const db = new Database(join(dataDir, 'haberci.sqlite'), { readonly: true });
  try {
    const row = db.prepare('SELECT id FROM api_keys WHERE account_id = ? ORDER BY id LIMIT 1').get(accountId) as
      { id: number } | undefined;
    if (row === undefined) throw new Error(`account ${accountId} has no key`);
    return row.id;
  } finally {
    db.close();
  }
}
