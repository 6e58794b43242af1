/**
 * The provider console's accounts (issue 22): list and search (paged by id), create, one
 * account with its users and ledger, suspend and reactivate, top up and debit. Every
 * change goes through ProviderConsole, which uses the services `haberci admin account`
 * uses and writes the audit row in the same transaction.
 *
 * One file over 300 lines on purpose: the list and the account's own page share their
 * parsing, their errors and the redirect after each action; split when a third page comes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelArea, PanelDeps } from '../context.js';
import { Csrf, FieldError, Notice, sendPage } from '../layout.js';
import { providerAccountMessages } from '../i18n/provider-accounts.js';
import { formOf, text, ticked } from '../forms.js';
import { dateTime, idOf } from './key-format.js';
import type { IdParams } from './key-format.js';
import { actorOf } from '../audit.js';
import { AdminError } from '../../services/admin-error.js';
import { NotFoundForAccount } from '../../services/account-panel.js';
import type { AccountView } from '../../services/admin.js';

const provider = { config: { panelAccess: 'provider' as const } };

type Query = Record<string, string | undefined>;

/** A cursor from the query: a plain number, or none. */
function cursor(raw: string | undefined): number | undefined {
  return raw !== undefined && /^\d{1,12}$/.test(raw) ? Number(raw) : undefined;
}

/** A whole number above zero (amounts), or null. */
function amountOf(raw: string): number | null {
  const v = raw.trim();
  return /^\d{1,12}$/.test(v) && Number(v) > 0 ? Number(v) : null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

interface ListForm {
  name: string;
  balance: string;
  errors?: { name?: string; balance?: string };
}

async function listPage(request: FastifyRequest, reply: FastifyReply, deps: PanelDeps, form: ListForm = { name: '', balance: '' }): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = providerAccountMessages[lang];
  const query = request.query as Query;
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
          {page.next !== null && <a href={`/panel/provider/accounts?${new URLSearchParams({ ...(q === '' ? {} : { q }), after: String(page.next) }).toString()}`}>{t.nextPage}</a>}
          {query.after !== undefined && <a href={`/panel/provider/accounts${search.size > 0 ? `?${search.toString()}` : ''}`}>{t.firstPage}</a>}
        </p>

        <h2 id="create-account-heading">{t.createHeading}</h2>
        <form method="post" action="/panel/provider/accounts" class="stack" aria-labelledby="create-account-heading">
          <Csrf state={state} />
          <div>
            <label for="account-name">{t.nameField}</label>
            <input id="account-name" name="name" type="text" maxLength={200} required value={form.name} aria-invalid={form.errors?.name ? 'true' : undefined} aria-describedby={form.errors?.name ? 'account-name-error' : undefined} />
            <FieldError id="account-name-error" text={form.errors?.name} state={state} />
          </div>
          <div>
            <label for="account-balance">{t.balanceField}</label>
            <input id="account-balance" name="balance" type="text" inputMode="numeric" value={form.balance} aria-invalid={form.errors?.balance ? 'true' : undefined} aria-describedby={form.errors?.balance ? 'account-balance-error' : undefined} />
            <FieldError id="account-balance-error" text={form.errors?.balance} state={state} />
          </div>
          <div>
            <button type="submit">{t.create}</button>
          </div>
        </form>
      </>
    ),
  });
}

interface AccountErrors {
  topup?: string;
  debitAmount?: string;
  debitReason?: string;
  values?: { topup?: string; debitAmount?: string; debitReason?: string };
}

