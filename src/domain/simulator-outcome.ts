import type { FinalState } from './delivery-state.js';

/**
 * The built-in operator simulator's rule (interfaces.md): the outcome is a function of the
 * last four digits of the normalised number alone, so anyone can predict it.
 */
export type SimulatedOutcome = FinalState | 'no-report';

export function simulatedOutcome(number: string): SimulatedOutcome {
  const lastFour = number.slice(-4);
  if (lastFour === '0000') return 'failed';
  if (lastFour === '0001') return 'expired';
  if (lastFour === '0002') return 'no-report';
  return 'delivered';
}

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
