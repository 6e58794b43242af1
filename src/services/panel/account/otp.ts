/**
 * The customer's OTP page: per key its OTP settings (validity, tries, countries,
 * velocity), which the customer may change; codes sent and verified by day and by
 * destination prefix; the prefixes the conversion watch holds; and the blocked attempts.
 * The conversion watch's thresholds are shown but stay the provider's (`haberci admin key
 * otp`): they protect the provider's carriers as much as the customer's balance.
 */
import type { Store } from '../../../ports/store.js';
import type { OtpCount, OtpRefusalRow } from '../../../ports/otp-store.js';
import { panelKeyHint } from '../../../ports/panel-queries.js';
import type { OtpSettings } from '../../../domain/otp-guard.js';
import { localParts } from '../../../domain/istanbul-time.js';
import { otpHoldView, otpSettingsView } from '../../otp-settings.js';
import type { OtpHoldView, OtpSettingsView } from '../../otp-settings.js';
import { ok } from '../../../domain/result.js';
import { notFound, type AdminResult } from '../../admin-result.js';
import { CustomerPart } from './account-changes.js';

const dayMs = 86_400_000;

/** What the customer may change of a key's OTP settings (the watch's thresholds are the provider's). */
export type CustomerOtpPatch = Pick<
  OtpSettings,
  | 'validitySeconds'
  | 'maxTries'
  | 'countries'
  | 'perNumberHour'
  | 'perNumberDay'
  | 'perPrefixMinute'
  | 'cooldownSeconds'
>;

export interface OtpKeySettings extends OtpSettingsView {
  key_hint: string;
}

export interface OtpDay {
  /** The local day's first instant (epoch ms of its Istanbul midnight, as UTC). */
  day: number;
  sent: number;
  verified: number;
}

export interface OtpPageData {
  days: OtpDay[];
  prefixes: OtpCount[];
  holds: OtpHoldView[];
  blocked: OtpRefusalRow[];
  keys: OtpKeySettings[];
  /** The provider's narrowing of the account's countries (`haberci admin account otp`); null: none. */
  accountCountries: string[] | null;
}

/** Days of the page's tables, and prefixes and blocked attempts shown at most. */
export const otpPageDays = 14;
export const otpPagePrefixes = 20;
export const otpPageBlocked = 50;

export class CustomerOtp extends CustomerPart {
  async page(): Promise<OtpPageData> {
    const { store, clock } = this.deps;
    const accountId = this.customer.accountId;
    const now = clock.now();
    // Istanbul's offset now (the service's calendar is Istanbul's; it has no summer time).
    const p = localParts(now);
    const offsetMs =
      Math.round((Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - now) / 60_000) * 60_000;
    const today = Math.floor((now + offsetMs) / dayMs);
    const since = (today - (otpPageDays - 1)) * dayMs - offsetMs;
    const [byDay, prefixes, holds, blocked, keys, accountCountries] = await Promise.all([
      store.otp.countsByDay(accountId, since, offsetMs),
      store.otp.countsByPrefix(accountId, since, otpPagePrefixes),
      store.otp.holds({ accountId, active: true, limit: 100 }),
      store.otp.refusals(accountId, otpPageBlocked),
      this.keys(),
      store.otp.accountCountries(accountId),
    ]);
    const counted = new Map(byDay.map((d) => [Number(d.bucket), d]));
    const days: OtpDay[] = [];
    for (let d = today; d > today - otpPageDays; d -= 1) {
      const c = counted.get(d);
      days.push({ day: d * dayMs, sent: c?.sent ?? 0, verified: c?.verified ?? 0 });
    }
    return { days, prefixes, holds: holds.map(otpHoldView), blocked, keys, accountCountries };
  }

  /** One of the account's issued keys' OTP settings; ADM-NOT-FOUND for another account's key. */
  async settings(keyId: number): Promise<AdminResult<OtpKeySettings>> {
    const key = await this.ownKey(keyId, this.deps.store);
    if (!key.ok) return key;
    return ok({ ...otpSettingsView(keyId, await this.deps.store.otp.settingsOf(keyId)), key_hint: key.value.keyHint });
  }

  /** Changes the settings given (null: back to the default), with an audit row on the key. */
  update(keyId: number, patch: Partial<CustomerOtpPatch>): Promise<AdminResult<OtpSettingsView>> {
    return this.changes.make(
      async (store): Promise<AdminResult<OtpSettingsView>> => {
        const key = await this.ownKey(keyId, store);
        if (!key.ok) return key;
        const next = { ...(await store.otp.settingsOf(keyId)), ...patch };
        await store.otp.saveSettings(keyId, next, this.deps.clock.now());
        return ok(otpSettingsView(keyId, next));
      },
      (done) =>
        done.ok
          ? { action: 'key.otp', object: { type: 'key', id: keyId }, detail: { changed: Object.keys(patch).join(',') } }
          : null,
    );
  }

  private async keys(): Promise<OtpKeySettings[]> {
    const { store } = this.deps;
    const out: OtpKeySettings[] = [];
    for (const id of await store.users.keyIdsOf(this.customer.accountId)) {
      const key = await store.keys.getKey(id);
      if (!key || key.keyHint === panelKeyHint || key.state === 'Revoked') continue;
      out.push({ ...otpSettingsView(id, await store.otp.settingsOf(id)), key_hint: key.keyHint });
    }
    return out;
  }

  private async ownKey(keyId: number, store: Store) {
    const key = await store.keys.getKey(keyId);
    if (!key || key.accountId !== this.customer.accountId || key.keyHint === panelKeyHint)
      return notFound(`no key ${keyId}`);
    return ok(key);
  }
}
