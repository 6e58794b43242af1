/**
 * RET by reply (issue 34), on every configured dialect: an inbound message to a number of
 * the account whose whole text is RET, İPTAL, IPTAL or STOP (case and Turkish letters
 * folded; the account's own words when it set them) records RET for its sender at once, and
 * the next commercial send through HTTP leaves that sender out. The inbound side is the
 * service carriers hand mobile-originated messages to (test/cli/iys-ret-process drives it
 * through smsc-sim's MO path).
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Harness, Provisioned } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { InboundService } from '../../src/services/inbound-service.js';
import { foldReply, isRetReply, defaultRetWords } from '../../src/domain/iys.js';

let shortCode = 4600;

async function account(h: Harness, consented: readonly string[]): Promise<Provisioned & { to: string }> {
  const p = await h.provision();
  shortCode += 1;
  const to = String(shortCode);
  await h.runtime.store.inbound.addRoute(to, p.accountId, h.clock.now());
  const added = await h.post('/iys/consent/add', {
    api_key: p.apiKey,
    consents: consented.map((recipient) => ({
      recipient,
      status: 'ONAY',
      recipient_type: 'BIREYSEL',
      source: 'HS_WEB',
      consent_date: '2026-03-01 10:00:00',
    })),
  });
  assert.equal(added.body.added, consented.length, added.raw);
  return { ...p, to };
}

it('folds case and Turkish letters; only the whole text counts', () => {
  assert.equal(foldReply(' İptal. '), 'IPTAL');
  for (const text of ['RET', 'ret', 'Ret!', 'iptal', 'İPTAL', 'ıptal', 'IPTAL', 'stop', ' Stop \n'])
    assert.equal(isRetReply(text, defaultRetWords), true, text);
  for (const text of ['RET lütfen değil', 'stopper', 'merhaba', '', 'R E T'])
    assert.equal(isRetReply(text, defaultRetWords), false, text);
});

for (const dialect of testDialects()) {
  describeOn(dialect, `RET by reply on ${dialect.name}`, () => {
    let h: Harness;
    let inbound: InboundService;
    before(async () => {
      h = await createHarness(await dialect.location());
      inbound = new InboundService(h.runtime.store);
    });
    after(async () => {
      await h.close();
      await dialect.cleanup();
    });

    const commercialSend = (p: Provisioned, numbers: string[]) =>
      h.post('/sms/send', { api_key: p.apiKey, sentto: numbers.join(','), title: 'ACME', text: 'Kampanya', iys: 1 });

    it('an İptal reply records RET for its sender and blocks the next commercial send', async () => {
      const a = '905327770001';
      const b = '905327770002';
      const p = await account(h, [a, b]);
      const first = await commercialSend(p, [a, b]);
      assert.equal(first.body.iys_skipped, 0, first.raw);
      await inbound.receive({ from: '+90 532 777 00 01', to: p.to, text: 'İptal', receivedAt: h.clock.now() });
      const status = await h.post('/iys/consent/status', { api_key: p.apiKey, recipient: a });
      assert.equal(status.body.status, 'RET', status.raw);
      assert.equal(status.body.source, 'HS_MESAJ');
      const tacir = await h.post('/iys/consent/status', { api_key: p.apiKey, recipient: a, recipient_type: 'TACIR' });
      assert.equal(tacir.body.status, 'RET', 'a reply withdraws both recipient types');
      const next = await commercialSend(p, [a, b]);
      assert.equal(next.body.iys_skipped, 1, next.raw);
      assert.equal(next.body.success_count, 1, next.raw);
      // b is untouched.
      assert.equal((await h.post('/iys/consent/status', { api_key: p.apiKey, recipient: b })).body.status, 'ONAY');
    });

    it('other texts, other accounts and unrouted numbers change nothing', async () => {
      const a = '905327770003';
      const p = await account(h, [a]);
      const other = await account(h, [a]);
      await inbound.receive({ from: a, to: p.to, text: 'RET degil, merhaba', receivedAt: h.clock.now() });
      await inbound.receive({ from: a, to: '9999999', text: 'STOP', receivedAt: h.clock.now() });
      assert.equal((await h.post('/iys/consent/status', { api_key: p.apiKey, recipient: a })).body.status, 'ONAY');
      await inbound.receive({ from: a, to: p.to, text: 'stop', receivedAt: h.clock.now() });
      assert.equal((await h.post('/iys/consent/status', { api_key: p.apiKey, recipient: a })).body.status, 'RET');
      assert.equal(
        (await h.post('/iys/consent/status', { api_key: other.apiKey, recipient: a })).body.status,
        'ONAY',
        "another account's consent stays",
      );
    });

    it("an account's own words replace the default ones", async () => {
      const a = '905327770004';
      const p = await account(h, [a]);
      await h.runtime.store.consents.saveSettings(
        p.accountId,
        { iysCode: '123456', brandCode: '654321', retWords: 'DUR, ÇIK' },
        h.clock.now(),
      );
      await inbound.receive({ from: a, to: p.to, text: 'STOP', receivedAt: h.clock.now() });
      assert.equal((await h.post('/iys/consent/status', { api_key: p.apiKey, recipient: a })).body.status, 'ONAY');
      await inbound.receive({ from: a, to: p.to, text: 'çık', receivedAt: h.clock.now() });
      assert.equal((await h.post('/iys/consent/status', { api_key: p.apiKey, recipient: a })).body.status, 'RET');
    });
  });
}
