import type { FinalState } from './delivery-state.js';
import { couldBeNumber } from './recipients.js';

/**
 * The rule both simulators follow, the built-in operator and `haberci smsc-sim`
 * (interfaces.md): the outcome is a function of the normalised number alone, so anyone can
 * predict it. A destination that cannot be a phone number is refused at submit (the API
 * refuses it first, docs/decisions.md); otherwise the last four digits decide.
 */
export type SimulatedOutcome = FinalState | 'no-report' | 'refused';

export function simulatedOutcome(number: string): SimulatedOutcome {
  if (!couldBeNumber(number)) return 'refused';
  const lastFour = number.slice(-4);
  if (lastFour === '0000') return 'failed';
  if (lastFour === '0001') return 'expired';
  if (lastFour === '0002') return 'no-report';
  return 'delivered';
}

/** Why a simulator refuses a destination, as the failed message's details show it. */
export const refusedDetail = 'Destination is not a phone number (digits only, at most 15)';

export function simulatedDetail(outcome: FinalState): string {
  switch (outcome) {
    case 'delivered':
      return 'Delivered';
    case 'failed':
      return 'Not delivered: the operator reported UNDELIV';
    case 'expired':
      return 'Validity period expired before delivery';
  }
}
