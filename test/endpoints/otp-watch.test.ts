/**
 * The OTP conversion watch, through HTTP on both stores: a simulated pumping run (many
 * codes to one destination prefix, none verified) beside normal traffic that verifies. A
 * round of the watch (the job the dispatch thread runs every minute) holds the pumped prefix
 * and not the normal one; a held prefix is refused (TS-1096, 403) and not charged; the
 * provider's release lets codes go again, and the watch judges the prefix anew on codes sent
 * after the release. A prefix whose low share is steady (no rise) is not held, and a key's
 * thresholds are its own.
 */
import { beforeEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { defaultNow, harnessFor } from '../helpers/harness.js';
import type { Answer, Harness, Provisioned } from '../helpers/harness.js';
import { OtpWatch } from '../../src/jobs/otp-watch.js';
import { noOtpSettings } from '../../src/domain/otp-guard.js';
import { valueOf } from '../helpers/results.js';
import { notFound } from '../../src/services/admin-result.js';

const silent = pino({ level: 'silent' });
/** Each code goes to a number of its own (the per-number limits stay out of the way). */
let numbered = 0;

function send(h: Harness, apiKey: string, mobile: string): Promise<Answer> {
  return h.post('/otp/send', { api_key: apiKey, mobile });
}

/** `count` codes to distinct numbers of `prefix` (5 digits after 90), 10 s apart; verified when asked. */
async function traffic(h: Harness, p: Provisioned, prefix: string, count: number, verify: boolean): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    numbered += 1;
    const mobile = `${prefix}${String(1_000_000 + numbered)}`;
    const sent = await send(h, p.apiKey, mobile);
    assert.equal(sent.body.result_code, 'TS-1024', sent.raw);
    if (verify) {
      const checked = await h.post('/otp/verify', {
        api_key: p.apiKey,
        sms_id: sent.body.sms_id,
        code: sent.body.otp_code,
      });
      assert.equal(checked.body.verified, true, checked.raw);
    }
    h.clock.set(h.clock.now() + 10_000);
  }
}

