/**
 * The dispatcher's claim reads queued messages in index order and stops at its limit: no
 * sort of every due message (a cost that grew with the queue before migration 0007).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { openConnection } from '../../../src/adapters/store/open-store.js';

describe('the claim order on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-claim-plan-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('uses the messages_due index for the whole ORDER BY (no temporary B-tree)', async () => {
    const handle = openConnection({ dialect: 'sqlite', file: join(dir, 'plan.sqlite') });
    try {
      await migrate(handle);
      const { rows } = await sql<{
        detail: string;
      }>`explain query plan select id from messages where state = 'queued' and due_at <= ${1} order by priority, due_at, id limit 100`.execute(
        handle.db,
      );
      const plan = rows.map((r) => r.detail).join('\n');
      assert.match(plan, /USING (COVERING )?INDEX messages_due/);
      assert.doesNotMatch(plan, /TEMP B-TREE/);
    } finally {
      await handle.close();
    }
  });
});
