import type { SubmitOutcome } from '../../../ports/carrier.js';
import type { PartResult } from './smpp-connection.js';
import { Status, statusText } from '../../../smpp/smpp-wire.js';

/**
 * How a failed submit_sm becomes the pipeline's outcome. Throttling and a full queue are
 * passing conditions (retry with a hint), never failures; other refusals are permanent.
 */

/** Hints for the pipeline's next attempt, by cause. */
export const RETRY_AFTER_MS = {
  throttled: 1_000,
  queueFull: 5_000,
  /** Not bound, or the connection dropped: about one reconnect away. */
  connection: 2_000,
} as const;

export function isTransientStatus(status: number): boolean {
  return status === Status.THROTTLED || status === Status.MSGQFUL;
}

/** `part` is "" for a single-part message, else "part 2/3: ". */
export function outcomeOf(
  result: Exclude<PartResult, { kind: 'accepted' }>,
  part: string,
  anyAccepted: boolean,
): SubmitOutcome {
  const orphan = anyAccepted ? ' (earlier parts were accepted and may arrive alone)' : '';
  switch (result.kind) {
    case 'status':
      if (result.status === Status.THROTTLED)
        return {
          kind: 'retry',
          reason: `${part}SMSC throttled ${statusText(result.status)}${orphan}`,
          afterMs: RETRY_AFTER_MS.throttled,
        };
      if (result.status === Status.MSGQFUL)
        return {
          kind: 'retry',
          reason: `${part}SMSC queue full ${statusText(result.status)}${orphan}`,
          afterMs: RETRY_AFTER_MS.queueFull,
        };
      return { kind: 'rejected', reason: `${part}SMSC refused the message: ${statusText(result.status)}${orphan}` };
    case 'lost':
      return {
        kind: 'retry',
        reason: `${part}no submit_sm_resp (${result.why === 'dropped' ? 'connection dropped' : 'timed out'}); the SMSC may already have it${orphan}`,
        afterMs: RETRY_AFTER_MS.connection,
      };
    case 'unavailable':
      return {
        kind: 'retry',
        reason: `${part}no bound SMPP connection with room to submit${orphan}`,
        afterMs: RETRY_AFTER_MS.connection,
      };
  }
}
