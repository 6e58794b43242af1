/**
 * One-time codes in the store: written with their send, read and changed by
 * /otp/verify. The code itself is never here: only its keyed hash (domain/otp-check.ts).
 */
import type { StoredOtp } from '../domain/otp-check.js';
import type { OtpRecent, OtpSettings } from '../domain/otp-guard.js';
import type { PrefixConversion } from '../domain/otp-watch.js';
import type { PrefixRate } from '../domain/otp-prefix-rate.js';

export type { OtpSettings };

export interface NewOtp {
  messageId: number;
  accountId: number;
  keyId: number;
  sandbox: boolean;
  destination: string;
  prefix: string;
  codeHash: string;
  /** The message's real text, sealed (domain/otp-check.ts, sealOtpText). */
  sealedText: string;
  createdAt: number;
  expiresAt: number;
  maxTries: number;
}

/** An OTP send the guard refused (nothing was charged). */
export interface OtpRefusalRow {
  keyId: number;
  accountId: number;
  at: number;
  reason: string;
  destination: string;
}

/** A prefix the conversion watch held for a key, with the counts that made it. */
export interface OtpHold extends PrefixConversion {
  heldAt: number;
  /** Null while the hold stands. */
  releasedAt: number | null;
}

/** Which holds to list. */
export interface OtpHoldFilter {
  accountId?: number;
  keyId?: number;
  /** Only those that stand (not released). */
  active?: boolean;
  limit: number;
}

/** Codes sent and verified in one bucket (a day, or a destination prefix) of the panel's OTP page. */
export interface OtpCount {
  /** The day (days since the epoch, in local time) or the prefix. */
  bucket: string;
  sent: number;
  verified: number;
}

/** What the guard reads before a send (one round trip). */
export interface OtpGuardRead {
  /** The key's stored settings (every field null without a row). */
  settings: OtpSettings;
  /** The provider's countries of the key's account; null: every country. */
  accountCountries: string[] | null;
  /** The conversion watch holds the prefix for the key. */
  held: boolean;
}

/** What the guard counts in the send's transaction: the prefix's rate row as stored (null: none yet). */
export type OtpVelocityRead = Omit<OtpRecent, 'prefixRate'> & { prefixRate: PrefixRate | null };

export interface OtpStore {
  /** The installation's HMAC key (drawn by migration 0026). */
  secret(): Promise<string>;
  /** Call inside the send's transaction. */
  insert(otp: NewOtp): Promise<void>;
  /** The code of an OTP message of this account, locked until the transaction ends; null if none. */
  findForUpdate(accountId: number, messageId: number): Promise<StoredOtp | null>;
  /** Counts one wrong try. */
  countWrongTry(messageId: number): Promise<void>;
  /** Marks the code verified and, when the sending key's webhook takes it, writes the `otp.verified` event. */
  markVerified(otp: StoredOtp, now: number): Promise<{ event: boolean }>;
  /** The key's stored settings; every field null when it has none. */
  settingsOf(keyId: number): Promise<OtpSettings>;
  /** Before a send: the key's settings, its account's countries and the prefix's hold, in one round trip. */
  guardReads(keyId: number, accountId: number, prefix: string): Promise<OtpGuardRead>;
  /**
   * Call inside the send's transaction, after the account's lock: what the key sent to the
   * number (last day and hour) and to the prefix (last minute, only with `prefixMinute`), and
   * the prefix's rate row. Every code committed before is counted, in any process.
   */
  velocityReads(
    keyId: number,
    destination: string,
    prefix: string,
    now: number,
    prefixMinute: boolean,
  ): Promise<OtpVelocityRead>;
  /**
   * Call inside the send's transaction, after velocityReads: one code more to the prefix in
   * `rate.minute`, `rate` being the row read moved to that minute (domain rateAt).
   */
  countPrefixCode(keyId: number, prefix: string, rate: PrefixRate): Promise<void>;
  /** The provider's narrowing of an account's OTP countries; null: every country. */
  accountCountries(accountId: number): Promise<string[] | null>;
  saveAccountCountries(accountId: number, countries: string[] | null, now: number): Promise<void>;
  recordRefusal(refusal: OtpRefusalRow): Promise<void>;
  /** The account's latest refusals, newest first (the panel's blocked attempts). */
  refusals(accountId: number, limit: number): Promise<OtpRefusalRow[]>;
  saveSettings(keyId: number, settings: OtpSettings, now: number): Promise<void>;
  /**
   * The conversion watch's counts (from the rows written, never in a send's transaction):
   * per key and prefix, live codes created after `since` (the window) that were verified or
   * created before `matureBefore`, those verified, and the codes created in
   * (`previousSince`, `since`]. Only pairs with a code after `since`.
   */
  conversions(previousSince: number, since: number, matureBefore: number): Promise<PrefixConversion[]>;
  /** The same counts for one key and prefix, counting only codes created after `after`. */
  conversionOf(
    keyId: number,
    prefix: string,
    after: number,
    since: number,
    matureBefore: number,
  ): Promise<PrefixConversion | null>;
  /** Holds the prefix for the key unless a hold stands already; true when this one was placed. */
  hold(c: PrefixConversion, now: number): Promise<boolean>;
  /** Releases the standing holds of the key's prefix (every prefix when null); how many. */
  release(keyId: number, prefix: string | null, now: number): Promise<number>;
  /** Holds, newest first. */
  holds(filter: OtpHoldFilter): Promise<OtpHold[]>;
  /** When the key's prefix was last released, after `since`; null if it was not. */
  lastRelease(keyId: number, prefix: string, since: number): Promise<number | null>;
  /**
   * The account's codes created at or after `since`, sent and verified, by local day (days
   * since the epoch of `created_at + offsetMs`), oldest first.
   */
  countsByDay(accountId: number, since: number, offsetMs: number): Promise<OtpCount[]>;
  /** The same by destination prefix, most sent first, `limit` prefixes at most. */
  countsByPrefix(accountId: number, since: number, limit: number): Promise<OtpCount[]>;
  /** Copies a key's OTP settings, prefix rates and standing holds to another key (rotation). */
  carryOver(fromKeyId: number, toKeyId: number, now: number): Promise<void>;
}
