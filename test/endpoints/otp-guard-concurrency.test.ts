/**
 * The OTP guard's limits are exact however many codes arrive at once, and across processes
 * (issue 42): 60 concurrent codes to one number are 5 sent (the default per-number limit an
 * hour), 55 refused, and 60 to one prefix against a rise floor of 20 are 20 sent, whether
 * they reach one process (its batches counted in one transaction) or two processes sharing
 * the store (two app containers on one SQLite file, or one PostgreSQL schema).
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createHarness } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';
import { noOtpSettings } from '../../src/domain/otp-guard.js';
import { valueOf } from '../helpers/results.js';

function codes(answers: readonly Answer[]): Record<string, number> {
  const seen: Record<string, number> = {};
  for (const a of answers) {
    const code = String(a.body.result_code);
    seen[code] = (seen[code] ?? 0) + 1;
  }
  return seen;
}

/** `count` codes at once, to `to(i)`, spread over the harnesses in turn. */
function burst(hs: readonly Harness[], apiKey: string, count: number, to: (i: number) => string): Promise<Answer[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) => {
      const h = hs[i % hs.length] ?? assert.fail('no harness');
      return h.post('/otp/send', { api_key: apiKey, mobile: to(i) });
    }),
  );
}

for (const dialect of testDialects()) {
  describeOn(dialect, `OTP guard under concurrency (${dialect.name})`, () => {
    let folder = '';
    let one: Harness;
    let two: Harness;
    before(async () => {
      folder = mkdtempSync(join(tmpdir(), 'haberci-otp-guard-'));
      const location =
        dialect.name === 'sqlite'
          ? { dialect: 'sqlite' as const, file: join(folder, 'store.db') }
          : await dialect.location();
      one = await createHarness(location);
      two = await createHarness(location);
      // Both on one clock: the second process's counts are read at the first's instant.
      two.clock.set(one.clock.now());
    });
    after(async () => {
      await two.close();
      await one.close();
      rmSync(folder, { recursive: true, force: true });
    });

    it('sends exactly 5 of 60 concurrent codes to one number in one process, charging 5', async () => {
      const p = await one.provision();
      const answers = await burst([one], p.apiKey, 60, () => '905321234567');
      assert.deepEqual(codes(answers), { 'TS-1024': 5, 'TS-1095': 55 });
      for (const a of answers.filter((x) => x.body.result_code === 'TS-1095')) assert.equal(a.status, 429);
      assert.equal((await valueOf(one.runtime.admin.account(p.accountId))).balanceMain, 995);
    });

    it('sends exactly 5 of 60 concurrent codes to one number across two processes', async () => {
      const p = await one.provision();
      const answers = await burst([one, two], p.apiKey, 60, () => '905321234568');
      assert.deepEqual(codes(answers), { 'TS-1024': 5, 'TS-1095': 55 });
      assert.equal((await valueOf(one.runtime.admin.account(p.accountId))).balanceMain, 995);
      const refusals = await one.runtime.store.otp.refusals(p.accountId, 100);
      assert.equal(refusals.filter((r) => r.reason === 'number-hour').length, 55);
    });

    it('sends exactly the rise floor of 60 concurrent codes to one prefix across two processes', async () => {
      const p = await one.provision();
      await one.runtime.store.otp.saveSettings(
        p.keyId,
        { ...noOtpSettings, prefixRiseMin: 20, prefixRise: 10 },
        one.clock.now(),
      );
      const answers = await burst([one, two], p.apiKey, 60, (i) => `90532${String(i).padStart(7, '0')}`);
      assert.deepEqual(codes(answers), { 'TS-1024': 20, 'TS-1095': 40 });
      assert.equal((await valueOf(one.runtime.admin.account(p.accountId))).balanceMain, 980);
    });
  });
}
