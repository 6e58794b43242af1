/**
 * The OTP guard's counts in the send (domain/otp-guard.ts): the per-number limits, the
 * cooldown, the prefix's absolute limit (when the key sets one) and the rise rule, decided
 * as a send admission (SendPlan.admit), so in the send's transaction after the account's
 * lock: every code committed before it is counted, in every process, and two sends at the
 * same instant cannot both take the last place (docs/decisions.md, "The OTP guard's
 * defaults"). What a refusal answers is here too, for the place refusals made before the send.
 */
import type { Store } from '../ports/store.js';
import { fail } from '../domain/result.js';
import type { Failure } from '../domain/result.js';
import { allCountries, otpVelocityVerdict } from '../domain/otp-guard.js';
import type { EffectiveOtpSettings, OtpRecent, OtpRefusal } from '../domain/otp-guard.js';
import { minuteOf, rateAt } from '../domain/otp-prefix-rate.js';
import type { PrefixRate } from '../domain/otp-prefix-rate.js';
import type { SendAdmission } from './send-plan.js';

/** What a guard's refusal answers: the documented code, a message that says which limit, and nothing charged. */
export function otpRefusalFailure(
  refusal: OtpRefusal,
  settings: EffectiveOtpSettings,
  accountCountries: readonly string[] | null,
): Failure {
  if (refusal.reason === 'country') {
    const allowed = (list: readonly string[]): string => `+${list.join(', +')}`;
    return fail('TS-1094', {
      message:
        refusal.by === 'account' || settings.countries === allCountries
          ? `This account may not send codes to +${refusal.callingCode} numbers (the provider allows ${allowed(accountCountries ?? [])})`
          : `This key may not send codes to +${refusal.callingCode} numbers (its OTP countries: ${allowed(settings.countries)})`,
    });
  }
  if (refusal.reason === 'held')
    return fail('TS-1096', {
      message: `Codes to +${refusal.prefix} numbers are held for this key: few codes sent there were verified while their number rose (suspected SMS pumping); nothing was charged. The provider has been alerted and can release the hold`,
    });
  const why: Record<typeof refusal.reason, string> = {
    cooldown: `A code was sent to this number less than ${settings.cooldownSeconds} seconds ago`,
    'number-hour': `At most ${settings.perNumberHour} codes an hour to one number`,
    'number-day': `At most ${settings.perNumberDay} codes a day to one number`,
    'prefix-minute': `At most ${settings.perPrefixMinute} codes a minute to one destination prefix`,
    'prefix-rise': `Codes to this number's destination prefix rose this minute to more than ${settings.prefixRise} times this key's usual rate there (and above ${settings.prefixRiseMin} a minute)`,
  };
  return fail('TS-1095', {
    variant: refusal.reason,
    retryAfterSeconds: refusal.retryAfterSeconds,
    message: `${why[refusal.reason]}; nothing was charged`,
  });
}

/** One OTP send's counts, as its send's admission; its code is counted in its prefix's rate with it. */
export class OtpVelocity implements SendAdmission {
  readonly keys: readonly [string, string];
  /** The last check's refusal (each check starts afresh: a batch tried again checks again). */
  refusal: OtpRefusal | null = null;
  /** The prefix's rate the last check admitted on, moved to its minute. */
  private rate: PrefixRate | null = null;

  constructor(
    private readonly otp: { keyId: number; destination: string; prefix: string; settings: EffectiveOtpSettings },
  ) {
    this.keys = [`otp-number:${otp.keyId}:${otp.destination}`, `otp-prefix:${otp.keyId}:${otp.prefix}`];
  }

  async check(store: Store, now: number, unwritten: (key: string) => number): Promise<Failure | null> {
    this.refusal = null;
    this.rate = null;
    const { keyId, destination, prefix, settings } = this.otp;
    const read = await store.otp.velocityReads(keyId, destination, prefix, now, settings.perPrefixMinute > 0);
    // Codes of this transaction accepted before this one and not yet written: the reads miss them.
    const toNumber = unwritten(this.keys[0]);
    const toPrefix = unwritten(this.keys[1]);
    const rate = rateAt(read.prefixRate, minuteOf(now));
    const recent: OtpRecent = {
      numberLastHour: read.numberLastHour + toNumber,
      numberLastDay: read.numberLastDay + toNumber,
      numberLastAt: toNumber > 0 ? now : read.numberLastAt,
      prefixLastMinute: read.prefixLastMinute + toPrefix,
      prefixRate: { ...rate, codes: rate.codes + toPrefix },
    };
    this.refusal = otpVelocityVerdict(settings, recent, now);
    if (this.refusal !== null) return otpRefusalFailure(this.refusal, settings, null);
    this.rate = rate;
    return null;
  }

  /** With the code, in its send's transaction: one code more in the prefix's rate (while the rise rule is on). */
  async count(store: Store): Promise<void> {
    if (this.rate === null || this.otp.settings.prefixRise <= 0) return;
    await store.otp.countPrefixCode(this.otp.keyId, this.otp.prefix, this.rate);
  }
}
