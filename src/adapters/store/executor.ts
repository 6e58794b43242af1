import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/** What a store runs its queries on: the database, or a transaction it is part of. */
export type Executor = Kysely<Database> | Transaction<Database>;
