/**
 * What every part of the store (one aggregate each) is built on, and the store's one
 * transaction idiom: `transact(work)` runs work on a copy of the part bound to a new
 * transaction, or on the part itself when it already runs inside one.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Executor } from './executor.js';
import type { DialectSql } from './dialect-sql.js';
import type { LookupCaches } from './lookup-caches.js';

export interface PartContext {
  db: Executor;
  /** What the dialect does its own way (row locks, ids). */
  sql: DialectSql;
  /**
   * The lookup caches, shared by the parts of one connection (those bound to its
   * transactions too): read only outside transactions (a transaction must see its own
   * writes), told of every write that changes what they hold. Null on PostgreSQL without `cacheLookups`.
   */
  caches: LookupCaches | null;
}

/** Runs work in a transaction: the one `db` already is, or a new one. */
export function withTransaction<T>(db: Executor, work: (trx: Executor) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  return (db as Kysely<Database>).transaction().execute((trx) => work(trx));
}

/** The same context on another executor (a transaction). */
export function boundTo(context: PartContext, db: Executor): PartContext {
  return { ...context, db };
}

export abstract class StorePart {
  constructor(protected readonly context: PartContext) {}

  protected get db(): Executor {
    return this.context.db;
  }

  protected get sql(): DialectSql {
    return this.context.sql;
  }

  /** The caches to read: none inside a transaction, which must see its own writes. */
  protected get readCaches(): LookupCaches | null {
    return this.context.db.isTransaction ? null : this.context.caches;
  }

  /** Runs work in one transaction, on this part bound to it. */
  protected transact<T>(work: (self: this) => Promise<T>): Promise<T> {
    return withTransaction(this.context.db, (trx) => work(trx === this.context.db ? this : this.on(trx)));
  }

  /** This part on another executor: every part is built from its context alone. */
  private on(db: Executor): this {
    const make = this.constructor as new (context: PartContext) => this;
    return new make(boundTo(this.context, db));
  }
}
