/**
 * The OTP guard's rules, pure (issue 42): every country by default, narrowed by the account
 * (the provider's) and the key; the rise rule judging a prefix against its own history, so
 * that a steady bank's thousands of codes a minute to one operator's numbers always go and a
 * sudden many-fold rise to a prefix the key never sent much to does not.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  defaultOtpSettings,
  effectiveOtpSettings,
  noOtpSettings,
  otpPlaceVerdict,
  otpVelocityVerdict,
} from '../../src/domain/otp-guard.js';
import type { EffectiveOtpSettings, OtpRecent } from '../../src/domain/otp-guard.js';
import { minuteOf, rateAt, secondsLeftInMinute } from '../../src/domain/otp-prefix-rate.js';
import type { PrefixRate } from '../../src/domain/otp-prefix-rate.js';

const start = Date.UTC(2026, 2, 15, 9, 0, 0);
const quiet: OtpRecent = {
  numberLastHour: 0,
  numberLastDay: 0,
  numberLastAt: null,
  prefixLastMinute: 0,
  prefixRate: { minute: minuteOf(start), codes: 0, baseline: 0 },
};

/**
 * Sends `perMinute[i]` codes (each to a number of its own) in minute i, one by one, counting
 * each admitted code in the prefix's rate as the store does; the codes admitted each minute.
 */
function run(settings: EffectiveOtpSettings, perMinute: readonly number[], from: PrefixRate | null = null): number[] {
  let rate = from;
  return perMinute.map((attempts, i) => {
    const now = start + i * 60_000 + 30_000;
    let current = rateAt(rate, minuteOf(now));
    let admitted = 0;
    for (let a = 0; a < attempts; a += 1) {
      if (otpVelocityVerdict(settings, { ...quiet, prefixRate: current }, now) !== null) continue;
      current = { ...current, codes: current.codes + 1 };
      admitted += 1;
    }
    rate = current;
    return admitted;
  });
}

/** A prefix's rate after `minutes` minutes of `perMinute` codes each, all admitted. */
function steady(perMinute: number, minutes: number): PrefixRate {
  let rate: PrefixRate | null = null;
  for (let i = 0; i < minutes; i += 1) rate = { ...rateAt(rate, minuteOf(start) - minutes + i), codes: perMinute };
  return rate ?? rateAt(null, minuteOf(start));
}

describe('OTP guard: countries', () => {
  const settings = effectiveOtpSettings(noOtpSettings);

  it('sends codes to every country by default (the spec takes any number of 11 to 15 digits)', () => {
    for (const n of ['12025550123', '447700900123', '905321234567', '4915112345678', '8613800138000'])
      assert.equal(otpPlaceVerdict(settings, null, n, false), null, n);
  });

  it('refuses what the key narrowed, and what the account (the provider) narrowed whatever the key says', () => {
    const key = effectiveOtpSettings({ ...noOtpSettings, countries: ['90', '49'] });
    assert.equal(otpPlaceVerdict(key, null, '4915112345678', false), null);
    assert.deepEqual(otpPlaceVerdict(key, null, '12025550123', false), {
      reason: 'country',
      callingCode: '1',
      by: 'key',
    });
    assert.deepEqual(otpPlaceVerdict(key, ['90'], '4915112345678', false), {
      reason: 'country',
      callingCode: '49',
      by: 'account',
    });
    assert.deepEqual(otpPlaceVerdict(settings, ['90', '44'], '12025550123', false), {
      reason: 'country',
      callingCode: '1',
      by: 'account',
    });
    assert.equal(otpPlaceVerdict(settings, ['90', '44'], '447700900123', false), null);
  });
});

