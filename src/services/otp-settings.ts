/**
 * A key's OTP settings: validity, tries, the countries codes may go to and the
 * velocity limits. The provider changes them with `haberci admin key otp`, and narrows an
 * account's countries with `haberci admin account otp`; the view shows each setting as it
 * applies (the default where none is set) beside what is stored.
 */
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { allCountries, effectiveOtpSettings } from '../domain/otp-guard.js';
import type { OtpSettings } from '../domain/otp-guard.js';
import { conversionPercent } from '../domain/otp-watch.js';
import type { OtpHold } from '../ports/otp-store.js';
import { ok } from '../domain/result.js';
import { notFound } from './admin-result.js';
import type { AdminResult } from './admin-result.js';

export interface OtpSettingsView {
  key_id: number;
  validity_seconds: number;
  max_tries: number;
  /** Calling codes, or `all` (the default: every country). */
  countries: string[] | typeof allCountries;
  per_number_hour: number;
  per_number_day: number;
  /** An absolute limit a minute to one destination prefix (0: none, the default). */
  per_prefix_minute: number;
  /** The rise rule: times its usual rate a prefix's minute may reach (0: off). */
  prefix_rise: number;
  /** The rise rule: codes a prefix may always get in a minute. */
  prefix_rise_min: number;
  cooldown_seconds: number;
  /** The conversion watch: codes a prefix needs in the window to be judged (0: off). */
  watch_min_sent: number;
  /** Percent of a prefix's codes verified below which it is suspect. */
  watch_min_share: number;
  /** Times the previous window's codes the window must reach. */
  watch_rise: number;
  /** Settings left to the default (the values above are the defaults' for these). */
  defaults: string[];
}

const names: Record<keyof OtpSettings, string> = {
  validitySeconds: 'validity_seconds',
  maxTries: 'max_tries',
  countries: 'countries',
  perNumberHour: 'per_number_hour',
  perNumberDay: 'per_number_day',
  perPrefixMinute: 'per_prefix_minute',
  prefixRise: 'prefix_rise',
  prefixRiseMin: 'prefix_rise_min',
  cooldownSeconds: 'cooldown_seconds',
  watchMinSent: 'watch_min_sent',
  watchMinShare: 'watch_min_share',
  watchRise: 'watch_rise',
};

export function otpSettingsView(keyId: number, stored: OtpSettings): OtpSettingsView {
  const e = effectiveOtpSettings(stored);
  return {
    key_id: keyId,
    validity_seconds: e.validitySeconds,
    max_tries: e.maxTries,
    countries: e.countries,
    per_number_hour: e.perNumberHour,
    per_number_day: e.perNumberDay,
    per_prefix_minute: e.perPrefixMinute,
    prefix_rise: e.prefixRise,
    prefix_rise_min: e.prefixRiseMin,
    cooldown_seconds: e.cooldownSeconds,
    watch_min_sent: e.watchMinSent,
    watch_min_share: e.watchMinShare,
    watch_rise: e.watchRise,
    defaults: (Object.keys(names) as (keyof OtpSettings)[]).filter((k) => stored[k] === null).map((k) => names[k]),
  };
}

/** An account's OTP countries as the provider set them (`haberci admin account otp`). */
export interface AccountOtpView {
  account_id: number;
  /** Calling codes, or `all` (the default: every country). */
  countries: string[] | typeof allCountries;
}

export function accountOtpView(accountId: number, countries: string[] | null): AccountOtpView {
  return { account_id: accountId, countries: countries ?? allCountries };
}

/** A hold as the CLI and the panels show it. */
export interface OtpHoldView {
  key_id: number;
  account_id: number;
  prefix: string;
  held_at: string;
  released_at: string | null;
  /** What the watch counted when it held the prefix. */
  sent: number;
  verified: number;
  verified_percent: number;
  previous_sent: number;
}

export function otpHoldView(h: OtpHold): OtpHoldView {
  return {
    key_id: h.keyId,
    account_id: h.accountId,
    prefix: h.prefix,
    held_at: new Date(h.heldAt).toISOString(),
    released_at: h.releasedAt === null ? null : new Date(h.releasedAt).toISOString(),
    sent: h.sent,
    verified: h.verified,
    verified_percent: Math.round(conversionPercent(h.sent, h.verified)),
    previous_sent: h.previousSent,
  };
}

export class OtpSettingsAdmin {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async show(keyId: number): Promise<AdminResult<OtpSettingsView>> {
    const key = await this.existing(keyId);
    if (!key.ok) return key;
    return ok(otpSettingsView(keyId, await this.store.otp.settingsOf(keyId)));
  }

  /** Changes the settings given (a null puts one back to its default); the others stay. */
  async update(keyId: number, patch: Partial<OtpSettings>): Promise<AdminResult<OtpSettingsView>> {
    const key = await this.existing(keyId);
    if (!key.ok) return key;
    const stored = await this.store.otp.settingsOf(keyId);
    const next: OtpSettings = { ...stored, ...patch };
    await this.store.otp.saveSettings(keyId, next, this.clock.now());
    return ok(otpSettingsView(keyId, next));
  }

  /** The provider's countries of an account's codes (every key's countries are within them). */
  async accountShow(accountId: number): Promise<AdminResult<AccountOtpView>> {
    const account = await this.existingAccount(accountId);
    if (!account.ok) return account;
    return ok(accountOtpView(accountId, await this.store.otp.accountCountries(accountId)));
  }

  /** Narrows an account's OTP countries (null: every country again). */
  async accountUpdate(accountId: number, countries: string[] | null): Promise<AdminResult<AccountOtpView>> {
    const account = await this.existingAccount(accountId);
    if (!account.ok) return account;
    await this.store.otp.saveAccountCountries(accountId, countries, this.clock.now());
    return ok(accountOtpView(accountId, countries));
  }

  /** Holds of the conversion watch, newest first: those standing, or every one with `all`. */
  async holds(filter: { accountId?: number; keyId?: number; all?: boolean }): Promise<OtpHoldView[]> {
    const rows = await this.store.otp.holds({
      ...(filter.accountId !== undefined ? { accountId: filter.accountId } : {}),
      ...(filter.keyId !== undefined ? { keyId: filter.keyId } : {}),
      active: filter.all !== true,
      limit: 1000,
    });
    return rows.map(otpHoldView);
  }

  /**
   * Releases the key's hold of a prefix (every prefix when none is given): its codes go out
   * again, and the watch judges the prefix anew on what is sent from now on.
   */
  async release(
    keyId: number,
    prefix: string | null,
  ): Promise<AdminResult<{ key_id: number; account_id: number; prefix: string | null; released: number }>> {
    const key = await this.store.keys.getKey(keyId);
    if (!key) return notFound(`no key with id ${keyId}`);
    const released = await this.store.otp.release(keyId, prefix, this.clock.now());
    if (released === 0)
      return notFound(
        prefix === null
          ? `key ${keyId} has no standing OTP hold`
          : `key ${keyId} has no standing OTP hold of ${prefix}`,
      );
    return ok({ key_id: keyId, account_id: key.accountId, prefix, released });
  }

  private async existingAccount(accountId: number): Promise<AdminResult<true>> {
    if (!(await this.store.accounts.getAccount(accountId))) return notFound(`no account with id ${accountId}`);
    return ok(true);
  }

  private async existing(keyId: number): Promise<AdminResult<true>> {
    if (!(await this.store.keys.getKey(keyId))) return notFound(`no key with id ${keyId}`);
    return ok(true);
  }
}
