/** Idempotency keys of send requests. */
import type { IdempotencyStore, IdempotentAnswer } from '../../ports/idempotency.js';
import { StorePart } from './store-part.js';

/** How long a key holds its request and answer. */
const keptMs = 24 * 3600_000;

export class SqlIdempotencyStore extends StorePart implements IdempotencyStore {
  async find(accountId: number, key: string): Promise<IdempotentAnswer | null> {
    const r = await this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('idem_key', '=', key)
      .executeTakeFirst();
    return r ? { requestHash: r.request_hash, response: r.response, createdAt: Number(r.created_at) } : null;
  }

  async save(accountId: number, key: string, requestHash: string, response: string, now: number): Promise<boolean> {
    const result = await this.db
      .insertInto('idempotency_keys')
      .values({ account_id: accountId, idem_key: key, request_hash: requestHash, response, created_at: now })
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'idem_key'])
          .doUpdateSet({ request_hash: requestHash, response, created_at: now })
          .where('idempotency_keys.created_at', '<', now - keptMs),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async forget(accountId: number, key: string): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', accountId)
      .where('idem_key', '=', key)
      .execute();
  }
}
