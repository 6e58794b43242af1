/**
 * One delivery state machine per message. Every place that reports a state (/sms/status,
 * the detailed report's status_code, webhook data.status, the summary counters) derives it
 * from here, so they cannot disagree.
 *
 *   queued ──claim──▶ submitting ──accepted──▶ sent ──report──▶ delivered | failed | expired
 *      ▲                  │  │
 *      └──── retry ───────┘  └──rejected──▶ failed
 *
 * "No report yet" is `sent` (or earlier) with no final report: it is not a state of its own.
 *
 * Its customer steers a send (docs/decisions.md, "Campaign controls"): a pause holds its
 * queued messages (queued ⇄ paused), a cancel ends those not yet handed to the dispatcher
 * (queued or paused ──▶ cancelled, final, their credit given back). A message the dispatcher
 * holds (submitting) runs its course.
 *
 * A send's validity (docs/decisions.md, "Send window, speed and validity"): a message the
 * claim finds past it ends expired without being submitted (submitting ──lapse──▶ expired).
 */
export type DeliveryState =
  'queued' | 'paused' | 'submitting' | 'sent' | 'delivered' | 'failed' | 'expired' | 'cancelled';
export type FinalState = 'delivered' | 'failed' | 'expired';
export type PartState = 'sent' | FinalState;

/**
 * The edges of the machine, each with the states it leaves: the store's writes guard their
 * SQL with these `from` lists (a claim, a submit accepted, a retry, a submit rejected, a
 * receipt that settles a message), so `canMove` says what the store does.
 */
export const moves = {
  claim: { from: ['queued'], to: ['submitting'] },
  accept: { from: ['submitting'], to: ['sent'] },
  retry: { from: ['submitting'], to: ['queued'] },
  reject: { from: ['queued', 'submitting'], to: ['failed'] },
  // A carrier's receipt proves the message reached the carrier: it settles the message at
  // any step before final, so one whose submit answer came after its lease ran out (queued
  // or submitting again) is not submitted a second time.
  receipt: { from: ['queued', 'submitting', 'sent'], to: ['delivered', 'failed', 'expired'] },
  pause: { from: ['queued'], to: ['paused'] },
  resume: { from: ['paused'], to: ['queued'] },
  cancel: { from: ['queued', 'paused'], to: ['cancelled'] },
  // A send's validity ended before the message was submitted: claimed, then ended, never
  // submitted (docs/decisions.md, "Send window, speed and validity").
  lapse: { from: ['submitting'], to: ['expired'] },
} as const satisfies Record<string, { from: readonly DeliveryState[]; to: readonly DeliveryState[] }>;

export function canMove(from: DeliveryState, to: DeliveryState): boolean {
  return Object.values(moves).some(
    (edge) =>
      (edge.from as readonly DeliveryState[]).includes(from) && (edge.to as readonly DeliveryState[]).includes(to),
  );
}

export function isFinal(state: DeliveryState): state is FinalState | 'cancelled' {
  return state === 'delivered' || state === 'failed' || state === 'expired' || state === 'cancelled';
}

/**
 * The state of a multi-part message from its parts: delivered only when every part is;
 * failed as soon as one part failed; expired when every part is final and one expired;
 * otherwise not final yet (null).
 */
export function combineParts(parts: readonly PartState[]): FinalState | null {
  if (parts.length === 0) return null;
  if (parts.includes('failed')) return 'failed';
  if (parts.includes('sent')) return null;
  return parts.includes('expired') ? 'expired' : 'delivered';
}

/** /sms/status: TS-1064 only when delivered; TS-1022 (no confirmation) otherwise. */
export function statusQueryAnswer(state: DeliveryState): { code: 'TS-1064' | 'TS-1022'; text: string } {
  if (state === 'delivered') return { code: 'TS-1064', text: 'Number received the message' };
  if (state === 'cancelled') return { code: 'TS-1022', text: cancelledText };
  return { code: 'TS-1022', text: 'The number did not receive the message' };
}

/** The `sms_status` of a cancelled message, in /sms/status and /reports/detailed alike. */
export const cancelledText = 'The message was cancelled before sending';

/** Detailed report: 1 delivered, 2 validity expired, 0 not delivered or no report yet. */
export function reportStatus(state: DeliveryState): { statusCode: 0 | 1 | 2; text: string } {
  if (state === 'delivered') return { statusCode: 1, text: 'Number received the message' };
  if (state === 'expired') return { statusCode: 2, text: 'Expiration time' };
  if (state === 'cancelled') return { statusCode: 0, text: cancelledText };
  return { statusCode: 0, text: "Number didn't receive the message" };
}

/** Webhook data.status of an event caused by entering a state; an expired message is a failure. */
export function webhookStatus(state: DeliveryState): 'sent' | 'delivered' | 'failed' | 'cancelled' | null {
  if (state === 'sent') return 'sent';
  if (state === 'cancelled') return 'cancelled';
  if (state === 'delivered') return 'delivered';
  if (state === 'failed' || state === 'expired') return 'failed';
  return null;
}

/** Summary counters: success, failed (incl. expired), cancelled, pending (everything not final). */
export function summaryBucket(state: DeliveryState): 'success' | 'failed' | 'cancelled' | 'pending' {
  if (state === 'delivered') return 'success';
  if (state === 'cancelled') return 'cancelled';
  if (state === 'failed' || state === 'expired') return 'failed';
  return 'pending';
}

/** The `details` text of a message in a state, unless the operator gave its own. */
export function detailText(state: DeliveryState): string {
  switch (state) {
    case 'queued':
    case 'submitting':
      return 'Queued for sending';
    case 'paused':
      return 'Paused: held until the send is resumed';
    case 'cancelled':
      return 'Cancelled before sending; its credit was given back';
    case 'sent':
      return 'Sent to the operator, waiting for the delivery report';
    case 'delivered':
      return 'Delivered';
    case 'failed':
      return 'Not delivered';
    case 'expired':
      return 'Validity period expired before delivery';
  }
}