async function accountPage(request: FastifyRequest, reply: FastifyReply, deps: PanelDeps, id: number, errors: AccountErrors = {}): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = providerAccountMessages[lang];
  const query = request.query as Query;
  let found;
  try {
    found = await deps.account.console.account(id);
  } catch (error) {
    if (error instanceof AdminError) throw new NotFoundForAccount(`no account ${id}`);
    throw error;
  }
  const { account, users } = found;
  const ledger = await deps.account.console.ledger(id, cursor(query.before));
  const notices: Record<string, string> = { created: t.doneCreated, suspended: t.doneSuspended, reactivated: t.doneReactivated, topup: t.doneTopup, debit: t.doneDebit };
  const done = query.done === undefined ? undefined : notices[query.done];
  const failed = errors.topup !== undefined || errors.debitAmount !== undefined || errors.debitReason !== undefined;
  const base = `/panel/provider/accounts/${id}`;
  return sendPage(request, reply, {
    title: t.accountTitle(account.name),
    status: failed ? 400 : 200,
    body: (
      <>
        <Notice text={done} />
        <dl class="facts">
          <dt>{t.number}</dt>
          <dd>{account.id}</dd>
          <dt>{t.name}</dt>
          <dd>{account.name}</dd>
          <dt>{t.status}</dt>
          <dd class="state">{account.status === 'Active' ? t.active : t.suspended}</dd>
          <dt>{t.main}</dt>
          <dd>{account.balance_main}</dd>
          <dt>{t.international}</dt>
          <dd>{account.balance_international}</dd>
          <dt>{t.created}</dt>
          <dd>{dateTime(account.created_at, lang)}</dd>
        </dl>
        <p>
          <a href={`/panel/provider/audit?account=${id}`}>{t.auditLink}</a>
        </p>

        <h2>{t.users}</h2>
        {users.length === 0 ? (
          <p>{t.noUsers}</p>
        ) : (
          <ul>
            {users.map((u) => (
              <li key={u.id}>{u.email}</li>
            ))}
          </ul>
        )}

        <h2>{t.suspendHeading}</h2>
        <form method="post" action={`${base}/${account.status === 'Active' ? 'suspend' : 'reactivate'}`} class="stack">
          <Csrf state={state} />
          <p class="muted">{t.suspendText}</p>
          <div>
            <button type="submit" class={account.status === 'Active' ? 'danger' : undefined}>
              {account.status === 'Active' ? t.suspend : t.reactivate}
            </button>
          </div>
        </form>

        <h2 id="topup-heading">{t.topupHeading}</h2>
        <form method="post" action={`${base}/topup`} class="stack" aria-labelledby="topup-heading">
          <Csrf state={state} />
          <div>
            <label for="topup-amount">{t.topupAmount}</label>
            <input id="topup-amount" name="amount" type="text" inputMode="numeric" required value={errors.values?.topup ?? ''} aria-invalid={errors.topup ? 'true' : undefined} aria-describedby={errors.topup ? 'topup-amount-error' : undefined} />
            <FieldError id="topup-amount-error" text={errors.topup} state={state} />
          </div>
          <div>
            <input id="topup-international" name="international" type="checkbox" value="1" />
            <label for="topup-international">{t.topupInternational}</label>
          </div>
          <div>
            <button type="submit">{t.topup}</button>
          </div>
        </form>

        <h2 id="debit-heading">{t.debitHeading}</h2>
        <form method="post" action={`${base}/debit`} class="stack" aria-labelledby="debit-heading">
          <Csrf state={state} />
          <div>
            <label for="debit-amount">{t.debitAmount}</label>
            <input id="debit-amount" name="amount" type="text" inputMode="numeric" required value={errors.values?.debitAmount ?? ''} aria-invalid={errors.debitAmount ? 'true' : undefined} aria-describedby={errors.debitAmount ? 'debit-amount-error' : undefined} />
            <FieldError id="debit-amount-error" text={errors.debitAmount} state={state} />
          </div>
          <div>
            <label for="debit-reason">{t.debitReason}</label>
            <input id="debit-reason" name="reason" type="text" maxLength={500} required value={errors.values?.debitReason ?? ''} aria-invalid={errors.debitReason ? 'true' : undefined} aria-describedby={errors.debitReason ? 'debit-reason-error' : undefined} />
            <FieldError id="debit-reason-error" text={errors.debitReason} state={state} />
          </div>
          <div>
            <input id="debit-international" name="international" type="checkbox" value="1" />
            <label for="debit-international">{t.debitInternational}</label>
          </div>
          <div>
            <button type="submit">{t.debit}</button>
          </div>
        </form>

        <h2 id="ledger">{t.ledgerHeading}</h2>
        {ledger.items.length === 0 ? (
          <p>{t.ledgerNone}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.colWhen}</th>
                  <th scope="col">{t.colBucket}</th>
                  <th scope="col">{t.colDelta}</th>
                  <th scope="col">{t.colAfter}</th>
                  <th scope="col">{t.colReason}</th>
                  <th scope="col">{t.colReference}</th>
                </tr>
              </thead>
              <tbody>
                {ledger.items.map((e) => (
                  <tr key={e.id}>
                    <td>{dateTime(iso(e.createdAt), lang)}</td>
                    <td>{e.bucket === 'main' ? t.bucketMain : t.bucketInternational}</td>
                    <td>{e.delta > 0 ? `+${e.delta}` : String(e.delta)}</td>
                    <td>{e.balanceAfter}</td>
                    <td>{e.reason}</td>
                    <td>{e.reference ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {ledger.next !== null && (
          <p>
            <a href={`${base}?before=${ledger.next}#ledger`}>{t.olderEntries}</a>
          </p>
        )}
      </>
    ),
  });
}

/** The account of a console route, or "not found" (404) when there is none. */
async function existing(deps: PanelDeps, raw: string): Promise<number> {
  const id = idOf(raw);
  try {
    await deps.account.console.account(id);
  } catch (error) {
    if (error instanceof AdminError) throw new NotFoundForAccount(`no account ${id}`);
    throw error;
  }
  return id;
}

export const providerAccountsArea: PanelArea = {
  name: 'provider-accounts',
  nav: [{ path: '/provider/accounts', label: (lang) => providerAccountMessages[lang].nav, order: 10, for: 'provider' }],
  routes(app, deps) {
    app.get('/provider/accounts', provider, async (request, reply) => listPage(request, reply, deps));

    app.post('/provider/accounts', provider, async (request, reply) => {
      const t = providerAccountMessages[request.panel.lang];
      const form = formOf(request.body);
      const name = text(form, 'name').trim();
      const balanceRaw = text(form, 'balance').trim();
      const errors: { name?: string; balance?: string } = {};
      if (name === '' || name.length > 200) errors.name = t.errName;
      const balance = balanceRaw === '' ? 0 : /^\d{1,12}$/.test(balanceRaw) ? Number(balanceRaw) : null;
      if (balance === null) errors.balance = t.errBalance;
      if (errors.name !== undefined || balance === null) return listPage(request, reply, deps, { name, balance: balanceRaw, errors });
      const made = await deps.account.console.createAccount(actorOf(request), { name, balanceMain: balance, balanceInternational: 0, perMinuteLimit: 0, otpBrand: '', ipAllow: [], globalSending: false });
      return reply.redirect(`/panel/provider/accounts/${made.id}?done=created`, 303);
    });

    app.get<IdParams>('/provider/accounts/:id', provider, async (request, reply) => accountPage(request, reply, deps, idOf(request.params.id)));

    for (const [verb, status, done] of [
      ['suspend', 'Suspended', 'suspended'],
      ['reactivate', 'Active', 'reactivated'],
    ] as const) {
      app.post<IdParams>(`/provider/accounts/:id/${verb}`, provider, async (request, reply) => {
        const id = await existing(deps, request.params.id);
        await deps.account.console.setStatus(actorOf(request), id, status);
        return reply.redirect(`/panel/provider/accounts/${id}?done=${done}`, 303);
      });
    }

    app.post<IdParams>('/provider/accounts/:id/topup', provider, async (request, reply) => {
      const t = providerAccountMessages[request.panel.lang];
      const id = await existing(deps, request.params.id);
      const form = formOf(request.body);
      const raw = text(form, 'amount');
      const amount = amountOf(raw);
      if (amount === null) return accountPage(request, reply, deps, id, { topup: t.errAmount, values: { topup: raw } });
      await deps.account.console.topup(actorOf(request), id, amount, ticked(form, 'international'));
      return reply.redirect(`/panel/provider/accounts/${id}?done=topup`, 303);
    });

    app.post<IdParams>('/provider/accounts/:id/debit', provider, async (request, reply) => {
      const t = providerAccountMessages[request.panel.lang];
      const id = await existing(deps, request.params.id);
      const form = formOf(request.body);
      const raw = text(form, 'amount');
      const reason = text(form, 'reason').trim().slice(0, 500);
      const amount = amountOf(raw);
      const values = { debitAmount: raw, debitReason: reason };
      if (amount === null || reason === '') return accountPage(request, reply, deps, id, { ...(amount === null ? { debitAmount: t.errAmount } : {}), ...(reason === '' ? { debitReason: t.errReason } : {}), values });
      try {
        await deps.account.console.debit(actorOf(request), id, amount, ticked(form, 'international'), reason);
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        // The only refusal left once the fields are right: the balance does not cover the amount.
        return accountPage(request, reply, deps, id, { debitAmount: t.errInsufficient, values });
      }
      return reply.redirect(`/panel/provider/accounts/${id}?done=debit`, 303);
    });
  },
};
