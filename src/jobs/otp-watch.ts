/**
 * The OTP conversion watch (domain/otp-watch.ts): a round every minute, from the rows
 * written (never inside a send's transaction, so `/otp/send` pays nothing for it), counts
 * per key and destination prefix the codes of the last window and those verified, and
 * holds the prefixes that show the pumping signature. A held prefix is refused by the
 * send's guard (TS-1096, uncharged) until the provider releases it (`haberci admin otp
 * release`); a released prefix is judged again only on codes sent after its release. The
 * provider is alerted by a warning in the log and by `haberci_otp_held_prefixes` in
 * /metrics (docs/alerts.yml). Runs in the dispatch thread, beside retention.
 */
import { Periodic } from '../util/periodic.js';
import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { effectiveOtpSettings } from '../domain/otp-guard.js';
import { conversionPercent, otpWatchGraceMs, otpWatchWindowMs, pumpingSuspected } from '../domain/otp-watch.js';
import type { PrefixConversion } from '../domain/otp-watch.js';
import { errorFields } from '../util/error-fields.js';

export interface OtpWatchOptions {
  /** Time between rounds. */
  everyMs: number;
  windowMs: number;
  graceMs: number;
}

export const defaultOtpWatchOptions: OtpWatchOptions = {
  everyMs: 60_000,
  windowMs: otpWatchWindowMs,
  graceMs: otpWatchGraceMs,
};

export class OtpWatch {
  private readonly rounds: Periodic;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: OtpWatchOptions = defaultOtpWatchOptions,
  ) {
    this.rounds = new Periodic(() => this.roundOnce(), options.everyMs);
  }

  start(firstInMs = Math.min(10_000, this.options.everyMs)): void {
    this.rounds.start(firstInMs);
  }

  stop(): Promise<void> {
    return this.rounds.stop();
  }

  /** One round: the prefixes it held now. Never throws (a failed round is tried at the next). */
  async roundOnce(): Promise<PrefixConversion[]> {
    const now = this.clock.now();
    const since = now - this.options.windowMs;
    const previousSince = since - this.options.windowMs;
    const matureBefore = now - this.options.graceMs;
    const held: PrefixConversion[] = [];
    try {
      const counted = await this.store.otp.conversions(previousSince, since, matureBefore);
      const settingsOf = new Map<number, ReturnType<typeof effectiveOtpSettings>>();
      for (const first of counted) {
        let settings = settingsOf.get(first.keyId);
        if (settings === undefined) {
          settings = effectiveOtpSettings(await this.store.otp.settingsOf(first.keyId));
          settingsOf.set(first.keyId, settings);
        }
        if (!pumpingSuspected(settings, first)) continue;
        // A prefix the provider released is judged on what was sent after the release.
        const released = await this.store.otp.lastRelease(first.keyId, first.prefix, previousSince);
        const c =
          released === null
            ? first
            : await this.store.otp.conversionOf(first.keyId, first.prefix, released, since, matureBefore);
        if (c === null || !pumpingSuspected(settings, c)) continue;
        if (!(await this.store.otp.hold(c, now))) continue;
        held.push(c);
        this.log.warn(
          {
            keyId: c.keyId,
            accountId: c.accountId,
            prefix: c.prefix,
            sent: c.sent,
            verified: c.verified,
            previousSent: c.previousSent,
            percent: Math.round(conversionPercent(c.sent, c.verified)),
          },
          'otp watch: held a destination prefix (few codes verified while their number rose: suspected SMS pumping); release it with haberci admin otp release',
        );
      }
    } catch (error) {
      this.log.warn({ err: errorFields(error) }, 'otp watch: a round failed; trying again at the next');
    }
    return held;
  }
}
