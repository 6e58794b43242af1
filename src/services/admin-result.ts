/**
 * The one error idiom of the provider's commands and of the panel's services, as the API's
 * services have it: an expected failure is a returned `Failure` with a code, never a throw.
 * The edges turn it into their answer: the CLI prints the message and exits 1 (`must` in
 * `cli/must.ts`), the panel shows it as a notice, or its "Page not found" for ADM-NOT-FOUND.
 */
import { fail, type Failure } from '../domain/result.js';

export const adminCodes = {
  /** The command or action is refused; the message says why and is shown as it is. */
  'ADM-REFUSED': 'Refused',
  /**
   * Not there, or not the caller's (another account's key, group, message or event): the panel
   * answers both with the same "Page not found", so the ids of other accounts cannot be probed.
   */
  'ADM-NOT-FOUND': 'Not found',
  /** Someone decided it meanwhile (a sender ID request reviewed by another operator). */
  'ADM-DECIDED': 'Already decided',
} as const;

export type AdminCode = keyof typeof adminCodes;

/** An admin failure always says why, in words the operator or the customer can act on. */
export type AdminFailure = Failure<AdminCode> & { message: string };

export type AdminResult<T> = { ok: true; value: T } | AdminFailure;

export function refused(message: string): AdminFailure {
  return { ...fail('ADM-REFUSED'), message };
}

export function notFound(message: string): AdminFailure {
  return { ...fail('ADM-NOT-FOUND'), message };
}

export function decided(message: string): AdminFailure {
  return { ...fail('ADM-DECIDED'), message };
}
