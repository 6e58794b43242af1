/**
 * POST /sms/cancel, /group/cancel, /group/pause, /group/resume (../shared/interfaces.md,
 * "Campaign controls"): a customer steers the sends it made, by report id (or, for
 * /sms/cancel, a message's sms_id). The store does the work in one transaction each
 * (src/ports/campaign-controls.ts); this decides which sends each endpoint reaches.
 */
import type {
  CampaignControls,
  CancelOutcome,
  CancelPreview,
  ControlOutcome,
  SendTarget,
} from '../ports/campaign-controls.js';
import type { Clock } from '../ports/clock.js';
import type { SendKind } from '../ports/messages.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import { restOf } from './deferred-messages.js';

/** /group/* reach the sends of /group/send and /group/sendMixed; /sms/cancel those of /sms/send. */
const groupKinds: readonly SendKind[] = ['group', 'mixed'];
const smsKinds: readonly SendKind[] = ['sms'];

const reportNotFound = fail('TS-1029', { variant: 'not-found', message: 'Report not found' });

export class CampaignService {
  constructor(
    private readonly store: CampaignControls,
    private readonly clock: Clock,
    /** Tells the dispatchers that messages are queued again (a resume). */
    private readonly queued: () => void,
  ) {}

  /** A scheduled /sms/send by its report id, or one message of an /sms/send by its sms_id. */
  async cancelSms(accountId: number, smsId: number): Promise<Result<CancelOutcome>> {
    const now = this.clock.now();
    const target: SendTarget = { accountId, sendId: smsId, kinds: smsKinds };
    const outcome =
      (await this.store.cancelSend(target, now, restOf)) ?? (await this.store.cancelMessage(accountId, smsId, now));
    return outcome ? ok(this.cancelled(outcome)) : fail('TS-1020');
  }

  async cancelGroup(accountId: number, raporId: number): Promise<Result<CancelOutcome>> {
    const outcome = await this.store.cancelSend(this.group(accountId, raporId), this.clock.now(), restOf);
    return outcome ? ok(this.cancelled(outcome)) : reportNotFound;
  }

  /** A large cancel's rest is settled by the dispatchers' expanders: they are woken for it. */
  private cancelled(outcome: CancelOutcome): CancelOutcome {
    if (outcome.cancelled > 0) this.queued();
    return outcome;
  }

  async pauseGroup(accountId: number, raporId: number): Promise<Result<ControlOutcome>> {
    const outcome = await this.store.pause(this.group(accountId, raporId), this.clock.now());
    return outcome ? ok(outcome) : reportNotFound;
  }

  async resumeGroup(accountId: number, raporId: number): Promise<Result<ControlOutcome>> {
    const outcome = await this.store.resume(this.group(accountId, raporId), this.clock.now());
    if (!outcome) return reportNotFound;
    if (outcome.waiting > 0) this.queued();
    return ok(outcome);
  }

  /** What /group/cancel would stop and give back now (the panel asks before it cancels). */
  async previewGroupCancel(accountId: number, raporId: number): Promise<CancelPreview | null> {
    return this.store.previewCancel(this.group(accountId, raporId), restOf);
  }

  /** The same controls on another store of the same data (a transaction's, with its audit row). */
  on(store: CampaignControls): CampaignService {
    return new CampaignService(store, this.clock, this.queued);
  }

  private group(accountId: number, sendId: number): SendTarget {
    return { accountId, sendId, kinds: groupKinds };
  }
}
