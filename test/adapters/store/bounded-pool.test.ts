/**
 * The PostgreSQL pool's account of a failed statement (postgres/bounded-pool.ts) and of a
 * silent store (postgres/silence.ts), on a pool of fake connections: what may have been
 * committed decides the error (503 or 500 at the API: docs/decisions.md, "A silent
 * PostgreSQL answered in time"), a lost connection is never reused, and once a statement
 * went unanswered connections are refused at once until a probe is answered.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { boundedPool } from '../../../src/adapters/store/postgres/bounded-pool.js';
import { StoreOutcomeUnknown, StoreUnavailable, storeFault } from '../../../src/util/store-faults.js';
import { waitFor } from '../../helpers/wait-for.js';

type Answer = (sql: string) => Promise<unknown>;

const answered: Answer = async () => ({ rows: [], rowCount: 0, command: 'SELECT' });
const readTimeout = (): Promise<never> => Promise.reject(new Error('Query read timeout'));
const serverError = (code: string): Promise<never> =>
  Promise.reject(Object.assign(new Error('refused'), { code, severity: 'ERROR' }));

class FakeClient extends EventEmitter {
  readonly sent: string[] = [];
  readonly released: (Error | undefined)[] = [];
  constructor(private readonly pool: FakePool) {
    super();
  }
  query(sql: string): Promise<unknown> {
    this.sent.push(sql);
    return this.pool.answer(sql);
  }
  release(error?: Error): void {
    this.released.push(error);
    if (error === undefined) this.pool.idle.push(this);
  }
}

/** pg.Pool's part the bounded pool uses: idle connections first, new ones announced by `connect`. */
class FakePool extends EventEmitter {
  readonly idle: FakeClient[] = [];
  readonly made: FakeClient[] = [];
  answer: Answer = answered;
  async connect(): Promise<FakeClient> {
    const idle = this.idle.shift();
    if (idle) return idle;
    const client = new FakeClient(this);
    this.made.push(client);
    this.emit('connect', client);
    return client;
  }
  async end(): Promise<void> {}
}

function open(): { fake: FakePool; pool: ReturnType<typeof boundedPool>; events: string[] } {
  const fake = new FakePool();
  const events: string[] = [];
  const pool = boundedPool(fake as unknown as pg.Pool, {
    silent: () => events.push('silent'),
    heard: () => events.push('heard'),
  });
  return { fake, pool, events };
}

const query = (client: Awaited<ReturnType<ReturnType<typeof boundedPool>['connect']>>, sql: string) =>
  client.query(sql, []);

describe('bounded pool', () => {
  it('a statement inside a transaction not answered: nothing committed, the ROLLBACK not sent, the connection ended', async () => {
    const { fake, pool } = open();
    const client = await pool.connect();
    await query(client, 'begin');
    fake.answer = (sql) => (sql.startsWith('insert') ? readTimeout() : answered(sql));
    const lost = await query(client, 'insert into sends values (1)').catch((e: unknown) => e);
    assert.ok(lost instanceof StoreUnavailable, String(lost));
    assert.equal(storeFault(lost), 'unavailable');
    const rollback = await query(client, 'rollback').catch((e: unknown) => e);
    assert.equal(rollback, lost, 'the ROLLBACK fails with what broke the connection');
    client.release();
    const raw = fake.made[0];
    assert.ok(raw);
    assert.deepEqual(raw.sent, ['begin', 'insert into sends values (1)']);
    assert.ok(raw.released[0] instanceof Error, 'released with an error: ended, never reused');
    await pool.end();
  });

  it('a COMMIT not answered: its outcome is unknown, and no fault to try again', async () => {
    const { fake, pool } = open();
    const client = await pool.connect();
    await query(client, 'begin');
    await query(client, 'insert into sends values (1)');
    fake.answer = (sql) => (sql === 'commit' ? readTimeout() : answered(sql));
    const lost = await query(client, 'commit').catch((e: unknown) => e);
    assert.ok(lost instanceof StoreOutcomeUnknown, String(lost));
    assert.equal(storeFault(lost), null);
    client.release();
    await pool.end();
  });

  it('outside a transaction a write lost on its way is of unknown outcome, a read is not; a savepoint keeps the transaction', async () => {
    const { fake, pool } = open();
    fake.answer = (sql) => (sql.startsWith('select') || sql.startsWith('update') ? readTimeout() : answered(sql));
    const reader = await pool.connect();
    assert.ok((await query(reader, 'select 1').catch((e: unknown) => e)) instanceof StoreUnavailable);
    reader.release();
    await pool.end();

    const second = open();
    const writes = await second.pool.connect();
    second.fake.answer = (sql) => (sql.startsWith('update') ? readTimeout() : answered(sql));
    assert.ok(
      (await query(writes, 'update key_usage set n = n + 1').catch((e: unknown) => e)) instanceof StoreOutcomeUnknown,
    );
    writes.release();
    await second.pool.end();

    const third = open();
    const inside = await third.pool.connect();
    await query(inside, 'begin');
    await query(inside, 'savepoint store_work');
    await query(inside, 'rollback to savepoint store_work');
    third.fake.answer = (sql) => (sql.startsWith('update') ? readTimeout() : answered(sql));
    // Still inside the transaction: its COMMIT was never sent.
    assert.ok((await query(inside, 'update accounts set b = 1').catch((e: unknown) => e)) instanceof StoreUnavailable);
    inside.release();
    await third.pool.end();
  });

  it("passes a server's error as it is and keeps the connection; a cancelled statement is a fault to try later", async () => {
    const { fake, pool } = open();
    const client = await pool.connect();
    fake.answer = (sql) => (sql.startsWith('insert') ? serverError('23505') : serverError('57014'));
    const refused = await query(client, 'insert into sends values (1)').catch((e: unknown) => e);
    assert.equal((refused as { code?: unknown }).code, '23505');
    assert.equal(storeFault(refused), null);
    const cancelled = await query(client, 'select pg_sleep(60)').catch((e: unknown) => e);
    assert.equal(storeFault(cancelled), 'unavailable');
    fake.answer = answered;
    await query(client, 'select 1');
    client.release();
    assert.deepEqual(fake.made[0]?.released, [undefined], 'kept');
    await pool.end();
  });

  it('once a statement is not answered, refuses connections at once until a probe is answered, then opens new ones', async () => {
    const { fake, pool, events } = open();
    const early = await pool.connect();
    const idle = await pool.connect();
    idle.release();
    fake.answer = readTimeout;
    await query(early, 'select 1').catch(() => undefined);
    early.release();
    assert.deepEqual(events, ['silent']);
    const refused = await pool.connect().catch((e: unknown) => e);
    assert.ok(refused instanceof StoreUnavailable, String(refused));
    assert.match(refused.message, /has not answered since/);
    // The store answers again: the next probe finds it, and connections are given again.
    fake.answer = answered;
    await waitFor('a probe answered', () => events.includes('heard'));
    const after = await pool.connect();
    await query(after, 'select 1');
    after.release();
    // The connection opened before the silence was ended, not given again.
    const before = fake.made[1];
    assert.ok(before);
    assert.ok(before.released.at(-1) instanceof Error);
    assert.ok(fake.made.length >= 3, 'new connections were opened');
    await pool.end();
  });
});
