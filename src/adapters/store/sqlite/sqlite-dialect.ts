import { SqliteAdapter, SqliteDialect } from 'kysely';
import type { DialectAdapter, Driver } from 'kysely';
import { ImmediateSqliteDriver } from './immediate-driver.js';

/**
 * SQLite runs DDL inside transactions, but Kysely's SQLite adapter says it cannot, so its
 * migrator ran each statement on its own. A crash between two statements of a migration
 * (or before the migration was recorded) left its tables made and it unrecorded, and every
 * later start failed on "table already exists" (8 of 40 `kill -9` during a first start).
 * Saying it can makes one run of migrations one transaction: all of it or none. Its BEGIN
 * IMMEDIATE is also the lock between processes migrating the same file at once.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** Kysely's SQLite dialect with BEGIN IMMEDIATE behind the threads' lock, and transactional DDL. */
export class ImmediateSqliteDialect extends SqliteDialect {
  /** What its driver is made of: the statement cache (the database Kysely sees), the connection, the threads' lock, the write faults. */
  private readonly driverParts: ConstructorParameters<typeof ImmediateSqliteDriver>;

  constructor(...driverParts: ConstructorParameters<typeof ImmediateSqliteDriver>) {
    super({ database: driverParts[0] });
    this.driverParts = driverParts;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(...this.driverParts);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
