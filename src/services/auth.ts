import type { Clock } from '../ports/clock.js';
import type { Account } from '../ports/accounts.js';
import type { ApiKey, KeyStore, KeyWithAccount } from '../ports/keys.js';
import type { LimitHit, UsageWindows } from '../domain/request-limits.js';
import { UsageLeases } from './usage-leases.js';
import { keyStateAt } from '../domain/api-key.js';
import { effectiveAllowlist, isAllowed } from '../domain/ip-allowlist.js';
import {
  dayBucket,
  endOfLocalDay,
  fromLocal,
  hourBucket,
  localDate,
  localParts,
  monthBucket,
} from '../domain/istanbul-time.js';
import { fail, ok } from '../domain/result.js';
import type { Failure, Result } from '../domain/result.js';
import { hashApiKey } from './key-secrets.js';

/** Who is calling: an Active key, allowed from this address, of an Active account. */
export interface Caller {
  key: ApiKey;
  account: Account;
  clientIp: string;
  /**
   * The send this request's call accepted (SendService.accept notes it), for the request's
   * access log line: one Caller is built per request.
   */
  accepted?: { sendId: number; messageIds: readonly number[] };
}

const limitCode = { hourly: 'TS-1068', daily: 'TS-1069', monthly: 'TS-1073' } as const;

/** Seconds from an instant to the start of the next Istanbul hour, day or month. */
export function secondsToNextWindow(now: number, window: LimitHit): number {
  const p = localParts(now);
  let next: number | null;
  if (window === 'hourly') {
    next = Math.floor(now / 3600_000) * 3600_000 + 3600_000;
    // Istanbul's offset is a whole number of hours, so UTC hours and local hours align.
  } else if (window === 'daily') {
    next = endOfLocalDay(localDate(now));
  } else {
    const year = p.month === 12 ? p.year + 1 : p.year;
    const month = p.month === 12 ? 1 : p.month + 1;
    next = fromLocal(year, month, 1, 0, 0, 0);
  }
  return Math.max(1, Math.ceil(((next ?? now + 3600_000) - now) / 1000));
}

/**
 * The Istanbul hour, day and month of an instant, remembered per UTC hour: Istanbul's offset
 * is a whole number of hours, so all three only change when a UTC hour begins.
 */
let windowsCache: { utcHour: number; windows: UsageWindows } | null = null;
export function windowsAt(now: number): UsageWindows {
  const utcHour = Math.floor(now / 3600_000);
  if (windowsCache?.utcHour !== utcHour)
    windowsCache = { utcHour, windows: { hour: hourBucket(now), day: dayBucket(now), month: monthBucket(now) } };
  return windowsCache.windows;
}

export class AuthService {
  /** Request counts: taken from the store in leases, a turn's leases in one statement or transaction. */
  private readonly counts: UsageLeases;

  constructor(
    private readonly keys: KeyStore,
    private readonly clock: Clock,
    /** Told of every key that authenticates a request (the panel's "last used"; no store write here). */
    private readonly used: (keyId: number, at: number) => void = () => undefined,
  ) {
    this.counts = new UsageLeases(keys, () => this.clock.now());
  }

  /**
   * Key, state, address and account checks, in that order (docs/decisions.md). `keyHash`:
   * the key's hash when the caller already computed it (hashApiKey of this very key).
   */
  async authenticate(
    apiKey: string,
    clientIp: string,
    keyHash = hashApiKey(apiKey),
    lookup?: Promise<KeyWithAccount | null>,
  ): Promise<Result<Caller>> {
    const found = await (lookup ?? this.keys.findKeyByHash(keyHash));
    if (!found) return fail('TS-1031', { variant: 'key-unknown' });
    const { key, account } = found;
    if (keyStateAt(key, this.clock.now()) !== 'Active') return fail('TS-1035');
    if (!isAllowed(effectiveAllowlist(key.ipAllow, account.ipAllow), clientIp)) return fail('TS-1066');
    if (account.status !== 'Active') return fail('TS-1030', { variant: 'account-inactive' });
    this.used(key.id, this.clock.now());
    return ok({ key, account, clientIp });
  }

  /**
   * Starts the lookup of a key by its hash, for authenticate() to await later: the caller
   * runs it beside other work of the request (a shared rate count's round trip). A lookup
   * that fails and is never awaited (the request was refused first) is not an unhandled
   * rejection.
   */
  prefetch(keyHash: string): Promise<KeyWithAccount | null> {
    const lookup = this.keys.findKeyByHash(keyHash);
    lookup.catch(() => undefined);
    return lookup;
  }

  /**
   * Counts the request against the key's hourly, daily and monthly limits. A key with no
   * limits is not counted at all (no write on the hot path); counting starts when a limit
   * is set. Requests the limits reject are not counted. Answers the refusal, or how to take
   * the count back if the request is refused later on (null: nothing was counted).
   */
  async countRequest(caller: Caller): Promise<{ refused: Failure } | { undo: (() => Promise<void>) | null }> {
    const { hourlyLimit, dailyLimit, monthlyLimit } = caller.key;
    if (hourlyLimit <= 0 && dailyLimit <= 0 && monthlyLimit <= 0) return { undo: null };
    const now = this.clock.now();
    const windows = windowsAt(now);
    const counted = await this.counts.take({
      keyId: caller.key.id,
      limits: { hourly: hourlyLimit, daily: dailyLimit, monthly: monthlyLimit },
      windows,
    });
    if ('refused' in counted)
      return {
        refused: fail(limitCode[counted.refused], { retryAfterSeconds: secondsToNextWindow(now, counted.refused) }),
      };
    return counted;
  }

  /** Gives the request counts leased and not used back to the store (a graceful stop). */
  close(): Promise<void> {
    return this.counts.close();
  }
}
