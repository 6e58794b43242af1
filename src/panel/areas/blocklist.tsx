/** The blocking list: search, add (typed or CSV, with a per-row report), remove. */
import { queryOf } from '../forms.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelArea, PanelDeps } from '../context.js';
import { accountIdOf } from '../context.js';
import { Csrf, FieldError, Notice, sendPage } from '../layout.js';
import { blocklistMessages } from '../i18n/blocklist.js';
import { dataCommon } from '../i18n/data-common.js';
import type { ImportReport } from '../../services/panel/panel-directory.js';
import { csvErrorText, dataOf, dateTime, field, importBodyLimit, notFound, postedEntries } from './data-shared.js';
import { CsvFields, DataScripts, ImportResult } from './data-components.js';
import { audited } from '../audit.js';

interface BlockForm {
  numbers: string;
  csv: string;
  error?: string;
  report?: ImportReport;
}

async function listPage(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: PanelDeps,
  form: BlockForm,
  status = 200,
): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = blocklistMessages[lang];
  const c = dataCommon[lang];
  const query = queryOf(request.query);
  const q = typeof query.q === 'string' ? query.q : '';
  const after = typeof query.after === 'string' && /^\d{1,15}$/.test(query.after) ? query.after : null;
  const rows = await dataOf(deps).directory.blocked(accountIdOf(request.panel), q, after);
  const last = rows[rows.length - 1];
  return sendPage(request, reply, {
    title: t.title,
    status,
    body: (
      <>
        <DataScripts />
        <p>{t.intro}</p>
        <Notice text={query.done === 'unblocked' ? t.unblocked : undefined} />
        <form method="get" action="/panel/blocklist" role="search">
          <label for="block-search">{t.search}</label>
          <input id="block-search" name="q" type="search" value={q} inputMode="numeric" />
          <button type="submit">{t.searchButton}</button>
        </form>
        <section aria-labelledby="block-add">
          <h2 id="block-add">{t.addTitle}</h2>
          <form method="post" action="/panel/blocklist">
            <Csrf state={request.panel} />
            <label for="block-numbers">{t.numbers}</label>
            <textarea
              id="block-numbers"
              name="numbers"
              rows={3}
              aria-describedby={form.error ? 'block-error' : undefined}
            >
              {form.numbers}
            </textarea>
            <CsvFields lang={lang} id="block-csv" value={form.csv} />
            <FieldError id="block-error" text={form.error} state={request.panel} />
            <button type="submit">{t.add}</button>
          </form>
          <ImportResult lang={lang} report={form.report ?? null} />
        </section>
        {rows.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.colNumber}</th>
                  <th scope="col">{t.colSince}</th>
                  <th scope="col">
                    <span class="visually-hidden">{t.unblock('')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.number}>
                    <th scope="row">{r.number}</th>
                    <td>{dateTime(r.createdAt, lang)}</td>
                    <td>
                      <form method="post" action="/panel/blocklist/remove">
                        <Csrf state={request.panel} />
                        <input type="hidden" name="number" value={r.number} />
                        <button type="submit" aria-label={t.unblock(r.number)}>
                          {t.unblock(r.number)}
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {last && rows.length >= 100 && (
          <nav aria-label={t.title} class="pager">
            <a href={`/panel/blocklist?${new URLSearchParams({ q, after: last.number }).toString()}`} rel="next">
              {c.nextPage}
            </a>
          </nav>
        )}
      </>
    ),
  });
}

export const blocklistArea: PanelArea = {
  name: 'blocklist',
  nav: [{ path: '/blocklist', label: (lang) => blocklistMessages[lang].nav, order: 60, for: 'account' }],
  routes(app, deps) {
    app.get('/blocklist', async (request, reply) => listPage(request, reply, deps, { numbers: '', csv: '' }));

    app.post('/blocklist', { bodyLimit: importBodyLimit }, async (request, reply) => {
      const numbers = field(request.body, 'numbers');
      const csv = field(request.body, 'csv');
      const posted = postedEntries(numbers, csv);
      if (!posted.ok)
        return listPage(
          request,
          reply,
          deps,
          { numbers, csv, error: csvErrorText(posted.error, request.panel.lang) },
          400,
        );
      const report = await dataOf(deps).directory.block(accountIdOf(request.panel), posted.entries);
      await audited(request, deps, { action: 'blocklist.add', detail: { entries: posted.entries.length } });
      return listPage(request, reply, deps, { numbers: '', csv: '', report });
    });

    app.post('/blocklist/remove', async (request, reply) => {
      // Another account's number is simply not on this account's list: not found, nothing changed.
      if (!(await dataOf(deps).directory.unblock(accountIdOf(request.panel), field(request.body, 'number'))))
        return notFound();
      await audited(request, deps, { action: 'blocklist.remove', detail: { number: field(request.body, 'number') } });
      return reply.redirect('/panel/blocklist?done=unblocked', 303);
    });
  },
};