describe('OTP guard: the rise rule', () => {
  it('defaults to no absolute limit a prefix, and a rise of 10 times from 1000 a minute', () => {
    assert.equal(defaultOtpSettings.perPrefixMinute, 0);
    assert.deepEqual([defaultOtpSettings.prefixRise, defaultOtpSettings.prefixRiseMin], [10, 1000]);
  });

  it('never refuses a bank sending thousands of codes a minute steadily to one prefix, peaks of twice included', () => {
    const minutes = Array.from({ length: 180 }, (_, i) => (i % 10 === 0 ? 6000 : 2000 + (i % 7) * 300));
    assert.deepEqual(run(defaultOtpSettings, minutes, steady(3000, 120)), minutes);
  });

  it('takes hundreds of codes a minute to a prefix the key never sent to', () => {
    assert.deepEqual(run(defaultOtpSettings, [600, 900, 999]), [600, 900, 999]);
  });

  it('refuses a sudden many-fold rise above its floor, and follows what the prefix goes on getting', () => {
    // 20 a minute for two hours, then 5000: the floor (1000) is what the minute may have.
    const [burst] = run(defaultOtpSettings, [5000], steady(20, 120));
    assert.equal(burst, 1000);
    // 300 a minute usually: 10 times that.
    const [rise] = run(defaultOtpSettings, [5000], steady(300, 600));
    assert.ok(rise !== undefined && rise >= 2990 && rise <= 3000, String(rise));
    // A new sender of 3000 a minute starts at the floor and is whole within about 15 minutes.
    const ramp = run(
      defaultOtpSettings,
      Array.from({ length: 30 }, () => 3000),
    );
    assert.equal(ramp[0], 1000);
    assert.ok(ramp.slice(0, 10).every((n) => n < 3000));
    assert.ok(
      ramp.slice(16).every((n) => n === 3000),
      ramp.join(','),
    );
  });

  it('is the key’s to set: off at 0, and with its own floor and rise', () => {
    assert.deepEqual(run({ ...defaultOtpSettings, prefixRise: 0 }, [5000]), [5000]);
    const strict = { ...defaultOtpSettings, prefixRise: 3, prefixRiseMin: 50 };
    assert.deepEqual(run(strict, [80]), [50]);
    const verdict = otpVelocityVerdict(
      strict,
      { ...quiet, prefixRate: { minute: minuteOf(start), codes: 50, baseline: 0 } },
      start + 45_000,
    );
    assert.deepEqual(verdict, { reason: 'prefix-rise', retryAfterSeconds: 15 });
  });

  it('folds the minutes gone by into the baseline: an hour of silence leaves about a third', () => {
    const rate = rateAt({ minute: 100, codes: 60, baseline: 60 }, 101);
    assert.deepEqual(rate, { minute: 101, codes: 0, baseline: 60 });
    const later = rateAt({ minute: 100, codes: 60, baseline: 60 }, 161);
    assert.ok(Math.abs(later.baseline - 60 * (59 / 60) ** 60) < 1e-9);
    // A row of a later minute (a clock ahead) is taken as it is.
    assert.deepEqual(rateAt({ minute: 100, codes: 5, baseline: 1 }, 99), { minute: 100, codes: 5, baseline: 1 });
    assert.deepEqual([secondsLeftInMinute(start), secondsLeftInMinute(start + 59_500)], [60, 1]);
  });
});

describe('OTP guard: per number', () => {
  it('allows 5 codes an hour and 10 a day to one number, the day answered first', () => {
    const s = defaultOtpSettings;
    assert.equal(otpVelocityVerdict(s, { ...quiet, numberLastHour: 4, numberLastDay: 9 }, start), null);
    assert.deepEqual(otpVelocityVerdict(s, { ...quiet, numberLastHour: 5, numberLastDay: 5 }, start), {
      reason: 'number-hour',
      retryAfterSeconds: 3600,
    });
    assert.deepEqual(otpVelocityVerdict(s, { ...quiet, numberLastHour: 5, numberLastDay: 10 }, start), {
      reason: 'number-day',
      retryAfterSeconds: 86_400,
    });
  });
});
