import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/** What a store runs its queries on: the database, or a transaction it is part of. */
export type Executor = Kysely<Database> | Transaction<Database>;

/** Runs work in a transaction: the one the executor already is, or a new one. */
export function withTransaction<T>(db: Executor, work: (trx: Executor) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  return (db as Kysely<Database>).transaction().execute((trx) => work(trx));
}
