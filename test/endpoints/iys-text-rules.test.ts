/**
 * The commercial text rules through HTTP, on every configured dialect: an account the
 * provider set to refuse (`iys configure --text-rules refuse`) has a commercial send (iys 1)
 * whose text does not say who sends it or how to opt out refused with TS-1160 (HTTP 400) on
 * /sms/send, /group/send and /group/sendMixed, nothing charged or sent; a text that says both
 * is accepted; the same text without iys, or on an account left at the default (warn), is
 * accepted as before.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Harness, Provisioned } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { groupSend, groupSendMixed } from '../helpers/bulk.js';
import { balancesOf } from '../helpers/sms.js';
import { valueOf } from '../helpers/results.js';

const consented = '905321110001';
const bare = 'Büyük indirim başladı!';
const good = 'ACME: büyük indirim! Almamak için RET yazıp 3333’e gönderin.';
const mersis = 'Büyük indirim! MERSIS 0123456789012345. Ret için İPTAL yaz 4444 gönder.';

async function account(h: Harness, refuse: boolean): Promise<Provisioned> {
  const p = await h.provision();
  const added = await h.post('/iys/consent/add', {
    api_key: p.apiKey,
    consents: [
      {
        recipient: consented,
        status: 'ONAY',
        recipient_type: 'BIREYSEL',
        source: 'HS_WEB',
        consent_date: '2026-03-01 10:00:00',
      },
    ],
  });
  assert.equal(added.body.added, 1, added.raw);
  if (refuse)
    await valueOf(h.runtime.iysAdmin.configure(p.accountId, { iysCode: '1', brandCode: '2', refuseTextRules: true }));
  return p;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `commercial text rules on ${dialect.name}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(await dialect.location());
    });
    after(async () => {
      await h.close();
      await dialect.cleanup();
    });

    it('refuses a commercial text without its sender or opt-out with TS-1160 on every send endpoint, charging nothing', async () => {
      const p = await account(h, true);
      const before = await balancesOf(h, p.apiKey);
      const single = await h.post('/sms/send', {
        api_key: p.apiKey,
        title: 'ACME',
        text: bare,
        sentto: consented,
        iys: 1,
      });
      assert.equal(single.status, 400, single.raw);
      assert.equal(single.body.result, false);
      assert.equal(single.body.result_code, 'TS-1160', single.raw);
      assert.match(String(single.body.result_message), /who sends it/);
      assert.match(String(single.body.result_message), /how to opt out/);
      const group = await groupSend(h, p.apiKey, { sentto: [consented], text: 'ACME indirim!', iys: 1 });
      assert.equal(group.status, 400, group.raw);
      assert.equal(group.body.result_code, 'TS-1160', group.raw);
      assert.doesNotMatch(String(group.body.result_message), /who sends it/, 'ACME names the sender');
      const mixed = await groupSendMixed(h, p.apiKey, {
        sentto: [consented, '905321110002'],
        text: [good, bare],
        iys: 1,
      });
      assert.equal(mixed.status, 400, mixed.raw);
      assert.equal(mixed.body.result_code, 'TS-1160', mixed.raw);
      assert.deepEqual(await balancesOf(h, p.apiKey), before, 'nothing charged');
      assert.equal((await h.runtime.store.panel.campaigns(p.accountId, null, 10)).length, 0, 'nothing recorded');

      // A text that says both is sent; so is the bare one when not commercial.
      for (const text of [good, mersis]) {
        const ok = await h.post('/sms/send', { api_key: p.apiKey, title: 'ACME', text, sentto: consented, iys: 1 });
        assert.equal(ok.body.result_code, 'TS-1024', ok.raw);
      }
      const mixedOk = await groupSendMixed(h, p.apiKey, { sentto: [consented], text: [good], iys: 1 });
      assert.equal(mixedOk.body.result_code, 'TS-1024', mixedOk.raw);
      const plain = await h.post('/sms/send', { api_key: p.apiKey, title: 'ACME', text: bare, sentto: consented });
      assert.equal(plain.body.result_code, 'TS-1024', plain.raw);
    });

    it('only warns by default: the same commercial text is accepted on an account not set to refuse', async () => {
      const p = await account(h, false);
      const single = await h.post('/sms/send', {
        api_key: p.apiKey,
        title: 'ACME',
        text: bare,
        sentto: consented,
        iys: 1,
      });
      assert.equal(single.body.result_code, 'TS-1024', single.raw);
      const group = await groupSend(h, p.apiKey, { sentto: [consented], text: bare, iys: 1 });
      assert.equal(group.body.result_code, 'TS-1024', group.raw);
    });
  });
}
