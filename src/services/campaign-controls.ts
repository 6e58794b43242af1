/**
 * POST /sms/cancel, /group/cancel, /group/pause, /group/resume (../shared/interfaces.md,
 * "Campaign controls"): a customer steers the sends it made, by report id (or, for
 * /sms/cancel, a message's sms_id). The store does the work in one transaction each
 * (src/ports/campaign-controls.ts); this decides which sends each endpoint reaches.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  CampaignControls,
  CancelCommit,
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

/**
 * How long a cancel's answer waits at most for the dispatchers to give back, or finish
 * submitting, the messages they had claimed (about `controlCheckMs` plus what the carrier's
 * window holds, at its pace); past it the answer counts what is settled, and the rest
 * settles after it.
 */
export const inFlightWaitMs = 2_000;
const inFlightPollMs = 20;

const reportNotFound = fail('TS-1029', { variant: 'not-found', message: 'Report not found' });

export class CampaignService {
  constructor(
    private readonly store: CampaignControls,
    private readonly clock: Clock,
    /** Tells the dispatchers that messages are queued again (a resume). */
    private readonly queued: () => void,
    /** False inside another transaction (the panel's, with its audit row), which must not wait on other writers. */
    private readonly waits = true,
  ) {}

  /** A scheduled /sms/send by its report id, or one message of an /sms/send by its sms_id. */
  async cancelSms(accountId: number, smsId: number): Promise<Result<CancelOutcome>> {
    const now = this.clock.now();
    const target: SendTarget = { accountId, sendId: smsId, kinds: smsKinds };
    const outcome =
      (await this.store.cancelSend(target, now, restOf)) ?? (await this.store.cancelMessage(accountId, smsId, now));
    return outcome ? ok(await this.cancelled(outcome)) : fail('TS-1020');
  }

  async cancelGroup(accountId: number, raporId: number): Promise<Result<CancelOutcome>> {
    const outcome = await this.store.cancelSend(this.group(accountId, raporId), this.clock.now(), restOf);
    return outcome ? ok(await this.cancelled(outcome)) : reportNotFound;
  }

  /**
   * A large cancel's rest is settled by the dispatchers' expanders: they are woken for it.
   * The messages the dispatchers had claimed are given back or submitted before the answer,
   * so nothing of the send reaches an operator after it (docs/decisions.md, "Campaign controls").
   */
  private async cancelled(outcome: CancelCommit | CancelOutcome): Promise<CancelOutcome> {
    const answer = { cancelled: outcome.cancelled, refunded: outcome.refunded };
    if (!('inFlight' in outcome) || outcome.inFlight.length === 0 || !this.waits) {
      if (outcome.cancelled > 0) this.queued();
      return answer;
    }
    // The settling is woken after the wait: a chunk of it would hold up the dispatcher's giving back.
    const more = await this.settleInFlight(outcome.inFlight);
    if (answer.cancelled + more.cancelled > 0) this.queued();
    return { cancelled: answer.cancelled + more.cancelled, refunded: answer.refunded + more.refunded };
  }

  /** Waits (at most `inFlightWaitMs`) until no dispatcher holds these messages; what became of them. */
  async settleInFlight(messageIds: readonly number[]): Promise<CancelOutcome> {
    const deadline = performance.now() + inFlightWaitMs;
    for (;;) {
      const settling = await this.store.inFlightSettling(messageIds);
      if (settling.submitting === 0 || performance.now() >= deadline)
        return { cancelled: settling.cancelled, refunded: settling.refunded };
      await sleep(inFlightPollMs);
    }
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

  /**
   * The same controls on another store of the same data (a transaction's, with its audit
   * row): a cancel there does not wait for the dispatchers (they could not write meanwhile).
   * Its answer counts what the transaction cancelled; the messages the dispatchers had
   * claimed are given back cancelled within `controlCheckMs` after it, or submitted.
   */
  on(store: CampaignControls): CampaignService {
    return new CampaignService(store, this.clock, this.queued, false);
  }

  private group(accountId: number, sendId: number): SendTarget {
    return { accountId, sendId, kinds: groupKinds };
  }
}
