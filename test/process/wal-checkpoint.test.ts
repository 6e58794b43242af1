/**
 * With delivery threads, no commit of `serve` checkpoints the WAL (SQLite's automatic
 * checkpoint would hold the committing thread, and every thread waiting for the write lock,
 * for its fsync): the dispatch thread copies the WAL back into the database file on a timer.
 * Seen from outside: an accepted message reaches the database file itself within a second,
 * long before the WAL reaches the 1,000 pages that would start an automatic checkpoint.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { openConnection } from '../../src/adapters/store/open-store.js';
import { postJson, provisionSender, startServer } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

/** The message's state as the database file alone has it (a copy without its WAL), or null. */
function stateInDatabaseFile(dir: string, messageId: number): string | null {
  const copy = join(dir, 'copy.sqlite');
  copyFileSync(join(dir, 'haberci.sqlite'), copy);
  const db = new BetterSqlite3(copy, { readonly: true });
  try {
    const row = db.prepare('select state from messages where id = ?').get(messageId) as { state: string } | undefined;
    return row?.state ?? null;
  } catch {
    return null; // copied halfway through a checkpoint: look again
  } finally {
    db.close();
    rmSync(copy, { force: true });
  }
}

describe('WAL checkpoints under serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-checkpoint-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('copies an accepted message into the database file within a second, from the dispatch thread', async () => {
    const server = await startServer([
      '--data',
      dir,
      '--demo',
      'false',
      '--requests-per-second',
      '0',
      '--sim-delay-ms',
      '0',
    ]);
    try {
      const { apiKey: key } = await provisionSender(['--data', dir], 'Checkpoint', 10);
      const sent = await postJson(`${server.url}/sms/send`, {
        api_key: key,
        sentto: '905321234567',
        title: 'ACME',
        text: 'checkpointed',
        sms_lang: 0,
      });
      assert.equal(sent.body.result_code, 'TS-1024');
      const messageId = Number(sent.body.sms_id);

      let state: string | null = null;
      // On time-out the assertion below says what the file holds.
      await waitFor(
        'the delivered state in the database file',
        () => (state = stateInDatabaseFile(dir, messageId)) === 'delivered',
        { timeoutMs: 3_000, intervalMs: 100 },
      ).catch(() => undefined);
      assert.equal(
        state,
        'delivered',
        'the delivered message is not in the database file: the WAL was not checkpointed',
      );
    } finally {
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    }
  });
});

describe('SQLite connection checkpoints', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-checkpoint-db-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("'manual' turns SQLite's automatic checkpoint off, 'auto' leaves it on", async () => {
    for (const [checkpoints, expected] of [
      ['manual', 0],
      ['auto', 1000],
    ] as const) {
      const handle = openConnection({ dialect: 'sqlite', file: join(dir, `${checkpoints}.sqlite`), checkpoints });
      try {
        const pages = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(handle.db);
        assert.equal(pages.rows[0]?.wal_autocheckpoint, expected);
      } finally {
        await handle.close();
      }
    }
  });

  it('checkpoint() does nothing inside a transaction and copies the WAL outside one', async () => {
    const file = join(dir, 'copy-back.sqlite');
    const handle = openConnection({ dialect: 'sqlite', file, checkpoints: 'manual' });
    const reader = (): number => {
      copyFileSync(file, join(dir, 'only-file.sqlite'));
      const db = new BetterSqlite3(join(dir, 'only-file.sqlite'), { readonly: true });
      try {
        return (db.prepare("select count(*) as n from sqlite_master where name = 't'").get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    try {
      await handle.db.transaction().execute(async (trx) => {
        await sql`create table t (x integer)`.execute(trx);
        assert.doesNotThrow(() => handle.checkpoint?.());
      });
      assert.equal(reader(), 0, 'the table reached the database file without a checkpoint');
      handle.checkpoint?.();
      assert.equal(reader(), 1);
    } finally {
      await handle.close();
    }
  });
});
