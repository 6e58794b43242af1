/**
 * The panel's send page over HTTP, on both stores: a commercial send's text rules (İYS) are
 * checked on the text that goes out, a chosen template's filled text, not the typed text it
 * replaces (a warning, and a refusal where the provider set one, as the API's); and the
 * account's send defaults, prefilled, apply when left as shown, while a field emptied on the
 * page is none for that send (read back from the send the store keeps).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import type { StoredControls } from '../../src/ports/messages.js';
import { valueOf } from '../helpers/results.js';

const gapSender = /The text does not say who sends it/;
const gapOptOut = /The text does not say how to opt out/;

for (const dialect of testDialects()) {
  describeOn(dialect, `panel: send page (${dialect.name})`, () => {
    let h: PanelHarness;
    let a: PanelBrowser;
    let accountId = 0;

    before(async () => {
      h = await createPanelHarness(await dialect.location());
      const user = await h.account('Send Page');
      accountId = user.accountId;
      await h.runtime.store.senderIds.addSenderId(accountId, 'ACME', 'approved', h.clock.now());
      a = h.browser();
      await a.signIn(user.email, user.password);
    });
    after(async () => h.close());

    const balance = async (): Promise<number> =>
      (await h.runtime.store.accounts.getAccount(accountId))?.balanceMain ?? -1;

    /** Saves a template on the Templates page; answers its id as the send page offers it. */
    async function template(name: string, text: string): Promise<string> {
      await a.get('/panel/templates');
      assert.equal((await a.post('/panel/templates', { name, text })).status, 303);
      const page = await a.get('/panel/send');
      const id = new RegExp(`<option value="(\\d+)"[^>]*>${name}</option>`).exec(page.body)?.[1];
      assert.ok(id, `the send page offers ${name}`);
      return id;
    }

    /** The window, speed and validity the store keeps with the send a panel send redirected to. */
    async function controlsOfSend(location: string | undefined): Promise<StoredControls | null> {
      const sendId = Number(/\/panel\/campaigns\/(\d+)\?sent=1$/.exec(location ?? '')?.[1]);
      assert.ok(sendId > 0, `redirected to the campaign: ${location}`);
      // The send's list waits for the expander, which reads the send's controls with it.
      const due = await h.runtime.store.queue.claimExpansion(h.clock.now(), h.clock.now() + 3_600_000);
      assert.equal(due?.id, sendId);
      return due.controls ?? null;
    }

    it('checks a commercial template send’s text rules on the template’s filled text, not the typed one', async () => {
      await a.get('/panel/consents');
      const consent = {
        status: 'ONAY',
        recipient_type: 'BIREYSEL',
        source: 'HS_WEB',
        consent_date: '2026-03-01 10:00:00',
      };
      assert.equal((await a.post('/panel/consents/add', { ...consent, recipient: '905551230001' })).status, 200);
      const bare = await template('Bare', 'Indirim basladi, kacirmayin!');
      // The sender is a CSV column: only the filled text names it (the API checks the filled texts too).
      const good = await template('Good', '{{marka}}: indirim! RET yazip 3333e gonderin');
      const form = {
        sender: 'ACME',
        numbers: '',
        csv: 'telefon,marka\n905551230001,ACME',
        iys: '1',
        iys_recipient_type: 'BIREYSEL',
      };

      // A template lacking both parts is flagged, though the typed text (ignored) has them.
      await a.get('/panel/send');
      const flagged = await a.post('/panel/send', {
        ...form,
        template: bare,
        text: 'ACME: RET yazip 3333e gonderin',
      });
      assert.equal(flagged.status, 200, flagged.body.slice(0, 300));
      assert.match(flagged.body, gapSender);
      assert.match(flagged.body, gapOptOut);
      // A good template with an irrelevant typed text is not flagged, nor refused as too long.
      const long = await a.post('/panel/send', { ...form, template: good, text: 'x'.repeat(2001) });
      assert.equal(long.status, 200, long.body.slice(0, 300));
      assert.doesNotMatch(long.body, /id="send-text-error"/);
      const fine = await a.post('/panel/send', { ...form, template: good, text: 'merhaba' });
      assert.equal(fine.status, 200, fine.body.slice(0, 300));
      assert.match(fine.body, /ACME: indirim! RET yazip 3333e gonderin/, 'the sample is the filled text');
      assert.doesNotMatch(fine.body, gapSender);
      assert.doesNotMatch(fine.body, gapOptOut);

      // The provider makes the rules a refusal: the bare template is refused on its field, nothing charged.
      await valueOf(h.runtime.iysAdmin.configure(accountId, { iysCode: '1', brandCode: '2', refuseTextRules: true }));
      const before = await balance();
      await a.get('/panel/send');
      const refused = await a.post('/panel/send', {
        ...form,
        template: bare,
        text: 'ACME: RET yazip 3333e gonderin',
        confirm: '1',
      });
      assert.equal(refused.status, 400);
      assert.match(
        refused.body,
        /id="send-template-error"[^>]*>[^<]*A commercial text must say who sends it and how to opt out\./,
      );
      assert.equal(await balance(), before);
      // The good template goes, whatever the typed text says.
      const sent = await a.post('/panel/send', { ...form, template: good, text: 'merhaba', confirm: '1' });
      assert.equal(sent.status, 303, sent.body.slice(0, 300));
      assert.equal(before - (await balance()), 1);
      assert.equal(await controlsOfSend(sent.location), null);
    });

    it('prefills the send defaults: left as shown they apply, a field emptied is none for this send', async () => {
      await a.get('/panel/account');
      const saved = await a.post('/panel/account/send-defaults', {
        window_from: '09:00',
        window_to: '18:00',
        window_days: ['1', '2', '3', '4', '5'],
        speed: '30',
        validity_minutes: '120',
      });
      assert.equal(saved.status, 303);
      const page = await a.get('/panel/send');
      assert.match(page.body, /name="window_from" type="time" value="09:00"/);
      assert.match(page.body, /name="window_to" type="time" value="18:00"/);
      assert.match(page.body, /name="speed" type="number" min="1" max="100000" value="30"/);
      assert.match(page.body, /name="validity_minutes" type="number" min="1" max="2880" value="120"/);
      assert.match(page.body, /<input type="hidden" name="controls_shown" value="1"\/>/);

      const shown = {
        sender: 'ACME',
        numbers: '905551230002',
        text: 'Merhaba',
        window_from: '09:00',
        window_to: '18:00',
        window_days: ['1', '2', '3', '4', '5'],
        speed: '30',
        validity_minutes: '120',
        controls_shown: '1',
      };
      const office = { from: 540, to: 1080, days: [1, 2, 3, 4, 5] };
      const untouched = await a.post('/panel/send', shown);
      assert.match(untouched.body, /Delivery controls: window 09:00–18:00 \(Monday, [^)]*Friday\); 30 a minute/);
      const kept = await controlsOfSend((await a.post('/panel/send', { ...shown, confirm: '1' })).location);
      assert.deepEqual(kept?.window, office);
      assert.equal(kept?.speed, 30);
      assert.equal(kept?.validUntil, h.clock.now() + 120 * 60_000);

      // Every field emptied (the days stay ticked, as a browser posts them): no controls at all.
      const empty = {
        ...shown,
        window_from: '',
        window_to: '',
        window_days: ['1', '2', '3', '4', '5'],
        speed: '',
        validity_minutes: '',
      };
      const cleared = await a.post('/panel/send', empty);
      assert.equal(cleared.status, 200, cleared.body.slice(0, 300));
      assert.doesNotMatch(cleared.body, /Delivery controls:/);
      assert.equal(await controlsOfSend((await a.post('/panel/send', { ...empty, confirm: '1' })).location), null);

      // One field emptied: that one is none, the others as shown.
      const noSpeed = await controlsOfSend(
        (await a.post('/panel/send', { ...shown, speed: '', confirm: '1' })).location,
      );
      assert.deepEqual(noSpeed?.window, office);
      assert.equal(noSpeed?.speed, null);
      assert.equal(noSpeed?.validUntil, h.clock.now() + 120 * 60_000);

      // The defaults themselves are unchanged: the next page shows them again.
      assert.match((await a.get('/panel/send')).body, /name="speed" type="number" min="1" max="100000" value="30"/);
    });
  });
}