async function balance(h: Harness, accountId: number): Promise<number> {
  return (await valueOf(h.runtime.admin.account(accountId))).balanceMain;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `OTP conversion watch (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    const watch = (): OtpWatch => new OtpWatch(h.runtime.store, h.clock, silent);
    beforeEach(() => h.clock.set(defaultNow));

    it('holds a pumped prefix (none verified, volume rising) and not the prefix whose codes are verified', async () => {
      const p = await h.provision();
      // Interleaved, as real traffic is: 30 pumped codes to 90532…, 25 verified ones to 90542….
      for (let round = 0; round < 5; round += 1) {
        await traffic(h, p, '90532', 6, false);
        await traffic(h, p, '90542', 5, true);
      }
      h.clock.set(h.clock.now() + 180_000);
      const held = await watch().roundOnce();
      assert.deepEqual(
        held.map((c) => [c.keyId, c.prefix, c.sent, c.verified, c.previousSent]),
        [[p.keyId, '90532', 30, 0, 0]],
      );
      const before = await balance(h, p.accountId);
      const refused = await send(h, p.apiKey, '905329998877');
      assert.equal(refused.status, 403, refused.raw);
      assert.equal(refused.body.result, false);
      assert.equal(refused.body.result_code, 'TS-1096');
      assert.match(String(refused.body.result_message), /\+90532.*held/);
      assert.equal('otp_code' in refused.body, false);
      assert.equal(await balance(h, p.accountId), before, 'a held code is not charged');
      // The normal prefix goes on.
      assert.equal((await send(h, p.apiKey, '905429998877')).body.result_code, 'TS-1024');
      assert.equal(await balance(h, p.accountId), before - 1);
      // The refusal is among the blocked attempts; a second round holds nothing new.
      const refusals = await h.runtime.store.otp.refusals(p.accountId, 10);
      assert.deepEqual(
        refusals.map((r) => [r.reason, r.destination]),
        [['held', '905329998877']],
      );
      assert.deepEqual(await watch().roundOnce(), []);
      const holds = await h.runtime.otpSettings.holds({ keyId: p.keyId });
      assert.deepEqual(
        holds.map((x) => [x.prefix, x.sent, x.verified, x.verified_percent, x.released_at]),
        [['90532', 30, 0, 0, null]],
      );
      assert.equal((await h.runtime.store.monitoring.backlog(h.clock.now())).otpHeldPrefixes >= 1, true);

      // The provider releases it: codes go again, and the old codes no longer count.
      const released = await valueOf(h.runtime.otpSettings.release(p.keyId, '90532'));
      assert.deepEqual(released, { key_id: p.keyId, account_id: p.accountId, prefix: '90532', released: 1 });
      h.clock.set(h.clock.now() + 1000);
      assert.equal((await send(h, p.apiKey, '905329998877')).body.result_code, 'TS-1024');
      h.clock.set(h.clock.now() + 180_000);
      assert.deepEqual(await watch().roundOnce(), []);
      assert.deepEqual(await h.runtime.otpSettings.holds({ keyId: p.keyId }), []);
      assert.deepEqual(
        await h.runtime.otpSettings.release(p.keyId, '90532'),
        notFound(`key ${p.keyId} has no standing OTP hold of 90532`),
      );
      // Pumping again after the release is held again.
      await traffic(h, p, '90532', 25, false);
      h.clock.set(h.clock.now() + 180_000);
      assert.deepEqual(
        (await watch().roundOnce()).map((c) => [c.prefix, c.sent]),
        [['90532', 26]],
      );
      assert.equal((await send(h, p.apiKey, '905321112233')).body.result_code, 'TS-1096');
    });

    it('does not hold a prefix whose low share is steady (no rise), nor under a key that turned the watch off', async () => {
      const steady = await h.provision();
      const off = await h.provision();
      await h.runtime.store.otp.saveSettings(off.keyId, { ...noOtpSettings, watchMinSent: 0 }, h.clock.now());
      // The hour before: 30 unverified codes; this hour: 30 more (not twice as many).
      await traffic(h, steady, '90533', 30, false);
      h.clock.set(defaultNow + 3_600_000);
      await traffic(h, steady, '90533', 30, false);
      // Pumping's signature, but under a key whose watch is off.
      await traffic(h, off, '90534', 30, false);
      h.clock.set(h.clock.now() + 180_000);
      assert.deepEqual(await watch().roundOnce(), []);
      assert.equal((await send(h, steady.apiKey, '905339998877')).body.result_code, 'TS-1024');
      assert.equal((await send(h, off.apiKey, '905349998877')).body.result_code, 'TS-1024');
      // With the key's own threshold (a rise of 1: as many as before is enough) it is held.
      await valueOf(h.runtime.otpSettings.update(steady.keyId, { watchRise: 1 }));
      assert.deepEqual(
        (await watch().roundOnce()).map((c) => [c.keyId, c.prefix]),
        [[steady.keyId, '90533']],
      );
    });

    it('a rotated key keeps its OTP settings and the standing holds (through HTTP with the new key)', async () => {
      const p = await h.provision();
      await valueOf(h.runtime.otpSettings.update(p.keyId, { countries: ['90', '49'], watchMinSent: 10 }));
      await traffic(h, p, '90535', 12, false);
      h.clock.set(h.clock.now() + 180_000);
      assert.deepEqual(
        (await watch().roundOnce()).map((c) => [c.keyId, c.prefix]),
        [[p.keyId, '90535']],
      );
      const rotated = await valueOf(h.runtime.admin.rotateKey(p.keyId, false));
      const refused = await send(h, rotated.api_key, '905359998877');
      assert.equal(refused.body.result_code, 'TS-1096', refused.raw);
      assert.equal((await send(h, rotated.api_key, '4915112345678')).body.result_code, 'TS-1024');
      assert.deepEqual(await valueOf(h.runtime.otpSettings.show(rotated.id)), {
        ...(await valueOf(h.runtime.otpSettings.show(p.keyId))),
        key_id: rotated.id,
      });
      // Releasing the new key's hold lets its codes go; the old key is revoked anyway.
      await valueOf(h.runtime.otpSettings.release(rotated.id, null));
      assert.equal((await send(h, rotated.api_key, '905359998877')).body.result_code, 'TS-1024');
    });
  });
}
