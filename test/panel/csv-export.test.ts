/**
 * The panel's CSV exports carry no formula: a cell that starts with =, +, -, @, a tab or a
 * carriage return (a contact's name, a recipient that is no number, an operator's report)
 * is written with a single quote before it, as the OWASP CSV injection guidance says, so a
 * spreadsheet shows it as text. Other cells are written as they are.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createPanelHarness, writeSend } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { defaultKeySettings } from '../../src/services/admin.js';

/** Cells a spreadsheet would run, each with its leading character. */
const formulas = ['=1+2', '+cmd|calc', '-2+3', '@SUM(A1)', '\tTAB=1', '\rCR=1'];

const rowsOf = (body: string): string[][] => parse(body.replace(/^\uFEFF/, ''), { relax_column_count: true });

for (const dialect of testDialects()) {
  describeOn(dialect, `panel CSV exports neutralise formulas (${dialect.name})`, () => {
    let h: PanelHarness;
    let c: PanelBrowser;
    let accountId = 0;

    before(async () => {
      h = await createPanelHarness(await dialect.location());
      const user = await h.account('Exporter');
      accountId = user.accountId;
      c = h.browser();
      await c.signIn(user.email, user.password);
    });
    after(async () => h.close());

    it('quotes a contact name that would be a formula, in the group export', async () => {
      await c.get('/panel/groups');
      const created = await c.post('/panel/groups', { name: 'Formulas' });
      const groupId = Number(/groups\/(\d+)/.exec(created.location ?? '')?.[1]);
      await c.get(`/panel/groups/${groupId}`);
      const numbers = [...formulas, 'Ali'].map((_, i) => `0532444000${i}`);
      await c.post(`/panel/groups/${groupId}/contacts`, { numbers: numbers.join('\n'), csv: '' });
      await h.runtime.store.panel.nameContacts(
        accountId,
        groupId,
        [...formulas, 'Ali'].map((name, i) => ({ number: `90532444000${i}`, name })),
      );
      const exported = await c.get(`/panel/groups/${groupId}/export.csv`);
      assert.equal(exported.status, 200);
      const rows = rowsOf(exported.body);
      assert.deepEqual(rows[0], ['number', 'name', 'added']);
      const names = new Map(rows.slice(1).map((r) => [r[0], r[1]]));
      formulas.forEach((name, i) => assert.equal(names.get(`90532444000${i}`), `'${name}`, JSON.stringify(name)));
      assert.equal(names.get('905324440006'), 'Ali');
    });

    it('quotes a recipient, operator or report that would be a formula, in the campaign export', async () => {
      const store = h.runtime.store;
      const key = (await h.runtime.admin.createKey(accountId, { ...defaultKeySettings })).id;
      const { sendId, messageIds: ids } = await writeSend(store, {
        accountId,
        keyId: key,
        at: h.clock.now(),
        send: { invalidNumbers: formulas.length },
        messages: [
          ...formulas.map((f) => ({ recipient: f, text: null, smsCount: 0, operator: f, failedDetail: f })),
          { recipient: '905324440100', text: null, smsCount: 1, operator: 'TURKCELL' },
        ],
      });
      const exported = await c.get(`/panel/campaigns/${sendId}/export.csv`);
      assert.equal(exported.status, 200);
      const rows = rowsOf(exported.body);
      const header = rows[0] ?? [];
      const cell = (row: string[], column: string): string | undefined => row[header.indexOf(column)];
      const byId = new Map(rows.slice(1).map((r) => [Number(cell(r, 'message_id')), r]));
      formulas.forEach((f, i) => {
        const row = byId.get(ids[i] ?? 0) ?? [];
        for (const column of ['number', 'operator', 'report'])
          assert.equal(cell(row, column), `'${f}`, `${column} ${JSON.stringify(f)}`);
      });
      const plain = byId.get(ids[formulas.length] ?? 0) ?? [];
      assert.deepEqual(
        ['number', 'operator', 'sms'].map((column) => cell(plain, column)),
        ['905324440100', 'TURKCELL', '1'],
      );
    });
  });
}
