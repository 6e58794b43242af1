/**
 * The provider console's accounts: list and search (paged by id), and create; one account's
 * own page and its actions are in account-page.tsx. Every change goes through
 * ProviderConsole, which uses the services `haberci admin account` uses and writes the audit
 * row in the same transaction.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderArea, ProviderDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { InputField } from '../../kit/fields.js';
import { SubmitRow } from '../../kit/form-rows.js';
import { PostForm } from '../../kit/post-form.js';
import { Table } from '../../kit/table.js';
import { Pager } from '../../kit/pager.js';
import { cursorOf, field, queryOf } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { providerAccountMessages } from './catalogue.js';
import { accountPageRoutes } from './account-page.js';
import { statementRoutes } from './statement.js';
import type { AccountView } from '../../../services/admin.js';
import { found } from '../../kit/not-found.js';

interface ListForm {
  name: string;
  balance: string;
  errors?: { name?: string; balance?: string };
}

function CreateForm(props: { request: FastifyRequest; form: ListForm }) {
  const { form } = props;
  const state = props.request.panel;
  const t = providerAccountMessages[state.lang];
  const field = (name: 'name' | 'balance', label: string, attributes: Record<string, string | number | boolean>) => (
    <InputField
      id={`account-${name}`}
      name={name}
      label={label}
      value={form[name]}
      error={form.errors?.[name]}
      state={state}
      attributes={attributes}
    />
  );
  return (
    <>
      <h2 id="create-account-heading">{t.createHeading}</h2>
      <PostForm action="/panel/provider/accounts" state={state} class="stack" labelledBy="create-account-heading">
        {field('name', t.nameField, { maxLength: 200, required: true })}
        {field('balance', t.balanceField, { inputMode: 'numeric' })}
        <SubmitRow label={t.create} />
      </PostForm>
    </>
  );
}

async function listPage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: ProviderDoor,
  form: ListForm = { name: '', balance: '' },
): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = providerAccountMessages[lang];
  const query = queryOf(request.query);
  const q = (query.q ?? '').slice(0, 200);
  const page = await door.of(request).console.accounts(q, cursorOf(query.after));
  const search: Record<string, string> = q === '' ? {} : { q };
  const here = (params: Record<string, string>): string =>
    `/panel/provider/accounts${Object.keys(params).length > 0 ? `?${new URLSearchParams(params).toString()}` : ''}`;
  return sendPage(request, reply, {
    title: t.title,
    status: form.errors !== undefined ? 400 : 200,
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
          <SubmitRow label={t.search} />
        </form>
        <Table<AccountView>
          rows={page.items}
          rowKey={(a) => a.id}
          empty={t.none}
          columns={[
            {
              header: t.colName,
              rowHeader: true,
              cell: (a) => <a href={`/panel/provider/accounts/${a.id}`}>{a.name}</a>,
            },
            { header: t.colId, cell: (a) => a.id },
            { header: t.colStatus, class: 'state', cell: (a) => (a.status === 'Active' ? t.active : t.suspended) },
            { header: t.colMain, cell: (a) => a.balance_main },
            { header: t.colInternational, cell: (a) => a.balance_international },
            { header: t.colCreated, cell: (a) => dateTime(a.created_at, lang) },
          ]}
        />
        <Pager
          lang={lang}
          label={t.title}
          next={page.next === null ? null : here({ ...search, after: String(page.next) })}
          first={query.after === undefined ? null : here(search)}
        />
        <CreateForm request={request} form={form} />
      </>
    ),
  });
}

export const providerAccountsArea: ProviderArea = pageArea({
  name: 'provider-accounts',
  path: '/provider/accounts',
  messages: providerAccountMessages,
  order: 10,
  page: listPage,
  routes(app, door) {
    app.post('/provider/accounts', async (request, reply) => {
      const t = providerAccountMessages[request.panel.lang];
      const name = field(request.body, 'name').trim();
      const balanceRaw = field(request.body, 'balance').trim();
      const errors: { name?: string; balance?: string } = {};
      if (name === '' || name.length > 200) errors.name = t.errName;
      const balance = balanceRaw === '' ? 0 : /^\d{1,12}$/.test(balanceRaw) ? Number(balanceRaw) : null;
      if (balance === null) errors.balance = t.errBalance;
      if (errors.name !== undefined || balance === null)
        return listPage(request, reply, door, { name, balance: balanceRaw, errors });
      const made = await found(
        door.of(request).console.createAccount({
          name,
          balanceMain: balance,
          balanceInternational: 0,
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
        }),
      );
      return reply.redirect(`/panel/provider/accounts/${made.id}?done=created`, 303);
    });

    accountPageRoutes(app, door);
    statementRoutes(app, door);
  },
});
