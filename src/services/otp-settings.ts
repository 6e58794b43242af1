/**
 * A key's OTP settings: validity, tries, the countries codes may go to and the
 * velocity limits. The provider changes them with `haberci admin key otp`; the view shows
 * each setting as it applies (the default where none is set) beside what is stored.
 */
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { effectiveOtpSettings } from '../domain/otp-guard.js';
import type { OtpSettings } from '../domain/otp-guard.js';
import { AdminError } from './admin.js';

export interface OtpSettingsView {
  key_id: number;
  validity_seconds: number;
  max_tries: number;
  countries: string[];
  per_number_hour: number;
  per_number_day: number;
  per_prefix_minute: number;
  cooldown_seconds: number;
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
  cooldownSeconds: 'cooldown_seconds',
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
    cooldown_seconds: e.cooldownSeconds,
    defaults: (Object.keys(names) as (keyof OtpSettings)[]).filter((k) => stored[k] === null).map((k) => names[k]),
  };
}

export class OtpSettingsAdmin {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async show(keyId: number): Promise<OtpSettingsView> {
    await this.existing(keyId);
    return otpSettingsView(keyId, await this.store.otp.settingsOf(keyId));
  }

  /** Changes the settings given (a null puts one back to its default); the others stay. */
  async update(keyId: number, patch: Partial<OtpSettings>): Promise<OtpSettingsView> {
    await this.existing(keyId);
    const stored = await this.store.otp.settingsOf(keyId);
    const next: OtpSettings = { ...stored, ...patch };
    await this.store.otp.saveSettings(keyId, next, this.clock.now());
    return otpSettingsView(keyId, next);
  }

  private async existing(keyId: number): Promise<void> {
    if (!(await this.store.keys.getKey(keyId))) throw new AdminError(`no key with id ${keyId}`);
  }
}
