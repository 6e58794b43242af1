import type { Logger } from 'pino';
import type { SubmitOutcome } from '../ports/carrier.js';
import type { Clock } from '../ports/clock.js';
import type { ClaimedMessage, DispatchQueue, SentItem, Transition } from '../ports/dispatch-queue.js';
import { errorFields } from '../util/error-fields.js';
import { MicroBatcher } from '../util/micro-batcher.js';
import { maxWriteBatch, retryDelay } from './dispatcher-options.js';
import type { DispatcherOptions } from './dispatcher-options.js';
import { retryStoreWrite } from './store-retry.js';

/**
 * Records what the carrier answered to a submit: sent (with the carrier's ids), failed for
 * good, or due again after a backoff. Sent outcomes are written a batch per transaction, at
 * most 500 a batch (a longer transaction would keep HTTP requests waiting behind it),
 * gathered for `writeGatherMs` so that fewer transactions carry them.
 */
export class SubmitRecorder {
  private readonly sent: MicroBatcher<SentItem, Transition[]>;

  constructor(
    private readonly store: DispatchQueue,
    clock: Clock,
    private readonly log: Logger,
    private readonly options: Pick<
      DispatcherOptions,
      'leaseMs' | 'writeGatherMs' | 'maxAttempts' | 'retryBaseMs' | 'retryMaxMs'
    >,
    /** Told of the state changes recorded (each says whether it wrote a webhook event). */
    private readonly onTransitions: (t: Transition[]) => void,
  ) {
    this.sent = new MicroBatcher(
      (items: SentItem[]) => store.markSentMany(items, clock.now()),
      maxWriteBatch,
      options.writeGatherMs,
    );
  }

  /**
   * Records an outcome. The carrier has the message now: losing this write to a database
   * blip would send it again when the lease runs out, so it is retried for up to half the
   * lease; a rejection means it was given up (the lease brings the message back).
   */
  record(m: ClaimedMessage, carrier: string, outcome: SubmitOutcome, now: number): Promise<void> {
    return retryStoreWrite(
      () => this.write(m, carrier, outcome, now),
      this.options.leaseMs / 2,
      (error, attempt) => {
        if (attempt === 1)
          this.log.warn(
            { err: errorFields(error), messageId: m.id },
            'dispatcher: could not record a submit outcome; trying again',
          );
      },
    );
  }

  private async write(m: ClaimedMessage, carrier: string, outcome: SubmitOutcome, now: number): Promise<void> {
    if (outcome.kind === 'accepted') {
      this.onTransitions(
        await this.sent.add({ messageId: m.id, carrier, carrierMessageIds: outcome.carrierMessageIds }),
      );
    } else if (outcome.kind === 'rejected' || m.attempts >= this.options.maxAttempts) {
      const detail =
        outcome.kind === 'rejected'
          ? `Rejected by the operator: ${outcome.reason}`
          : `Not submitted after ${m.attempts} attempts: ${outcome.reason}`;
      const t = await this.store.markFailed(m.id, detail, now);
      if (t) this.onTransitions([t]);
    } else {
      await this.store.markRetry(
        m.id,
        now + retryDelay(m.attempts, this.options, outcome.afterMs),
        `Waiting to retry: ${outcome.reason}`,
      );
    }
  }
}
