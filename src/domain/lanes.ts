/**
 * Lanes: what a message is for decides how it waits for the carrier (docs/decisions.md,
 * "Lanes and fair shares of the carrier"). The interactive lane (OTP, and /sms/send to one
 * number, now) goes before the bulk lane (/sms/send to several numbers or at a later time,
 * group sends, panel campaigns); within a lane, accounts share the carrier by weight.
 * A message's lane is stored as its `priority`: 0 interactive, 1 bulk.
 */
export type Lane = 'interactive' | 'bulk';

export const lanes: readonly Lane[] = ['interactive', 'bulk'];

export const interactivePriority = 0;
export const bulkPriority = 1;

export function laneOf(priority: number): Lane {
  return priority === interactivePriority ? 'interactive' : 'bulk';
}

export function priorityOf(lane: Lane): number {
  return lane === 'interactive' ? interactivePriority : bulkPriority;
}

/** The lane of a /sms/send: interactive only when it goes now to one number. */
export function smsSendLane(recipients: number, scheduled: boolean): Lane {
  return recipients === 1 && !scheduled ? 'interactive' : 'bulk';
}
