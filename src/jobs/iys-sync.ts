/**
 * The sync with İYS, for each account whose İYS settings have an address (`haberci admin
 * iys configure --url`). A round, every `everyMs`:
 * - push: the account's records due (pending: recorded by /iys/consent/add or a RET by
 *   reply, or an earlier push that did not get through) go to İYS in batches. Taken: synced.
 *   Refused by İYS for the record itself: failed, with İYS's reason, not retried. İYS not
 *   reachable, not answering in time, 5xx: still pending, its attempts counted, its error
 *   kept, and due again after a wait that doubles per attempt up to `retryMaxMs`.
 * - pull: the changes made on İYS (recipients' RETs on İYS's site, say) after the account's
 *   cursor are recorded (the newest consent date wins, as for any record; state from_iys,
 *   never pushed back), then the cursor moves on.
 * Everything is in the store before and after each step, so an outage or a restart loses
 * nothing: what was not settled is pushed again, what was pulled but not yet moved past is
 * pulled again (recording it twice changes nothing). On PostgreSQL one process of a cluster
 * syncs at a time. No secret is logged: the errors of the İYS client never hold one.
 */
import { Periodic } from '../util/periodic.js';
import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.js';
import type { ConsentStore, ConsentToSync, IysSettings, SyncOutcome } from '../ports/consent-store.js';
import { IysUnavailable } from '../ports/iys-api.js';
import type { IysApi } from '../ports/iys-api.js';
import { errorFields } from '../util/error-fields.js';

export interface IysSyncOptions {
  /** Time between rounds; also the first wait before a record that did not get through is pushed again. */
  everyMs: number;
  /** The longest wait before a record is pushed again. */
  retryMaxMs: number;
  /** Records a push request holds. */
  pushBatch?: number;
  /** Changes a pull request asks for. */
  pullLimit?: number;
}

/** Batches (or pages) an account gets a round at most, so that one account does not hold the others up. */
const perRound = 20;

/** The wait before the next push of a record that has been tried `attempts` times (1 or more). */
export function retryWait(attempts: number, everyMs: number, maxMs: number): number {
  return Math.min(maxMs, everyMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

export class IysSync {
  private readonly rounds: Periodic;
  private readonly apis = new Map<number, { updatedAt: number; api: IysApi }>();

  constructor(
    private readonly store: ConsentStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: IysSyncOptions,
    private readonly apiFor: (settings: IysSettings) => IysApi,
  ) {
    this.rounds = new Periodic(() => this.syncOnce(), options.everyMs);
  }

  start(): void {
    this.rounds.start(Math.min(1_000, this.options.everyMs));
  }

  /** Ends after the step in progress. */
  stop(): Promise<void> {
    return this.rounds.stop();
  }

  /** One round for every syncing account; never throws (what failed is tried at a later round). */
  async syncOnce(): Promise<void> {
    try {
      const ran = await this.store.exclusively(async () => {
        for (const settings of await this.store.syncingAccounts()) {
          if (this.rounds.stopping) return;
          const api = this.api(settings);
          await this.push(settings.accountId, api);
          if (this.rounds.stopping) return;
          await this.pull(settings.accountId, api);
        }
      });
      if (!ran) this.log.debug('iys: another process syncs with İYS now; skipped this round');
    } catch (error) {
      this.log.warn({ err: errorFields(error) }, 'iys: a sync round failed; trying again at the next round');
    }
  }

  private api(settings: IysSettings): IysApi {
    const known = this.apis.get(settings.accountId);
    if (known && known.updatedAt === settings.updatedAt) return known.api;
    const api = this.apiFor(settings);
    this.apis.set(settings.accountId, { updatedAt: settings.updatedAt, api });
    return api;
  }

  private async push(accountId: number, api: IysApi): Promise<void> {
    const batch = this.options.pushBatch ?? 500;
    for (let round = 0; round < perRound && !this.rounds.stopping; round++) {
      const due = await this.store.dueForSync(accountId, this.clock.now(), batch);
      if (due.length === 0) return;
      let outcomes: SyncOutcome[];
      try {
        const results = await api.add(due);
        outcomes = due.map((consent, i) => {
          const r = results[i];
          if (r === undefined) return this.retry(consent, 'İYS gave no result for this record');
          return r.ok ? { consent, result: 'synced' } : { consent, result: 'failed', error: r.error };
        });
      } catch (error) {
        if (!(error instanceof IysUnavailable)) throw error;
        await this.store.settleSync(
          accountId,
          due.map((consent) => this.retry(consent, error.message)),
          this.clock.now(),
        );
        this.log.warn(
          { account: accountId, records: due.length, error: error.message },
          'iys: İYS did not take the records; they stay pending and are pushed again later',
        );
        return;
      }
      await this.store.settleSync(accountId, outcomes, this.clock.now());
      const failed = outcomes.filter((o) => o.result === 'failed').length;
      this.log.info({ account: accountId, synced: outcomes.length - failed, failed }, 'iys: records pushed to İYS');
      if (due.length < batch) return;
    }
  }

  private retry(consent: ConsentToSync, error: string): SyncOutcome {
    const wait = retryWait(consent.attempts + 1, this.options.everyMs, this.options.retryMaxMs);
    return { consent, result: 'retry', error, dueAt: this.clock.now() + wait };
  }

  private async pull(accountId: number, api: IysApi): Promise<void> {
    const limit = this.options.pullLimit ?? 1000;
    let cursor = await this.store.pullCursor(accountId);
    for (let page = 0; page < perRound && !this.rounds.stopping; page++) {
      let got;
      try {
        got = await api.changes(cursor, limit);
      } catch (error) {
        if (!(error instanceof IysUnavailable)) throw error;
        this.log.warn({ account: accountId, error: error.message }, 'iys: changes made on İYS not pulled; next round');
        return;
      }
      // Recorded before the cursor moves: a restart between the two pulls them again, harmlessly.
      if (got.consents.length > 0) await this.store.record(accountId, got.consents, this.clock.now(), 'iys');
      if (got.skipped.length > 0)
        this.log.info(
          { account: accountId, skipped: got.skipped.length },
          'iys: changes that are not SMS consents skipped',
        );
      if (got.after !== null && got.after !== cursor) await this.store.savePullCursor(accountId, got.after);
      if (got.consents.length > 0)
        this.log.info({ account: accountId, records: got.consents.length }, 'iys: changes made on İYS recorded');
      if (got.consents.length + got.skipped.length < limit || got.after === cursor) return;
      cursor = got.after;
    }
  }
}
