import type { Clock } from '../ports/clock.js';
import type { DirectoryStore } from '../ports/directory-store.js';
import { subscriberKey, turkishMobile } from '../domain/recipients.js';
import { localDate, localTime } from '../domain/istanbul-time.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';

export interface BlockStatus {
  code: 'TS-1143' | 'TS-1142';
  fields: { is_blocked: true; block_date: string; block_time: string } | { is_blocked: false };
}

/**
 * The number blocking list of an account. Entries are Türkiye mobile numbers stored as
 * 905XXXXXXXXX and compared by their last ten digits. The list is kept for the panel's
 * sends; API sends do not consult it (spec).
 */
export class BlocklistService {
  constructor(
    private readonly directory: DirectoryStore,
    private readonly clock: Clock,
  ) {}

  /** TS-1141 added; TS-1140 already listed; TS-1144 not a Türkiye mobile; TS-1033 not saved. */
  async add(accountId: number, raw: string): Promise<Result<'TS-1141'>> {
    const number = turkishMobile(raw);
    if (number === null) return fail('TS-1144');
    let outcome: 'added' | 'exists';
    try {
      outcome = await this.directory.blockNumber(
        accountId,
        { number, subscriber: subscriberKey(number) },
        this.clock.now(),
      );
    } catch {
      // The spec's row for this endpoint: a save error is TS-1033, and the caller retries.
      return fail('TS-1033', { variant: 'save', message: 'The number could not be saved; retry' });
    }
    return outcome === 'added' ? ok('TS-1141') : fail('TS-1140');
  }

  async status(accountId: number, raw: string): Promise<Result<BlockStatus>> {
    const number = turkishMobile(raw);
    if (number === null) return fail('TS-1144');
    const entry = await this.directory.findBlocked(accountId, subscriberKey(number));
    if (!entry) return ok({ code: 'TS-1142', fields: { is_blocked: false } });
    return ok({
      code: 'TS-1143',
      fields: {
        is_blocked: true,
        block_date: localDate(entry.createdAt),
        block_time: localTime(entry.createdAt).slice(0, 5),
      },
    });
  }

  /** Removal is the provider's (the panel's): `haberci admin blocklist remove`. */
  async remove(accountId: number, raw: string): Promise<Result<boolean>> {
    const number = turkishMobile(raw);
    if (number === null) return fail('TS-1144');
    return ok(await this.directory.unblockNumber(accountId, subscriberKey(number)));
  }
}
