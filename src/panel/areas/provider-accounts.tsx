/**
 * The provider console's accounts (issue 22): list and search (paged by id), and create;
 * one account's own page and its actions are in provider-account.tsx. Every change goes
 * through ProviderConsole, which uses the services `haberci admin account` uses and writes
 * the audit row in the same transaction.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelArea, PanelDeps } from '../context.js';
import { providerOnly } from '../context.js';
import { Csrf, TextField, sendPage } from '../layout.js';
import { providerAccountMessages } from '../i18n/provider-accounts.js';
import { formOf, text, queryOf } from '../forms.js';
import { dateTime } from './key-format.js';
import { actorOf } from '../audit.js';
import type { AccountView } from '../../services/admin.js';

/** A cursor from the query: a plain number, or none. */
export function cursor(raw: string | undefined): number | undefined {
  // The ids paged here are 32-bit columns on PostgreSQL: a larger cursor is no cursor.
  return raw !== undefined && /^\d{1,10}$/.test(raw) && Number(raw) <= 2_147_483_647 ? Number(raw) : undefined;
}

interface ListForm {
  name: string;
  balance: string;
  errors?: { name?: string; balance?: string };
}

async function listPage(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: PanelDeps,
  form: ListForm = { name: '', balance: '' },
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = providerAccountMessages[lang];
  const query = queryOf(request.query);
  const q = (query.q ?? '').slice(0, 200);
  const page = await deps.account.console.accounts(q, cursor(query.after));
  const statusText = (a: AccountView): string => (a.status === 'Active' ? t.active : t.suspended);
  const failed = form.errors !== undefined;
  const search = new URLSearchParams(q === '' ? {} : { q });
  return sendPage(request, reply, {
    title: t.title,
    status: failed ? 400 : 200,
    body: (
      <>
        <form method="get" action="/panel/provider/accounts" class="stack" role="search">
          <div>
            <label for="account-search">{t.searchLabel}</label>
            <input id="account-search" name="q" type="search" value={q} aria-describedby="account-search-hint" />
            <p class="muted" id="account-search-hint">
              {t.searchHint}
            </p>
          </div>
          <div>
            <button type="submit">{t.search}</button>
          </div>
        </form>
        {page.items.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.colName}</th>
                  <th scope="col">{t.colId}</th>
                  <th scope="col">{t.colStatus}</th>
                  <th scope="col">{t.colMain}</th>
                  <th scope="col">{t.colInternational}</th>
                  <th scope="col">{t.colCreated}</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((a) => (
                  <tr key={a.id}>
                    <th scope="row">
                      <a href={`/panel/provider/accounts/${a.id}`}>{a.name}</a>
                    </th>
                    <td>{a.id}</td>
                    <td class="state">{statusText(a)}</td>
                    <td>{a.balance_main}</td>
                    <td>{a.balance_international}</td>
                    <td>{dateTime(a.created_at, lang)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p class="actions">
          {page.next !== null && (
            <a
              href={`/panel/provider/accounts?${new URLSearchParams({ ...(q === '' ? {} : { q }), after: String(page.next) }).toString()}`}
            >
              {t.nextPage}
            </a>
          )}
          {query.after !== undefined && (
            <a href={`/panel/provider/accounts${search.size > 0 ? `?${search.toString()}` : ''}`}>{t.firstPage}</a>
          )}
        </p>

        <h2 id="create-account-heading">{t.createHeading}</h2>
        <form method="post" action="/panel/provider/accounts" class="stack" aria-labelledby="create-account-heading">
          <Csrf state={state} />
          <TextField
            id="account-name"
            name="name"
            label={t.nameField}
            maxLength={200}
            value={form.name}
            error={form.errors?.name}
            state={state}
          />
          <TextField
            id="account-balance"
            name="balance"
            label={t.balanceField}
            numeric
            optional
            value={form.balance}
            error={form.errors?.balance}
            state={state}
          />
          <div>
            <button type="submit">{t.create}</button>
          </div>
        </form>
      </>
    ),
  });
}
export const providerAccountsArea: PanelArea = {
  name: 'provider-accounts',
  nav: [{ path: '/provider/accounts', label: (lang) => providerAccountMessages[lang].nav, order: 10, for: 'provider' }],
  routes(app, deps) {
    app.get('/provider/accounts', providerOnly, async (request, reply) => listPage(request, reply, deps));

    app.post('/provider/accounts', providerOnly, async (request, reply) => {
      const t = providerAccountMessages[request.panel.lang];
      const form = formOf(request.body);
      const name = text(form, 'name').trim();
      const balanceRaw = text(form, 'balance').trim();
      const errors: { name?: string; balance?: string } = {};
      if (name === '' || name.length > 200) errors.name = t.errName;
      const balance = balanceRaw === '' ? 0 : /^\d{1,12}$/.test(balanceRaw) ? Number(balanceRaw) : null;
      if (balance === null) errors.balance = t.errBalance;
      if (errors.name !== undefined || balance === null)
        return listPage(request, reply, deps, { name, balance: balanceRaw, errors });
      const made = await deps.account.console.createAccount(actorOf(request), {
        name,
        balanceMain: balance,
        balanceInternational: 0,
        perMinuteLimit: 0,
        otpBrand: '',
        ipAllow: [],
        globalSending: false,
      });
      return reply.redirect(`/panel/provider/accounts/${made.id}?done=created`, 303);
    });
  },
};
