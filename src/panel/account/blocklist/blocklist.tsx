/** The blocking list: search, add (typed or CSV, with a per-row report), remove. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { Notice } from '../../kit/fields.js';
import { removeNumberColumn } from '../remove-number.js';
import { Table } from '../../kit/table.js';
import { Pager } from '../../kit/pager.js';
import { field, queryOf } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { csvErrorText, importBodyLimit, postedEntries } from '../../kit/csv.js';
import { ImportForm } from '../../kit/csv-fields.js';
import { PageScripts } from '../../kit/scripts.js';
import { blocklistMessages } from './catalogue.js';
import type { BlockedRow } from '../../../ports/panel-queries.js';
import type { ImportReport } from '../../../services/panel/account/csv-import.js';
import { blockedPageSize } from '../../../services/panel/account/blocklist.js';
import { NotFound } from '../../kit/not-found.js';

interface BlockForm {
  numbers: string;
  csv: string;
  error?: string;
  report?: ImportReport;
}

async function listPage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  form: BlockForm,
  status = 200,
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = blocklistMessages[lang];
  const query = queryOf(request.query);
  const q = query.q ?? '';
  const after = query.after !== undefined && /^\d{1,15}$/.test(query.after) ? query.after : null;
  const rows = await door.of(request).blocklist.blocked(q, after);
  const last = rows[rows.length - 1];
  return sendPage(request, reply, {
    title: t.title,
    status,
    body: (
      <>
        <PageScripts />
        <p>{t.intro}</p>
        <Notice text={query.done === 'unblocked' ? t.unblocked : undefined} />
        <form method="get" action="/panel/blocklist" role="search">
          <label for="block-search">{t.search}</label>
          <input id="block-search" name="q" type="search" value={q} inputMode="numeric" />
          <button type="submit">{t.searchButton}</button>
        </form>
        <section aria-labelledby="block-add">
          <h2 id="block-add">{t.addTitle}</h2>
          <ImportForm
            action="/panel/blocklist"
            state={state}
            id="block"
            label={t.numbers}
            submit={t.add}
            numbers={form.numbers}
            csv={form.csv}
            error={form.error}
            report={form.report}
          />
        </section>
        <Table<BlockedRow>
          rows={rows}
          rowKey={(r) => r.number}
          empty={t.none}
          columns={[
            { header: t.colNumber, rowHeader: true, cell: (r) => r.number },
            { header: t.colSince, cell: (r) => dateTime(r.createdAt, lang, 'second') },
            removeNumberColumn(state, '/panel/blocklist/remove', t.unblock),
          ]}
        />
        <Pager
          lang={lang}
          label={t.title}
          next={
            last && rows.length >= blockedPageSize
              ? `/panel/blocklist?${new URLSearchParams({ q, after: last.number }).toString()}`
              : null
          }
        />
      </>
    ),
  });
}

export const blocklistArea: AccountArea = pageArea({
  name: 'blocklist',
  path: '/blocklist',
  messages: blocklistMessages,
  order: 60,
  page: (request, reply, door) => listPage(request, reply, door, { numbers: '', csv: '' }),
  routes(app, door) {
    app.post('/blocklist', { bodyLimit: importBodyLimit }, async (request, reply) => {
      const numbers = field(request.body, 'numbers');
      const csv = field(request.body, 'csv');
      const posted = postedEntries(numbers, csv);
      if (!posted.ok) {
        const error = csvErrorText(posted.error, request.panel.lang);
        return listPage(request, reply, door, { numbers, csv, error }, 400);
      }
      const report = await door.of(request).blocklist.block(posted.entries);
      return listPage(request, reply, door, { numbers: '', csv: '', report });
    });

    app.post('/blocklist/remove', async (request, reply) => {
      // Another account's number is simply not on this account's list: not found, nothing changed.
      if (!(await door.of(request).blocklist.unblock(field(request.body, 'number'))))
        throw new NotFound('not on the list');
      return reply.redirect('/panel/blocklist?done=unblocked', 303);
    });
  },
});
