/**
 * The panel's Consents page over HTTP, on both stores: a number searched (its records per
 * type, source, date and sync state), one added by the form (and one refused with why), a
 * CSV imported with a report per row (bad rows, an older consent, the row bound), the export
 * with formula-like cells made safe, the account's sync state with İYS, the RETs received by
 * reply (newest first), and another account's records never shown. Records added here are
 * the ones a commercial send through the API then filters by.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { valueOf } from '../helpers/results.js';

for (const dialect of testDialects()) {
  describeOn(dialect, `panel: Consents page (${dialect.name})`, () => {
    let h: PanelHarness;
    let a: PanelBrowser;
    let b: PanelBrowser;
    let accountA = 0;

    before(async () => {
      h = await createPanelHarness(await dialect.location());
      const userA = await h.account('Consent A');
      const userB = await h.account('Consent B');
      accountA = userA.accountId;
      a = h.browser();
      await a.signIn(userA.email, userA.password);
      b = h.browser();
      await b.signIn(userB.email, userB.password);
    });
    after(async () => h.close());

    it('adds a consent by the form, shows it when searched, refuses a bad one with why', async () => {
      const page = await a.get('/panel/consents');
      assert.equal(page.status, 200);
      assert.match(page.body, /<h1>Consents \(İYS\)<\/h1>/);
      assert.match(page.body, /value="2026-03-15 12:00:00"/, 'the date defaults to now, Istanbul time');
      const added = await a.post('/panel/consents/add', {
        recipient: '0532 444 00 01',
        status: 'ONAY',
        recipient_type: 'TACIR',
        source: 'HS_ISLAK_IMZA',
        consent_date: '2026-03-01 10:00:00',
      });
      assert.equal(added.status, 200);
      assert.match(added.body, /Recorded: ONAY \(TACIR\) for 905324440001\./);
      const bad = await a.post('/panel/consents/add', {
        recipient: '0532 444 00 02',
        status: 'ONAY',
        recipient_type: 'BIREYSEL',
        source: 'HS_WEB',
        consent_date: '2026-04-01 10:00:00',
      });
      assert.equal(bad.status, 400);
      assert.match(bad.body, /date is in the future/);
      assert.match(bad.body, /aria-invalid="true"/);
      assert.equal((await h.runtime.store.consents.entriesOf(accountA, '905324440002')).length, 0);
      // The source IYS is not offered, and refused when posted: it is kept for records pulled from İYS.
      assert.doesNotMatch(page.body, /<option value="IYS"/);
      const pulled = await a.post('/panel/consents/add', {
        recipient: '0532 444 00 02',
        status: 'ONAY',
        recipient_type: 'BIREYSEL',
        source: 'IYS',
        consent_date: '2026-03-01 10:00:00',
      });
      assert.equal(pulled.status, 400);
      assert.match(pulled.body, /source IYS is kept for records pulled from İYS/);
      assert.equal((await h.runtime.store.consents.entriesOf(accountA, '905324440002')).length, 0);

      const found = await a.get('/panel/consents?number=%2B90%20532%20444%2000%2001');
      assert.match(found.body, /Consents of 905324440001/);
      assert.match(found.body, /<th scope="row">TACIR<\/th><td>ONAY<\/td><td>HS_ISLAK_IMZA<\/td>/);
      assert.match(found.body, /<td>pending<\/td>/);
      assert.match((await a.get('/panel/consents?number=905324449999')).body, /No consent recorded for 905324449999/);
      assert.match((await a.get('/panel/consents?number=12345')).body, /Not a Türkiye mobile number\./);
      // Another account's user sees nothing of it.
      assert.match((await b.get('/panel/consents?number=905324440001')).body, /No consent recorded for 905324440001/);

      // Audited like every change of the panel.
      const audit = await h.runtime.store.audit.search({ accountId: accountA, limit: 10 });
      assert.ok(audit.some((r) => r.action === 'iys.consent.add'));
    });

    it('imports a CSV with a report per row: bad rows and an older consent are not recorded', async () => {
      await a.get('/panel/consents');
      const csv = [
        'numara;durum;alici_tipi;kaynak;tarih',
        '0532 555 00 01;ONAY;;HS_WEB;2026-03-01 10:00:00',
        '0532 555 00 02;RET;BIREYSEL;HS_MESAJ;2026-03-02 10:00:00',
        'abc;ONAY;BIREYSEL;HS_WEB;2026-03-01 10:00:00',
        '0532 555 00 03;MAYBE;BIREYSEL;HS_WEB;2026-03-01 10:00:00',
        '0532 555 00 04;ONAY;BIREYSEL;NOWHERE;2026-03-01 10:00:00',
        '0532 555 00 05;ONAY;BIREYSEL;HS_WEB;yesterday',
        '0532 555 00 02;ONAY;BIREYSEL;HS_WEB;2026-01-01 10:00:00',
        '0532 555 00 06;ONAY;BIREYSEL;iys;2026-03-01 10:00:00',
      ].join('\n');
      const imported = await a.post('/panel/consents/import', { csv });
      assert.equal(imported.status, 200);
      assert.match(imported.body, /2 recorded\./);
      assert.match(imported.body, /6 rows not recorded:/);
      for (const [line, reason] of [
        [4, 'not a Türkiye mobile number'],
        [5, 'status must be ONAY or RET'],
        [6, 'not an İYS source \\(such as HS_WEB\\)'],
        [7, 'date must be YYYY-MM-DD HH:MM:SS'],
        [8, 'a newer consent is in force'],
        [9, 'source IYS is kept for records pulled from İYS: give where the consent was collected'],
      ] as const)
        assert.match(imported.body, new RegExp(`<td>${line}</td><td>[^<]*</td><td>${reason}</td>`), `line ${line}`);
      const status = await h.runtime.services.consents.status(accountA, '905325550002', 'BIREYSEL');
      assert.equal(status?.status, 'RET', 'the older ONAY changed nothing');
      assert.equal((await h.runtime.services.consents.status(accountA, '905325550001', 'BIREYSEL'))?.status, 'ONAY');

      const noNumber = await a.post('/panel/consents/import', { csv: 'status,source\nONAY,HS_WEB' });
      assert.equal(noNumber.status, 400);
      assert.match(noNumber.body, /The header row has no column for the number/);
    });

    it('refuses a CSV over 50,000 rows whole, recording none of it', async () => {
      await a.get('/panel/consents');
      const rows = Array.from(
        { length: 50_001 },
        (_, i) => `90533${String(i).padStart(7, '0')},ONAY,BIREYSEL,HS_WEB,2026-03-01 10:00:00`,
      );
      const refused = await a.post('/panel/consents/import', { csv: rows.join('\n') });
      assert.equal(refused.status, 400);
      assert.match(refused.body, /50,000/);
      assert.equal((await h.runtime.store.consents.entriesOf(accountA, '905330000000')).length, 0);
    });

    it('records an import of several chunks whole, with one audit row of its totals', async () => {
      const userC = await h.account('Consent C');
      const c = h.browser();
      await c.signIn(userC.email, userC.password);
      await c.get('/panel/consents');
      const rows = Array.from(
        { length: 2500 },
        (_, i) => `90534${String(i).padStart(7, '0')},ONAY,BIREYSEL,HS_WEB,2026-03-01 10:00:00`,
      );
      const imported = await c.post('/panel/consents/import', { csv: rows.join('\n') });
      assert.equal(imported.status, 200);
      assert.match(imported.body, /2500 recorded\./);
      const store = h.runtime.store.consents;
      assert.equal((await store.entriesAfter(userC.accountId, null, 3000)).length, 2500);
      const audit = (await h.runtime.store.audit.search({ accountId: userC.accountId, limit: 100 })).filter(
        (r) => r.action === 'iys.consent.import',
      );
      assert.equal(audit.length, 1, 'one audit row for the import');
      assert.deepEqual(JSON.parse(String(audit[0]?.detail)), { rows: 2500, recorded: 2500, rejected: 0 });
    });

    it('exports every record as CSV, a formula-like error made safe', async () => {
      const store = h.runtime.store.consents;
      const [due] = (await store.dueForSync(accountA, h.clock.now(), 100)).filter(
        (c) => c.recipient === '905325550001',
      );
      assert.ok(due);
      await store.settleSync(accountA, [{ consent: due, result: 'failed', error: '=HYPERLINK("x")' }], h.clock.now());
      const exported = await a.get('/panel/consents/export.csv');
      assert.equal(exported.status, 200);
      assert.equal(exported.headers['content-type'], 'text/csv; charset=utf-8');
      const lines = exported.body
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\n');
      assert.equal(lines[0], 'recipient,recipient_type,status,source,consent_date,sync_state,sync_error');
      assert.ok(lines.includes('905325550002,BIREYSEL,RET,HS_MESAJ,2026-03-02 10:00:00,pending,'));
      assert.ok(lines.includes('905324440001,TACIR,ONAY,HS_ISLAK_IMZA,2026-03-01 10:00:00,pending,'));
      assert.ok(
        lines.includes(`905325550001,BIREYSEL,ONAY,HS_WEB,2026-03-01 10:00:00,failed,"'=HYPERLINK(""x"")"`),
        lines.join('\n'),
      );
      assert.equal(lines.length, 4);
      const other = await b.get('/panel/consents/export.csv');
      assert.equal(
        other.body
          .replace(/^\uFEFF/, '')
          .trim()
          .split('\n').length,
        1,
        'another account: the header only',
      );
    });

    it('shows the sync state with İYS and the RETs received by reply, newest first, in English and Turkish', async () => {
      let page = await a.get('/panel/consents');
      assert.match(page.body, /Your provider has not set up İYS for this account/);
      assert.match(
        page.body,
        /<dt>Pending<\/dt><dd>2<\/dd><dt>Synced<\/dt><dd>0<\/dd><dt>Refused by İYS<\/dt><dd>1<\/dd>/,
      );
      assert.match(page.body, /<dt>Last error<\/dt><dd>=HYPERLINK\(&quot;x&quot;\)<\/dd>/);
      assert.match((await b.get('/panel/consents')).body, /No RET received by reply\./);

      await valueOf(h.runtime.iysAdmin.configure(accountA, { iysCode: '700001', brandCode: '800001' }));
      const store = h.runtime.store.consents;
      const reply = (n: string, at: string) =>
        (['BIREYSEL', 'TACIR'] as const).map((type) => ({
          recipient: n,
          recipientType: type,
          status: 'RET' as const,
          source: 'HS_MESAJ',
          consentDate: Date.parse(at),
        }));
      await store.record(
        accountA,
        [...reply('905326660001', '2026-03-10T08:00:00Z'), ...reply('905326660002', '2026-03-12T08:00:00Z')],
        h.clock.now(),
      );
      page = await a.get('/panel/consents');
      assert.match(page.body, /İYS code 700001, brand code 800001\./);
      assert.match(page.body, /No İYS address is set/);
      const rets = /<h2 id="consent-rets">[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
      const order = [...rets.matchAll(/<th scope="row">(\d+)<\/th>/g)].map((m) => m[1]);
      // 905325550002's RET came by the import with source HS_MESAJ: listed in its place too.
      assert.deepEqual(order, ['905326660002', '905326660001', '905325550002']);

      await a.get('/panel/lang/tr');
      page = await a.get('/panel/consents');
      assert.match(page.body, /<h1>İzinler \(İYS\)<\/h1>/);
      assert.match(page.body, /Yanıtla gelen RET’ler/);
      await a.get('/panel/lang/en');
    });

    it('the send form counts the recipients without consent, charges only the others, and warns of the text rules', async () => {
      await h.runtime.store.senderIds.addSenderId(accountA, 'ACME', 'approved', h.clock.now());
      const balance = async (): Promise<number> =>
        (await h.runtime.store.accounts.getAccount(accountA))?.balanceMain ?? -1;
      // 905325550001: ONAY; 905325550002: RET; 905327770001: nothing recorded.
      const form = {
        sender: 'ACME',
        numbers: '905325550001, 905325550002, 905327770001',
        text: 'Indirim basladi!',
        iys: '1',
        iys_recipient_type: 'BIREYSEL',
      };
      await a.get('/panel/send');
      const preview = await a.post('/panel/send', form);
      assert.equal(preview.status, 200);
      assert.match(preview.body, /2 recipients lack consent \(1 without a record, 1 with a RET\)/);
      assert.match(preview.body, /Cost: 1 SMS/);
      assert.match(preview.body, /1 recipients will be sent to\./);
      assert.match(preview.body, /The text does not say who sends it/);
      assert.match(preview.body, /The text does not say how to opt out/);
      assert.match(preview.body, /<input type="checkbox" name="iys" value="1" checked\/>/);
      // Not commercial: every recipient counts.
      const plain = await a.post('/panel/send', { ...form, iys: '' });
      assert.match(plain.body, /Cost: 3 SMS/);
      assert.doesNotMatch(plain.body, /lack consent/);
      // A text that names the sender and the opt-out: no warning.
      const good = await a.post('/panel/send', { ...form, text: 'ACME: indirim! RET yazip 3333e gonderin' });
      assert.doesNotMatch(good.body, /The text does not say/);

      const before = await balance();
      const sent = await a.post('/panel/send', { ...form, confirm: '1' });
      assert.equal(sent.status, 303, sent.body.slice(0, 200));
      assert.equal(before - (await balance()), 1, 'only the recipient with consent is charged');

      // The provider makes the rules a refusal: the panel will not send such a text.
      await valueOf(
        h.runtime.iysAdmin.configure(accountA, { iysCode: '700001', brandCode: '800001', refuseTextRules: true }),
      );
      const refused = await a.post('/panel/send', { ...form, confirm: '1' });
      assert.equal(refused.status, 400);
      assert.match(refused.body, /A commercial text must say who sends it and how to opt out\./);
      assert.equal(before - (await balance()), 1);
      assert.match(
        (await a.get('/panel/consents')).body,
        /Commercial texts that miss a rule \(sender, how to opt out\) are refused\./,
      );
      await valueOf(
        h.runtime.iysAdmin.configure(accountA, { iysCode: '700001', brandCode: '800001', refuseTextRules: false }),
      );
    });
  });
}
