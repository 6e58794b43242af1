/**
 * query_sm answered from the message the message_id names (the sms_id in decimal, as
 * given in submit_sm_resp), among the bound account's own messages: message_state
 * ENROUTE (1) until final, then DELIVERED (2), EXPIRED (3) or UNDELIVERABLE (5), and
 * final_date when final (SMPP absolute time, UTC). An id the account has no message for
 * (another account's, a part's own id, anything else) is ESME_RQUERYFAIL.
 */
import type { MessageRecord } from '../services/smpp/smpp-service.js';
import type { PduOptions } from '../smpp/smpp-wire.js';

export const ESME_RQUERYFAIL = 0x67;

const stateOf: Record<MessageRecord['state'], number> = {
  queued: 1,
  submitting: 1,
  sent: 1,
  delivered: 2,
  expired: 3,
  failed: 5,
  paused: 1,
  // DELETED: cancelled by its customer before it was submitted.
  cancelled: 4,
};

/** SMPP 3.4 absolute time "YYMMDDhhmmss000+" (tenths 0, offset 0: UTC). */
export function smppAbsoluteTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}000+`;
}

export function queryAnswer(id: string, message: MessageRecord | null): PduOptions {
  if (!message) return { command_status: ESME_RQUERYFAIL, message_id: id };
  const state = stateOf[message.state];
  const final = state !== 1;
  return {
    message_id: id,
    final_date: final ? smppAbsoluteTime(message.doneAt ?? message.submittedAt ?? message.createdAt) : '',
    message_state: state,
    error_code: 0,
  };
}
