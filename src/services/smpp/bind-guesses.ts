/**
 * The limit on SMPP password guesses (docs/smpp.md, "Password guesses"; docs/decisions.md,
 * "SMPP password guesses"). A bind reserves one attempt against its system_id and one against
 * its peer address in the store before the password is hashed, each in one atomic statement:
 * the panel's sign-in reservations (UserStore.reserveSignInAttempt, on both dialects), under
 * subjects of their own (`smpp:` and `smpp-ip:`), so a burst of concurrent guesses in one
 * process or many gets at most the limit evaluated. A failed bind keeps its reservations as
 * failures; a right password gives both back. Past a limit the password is not evaluated.
 */
import type { Clock } from '../../ports/clock.js';
import type { UserStore } from '../../ports/user-store.js';

export interface BindGuessPolicy {
  /** Failed binds of one system_id in a window before its binds are refused unchecked (a user's own max binds more may be in flight). */
  perSystemId: number;
  /** Failed binds from one peer address in a window (the binds in flight from it included). */
  perAddress: number;
  windowMs: number;
}

/**
 * 10 failures of one system_id and 100 from one address in 15 minutes (the panel's window):
 * a correct bind is refused only after that many failures, never for the binds in flight
 * with it (docs/decisions.md).
 */
export const defaultBindGuessPolicy: BindGuessPolicy = { perSystemId: 10, perAddress: 100, windowMs: 15 * 60_000 };

export type BindAttempts = Pick<UserStore, 'reserveSignInAttempt' | 'releaseSignInAttempt'>;

/** One bind's reservations: kept as failures unless given back. */
export interface BindReservation {
  /** The password matched: the attempt was not a failure. */
  giveBack(): Promise<void>;
}

export class BindGuesses {
  constructor(
    private readonly attempts: BindAttempts,
    private readonly clock: Clock,
    private readonly policy: BindGuessPolicy = defaultBindGuessPolicy,
  ) {}

  /**
   * Reserves a bind's attempt against `peer` and `systemId`; null when either limit is
   * reached (nothing counted: the password must not be evaluated). `maxBinds`: the user's own
   * (0 when unknown), so that its binds in flight together never count against it.
   */
  async reserve(systemId: string, peer: string, maxBinds: number): Promise<BindReservation | null> {
    const now = this.clock.now();
    const { perSystemId, perAddress, windowMs } = this.policy;
    const byAddress = `smpp-ip:${peer}`;
    const bySystemId = `smpp:${systemId}`;
    if ((await this.attempts.reserveSignInAttempt(byAddress, now, windowMs, perAddress)) === null) return null;
    if ((await this.attempts.reserveSignInAttempt(bySystemId, now, windowMs, perSystemId + maxBinds)) === null) {
      await this.attempts.releaseSignInAttempt(byAddress);
      return null;
    }
    return {
      giveBack: async () => {
        await this.attempts.releaseSignInAttempt(byAddress);
        await this.attempts.releaseSignInAttempt(bySystemId);
      },
    };
  }
}
