/**
 * The panel's CSV exports carry no formula: a cell that starts with =, +, -, @, a tab or a
 * carriage return (a contact's name, a recipient that is no number, an operator's report)
 * is written with a single quote before it, as the OWASP CSV injection guidance says, so a
 * spreadsheet shows it as text; so is every part of a cell that starts after a separator a
 * spreadsheet may split on (`x;=11` in Turkish Excel, which splits on semicolons), and a
 * cell holding a semicolon or a tab is quoted. Other cells are written as they are.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createPanelHarness, writeSend } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { valueOf } from '../helpers/results.js';

/** Cells a spreadsheet would run, each with its leading character. */
const formulas = ['=1+2', '+cmd|calc', '-2+3', '@SUM(A1)', '\tTAB=1', '\rCR=1'];

/** Cells that a spreadsheet splitting on `;`, `,`, a tab or a line break would cut into formulas. */
const splitters: [string, string][] = [
  ['x;=11', "x;'=11"],
  ['Ali, -2+3', "Ali, '-2+3"],
  ['a\t@SUM(1)', "a\t'@SUM(1)"],
  ['satır\n=1', "satır\n'=1"],
  ['a; +1', "a; '+1"],
  [' =1', "' =1"],
  ['\uFF1D1', "'\uFF1D1"],
  ['a;b', 'a;b'],
];

const rowsOf = (body: string): string[][] => parse(body.replace(/^\uFEFF/, ''), { relax_column_count: true });

const formulaStart = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * Every cell a spreadsheet could make of the export: Turkish Excel's (`;`, quotes honoured
 * only at a cell's start), and a split on every separator that ignores quotes altogether.
 * None may start a formula once the spaces and the quote a split leaves are trimmed.
 */
function assertNoFormulaWhenSplit(body: string): void {
  const text = body.replace(/^\uFEFF/, '');
  const semicolon: string[][] = parse(text, { delimiter: ';', relax_quotes: true, relax_column_count: true });
  for (const cell of semicolon.flat()) assert.doesNotMatch(cell.trimStart(), formulaStart, JSON.stringify(cell));
  for (const piece of text.split(/[;,\t\r\n]/))
    assert.doesNotMatch(piece.replace(/^[ "]+/, ''), formulaStart, JSON.stringify(piece));
}

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

    it('keeps every part of a cell formula-free where a spreadsheet would split it, and quotes `;`', async () => {
      await c.get('/panel/groups');
      const created = await c.post('/panel/groups', { name: 'Splitters' });
      const groupId = Number(/groups\/(\d+)/.exec(created.location ?? '')?.[1]);
      await c.get(`/panel/groups/${groupId}`);
      const numbers = splitters.map((_, i) => `0532555000${i}`);
      await c.post(`/panel/groups/${groupId}/contacts`, { numbers: numbers.join('\n'), csv: '' });
      await h.runtime.store.panel.nameContacts(
        accountId,
        groupId,
        splitters.map(([name], i) => ({ number: `90532555000${i}`, name })),
      );
      const exported = await c.get(`/panel/groups/${groupId}/export.csv`);
      assert.equal(exported.status, 200);
      const names = new Map(rowsOf(exported.body).map((r) => [r[0], r[1]]));
      splitters.forEach(([, safe], i) => assert.equal(names.get(`90532555000${i}`), safe, JSON.stringify(safe)));
      // A cell with a semicolon is quoted, so a spreadsheet honouring quotes keeps it whole.
      assert.match(exported.body, /,"a;b",/);
      assert.match(exported.body, /,"x;'=11",/);
      assertNoFormulaWhenSplit(exported.body);
    });

    it('quotes a recipient, operator or report that would be a formula, in the campaign export', async () => {
      const store = h.runtime.store;
      const key = (await valueOf(h.runtime.admin.createKey(accountId, { ...defaultKeySettings }))).id;
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
      assertNoFormulaWhenSplit(exported.body);
      const plain = byId.get(ids[formulas.length] ?? 0) ?? [];
      assert.deepEqual(
        ['number', 'operator', 'sms'].map((column) => cell(plain, column)),
        ['905324440100', 'TURKCELL', '1'],
      );
    });
  });
}
