/**
 * The audit log: the provider's search page, by account, actor, action and Istanbul dates,
 * newest first, paged by id. (The customer's Account page shows its own entries.)
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderArea, ProviderDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import type { Lang } from '../../catalogue.js';
import { InputField } from '../../kit/fields.js';
import { SubmitRow } from '../../kit/form-rows.js';
import { Pager } from '../../kit/pager.js';
import { queryOf } from '../../kit/forms.js';
import { AuditTable } from '../../kit/audit-table.js';
import { auditMessages } from './catalogue.js';
import type { AuditSearch } from '../../../ports/audit-store.js';
import { dayOfDate, dayStart } from '../../../domain/istanbul-time.js';

type Fields = 'account' | 'actor' | 'action' | 'from' | 'to';

/** The search from the query string: the filters, and an error per field that could not be read. */
function searchOf(
  query: Record<string, string | undefined>,
  lang: Lang,
): { search: Omit<AuditSearch, 'limit'>; values: Record<Fields, string>; errors: Partial<Record<Fields, string>> } {
  const t = auditMessages[lang];
  const values: Record<Fields, string> = {
    account: (query.account ?? '').trim().slice(0, 20),
    actor: (query.actor ?? '').trim().slice(0, 320),
    action: (query.action ?? '').trim().slice(0, 100),
    from: (query.from ?? '').trim().slice(0, 10),
    to: (query.to ?? '').trim().slice(0, 10),
  };
  const errors: Partial<Record<Fields, string>> = {};
  const search: Omit<AuditSearch, 'limit'> = {};
  if (values.account !== '') {
    if (/^#?\d{1,9}$/.test(values.account)) search.accountId = Number(values.account.replace('#', ''));
    else errors.account = t.errAccount;
  }
  if (values.actor !== '') search.actor = values.actor;
  if (values.action !== '') search.action = values.action;
  for (const field of ['from', 'to'] as const) {
    if (values[field] === '') continue;
    const day = dayOfDate(values[field]);
    if (day === null) errors[field] = t.errDate;
    else if (field === 'from') search.from = dayStart(day);
    else search.to = dayStart(day + 1);
  }
  const before = query.before;
  if (before !== undefined && /^\d{1,15}$/.test(before)) search.before = Number(before);
  return { search, values, errors };
}

async function auditPage(request: FastifyRequest, reply: FastifyReply, door: ProviderDoor): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = auditMessages[lang];
  const query = queryOf(request.query);
  const { search, values, errors } = searchOf(query, lang);
  const failed = Object.keys(errors).length > 0;
  const page = failed ? { entries: [], next: null } : await door.of(request).auditSearch(search);
  const filters = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
  const field = (name: Fields, label: string, type: 'text' | 'date') => (
    <InputField
      id={`audit-${name}`}
      name={name}
      type={type}
      label={label}
      value={values[name]}
      error={errors[name]}
      state={state}
    />
  );
  return sendPage(request, reply, {
    title: t.title,
    status: failed ? 400 : 200,
    body: (
      <>
        <p>{t.intro}</p>
        <form method="get" action="/panel/provider/audit" class="stack" role="search">
          {field('account', t.accountField, 'text')}
          {field('actor', t.actorField, 'text')}
          {field('action', t.actionField, 'text')}
          {field('from', t.fromField, 'date')}
          {field('to', t.toField, 'date')}
          <SubmitRow label={t.search} />
        </form>
        {page.entries.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <AuditTable entries={page.entries} lang={lang} withAccount={true} withAddress={true} />
        )}
        <Pager
          lang={lang}
          label={t.title}
          next={
            page.next === null
              ? null
              : `/panel/provider/audit?${new URLSearchParams({ ...filters, before: String(page.next) }).toString()}`
          }
          first={query.before === undefined ? null : `/panel/provider/audit?${new URLSearchParams(filters).toString()}`}
        />
      </>
    ),
  });
}

export const providerAuditArea: ProviderArea = pageArea({
  name: 'provider-audit',
  path: '/provider/audit',
  messages: auditMessages,
  order: 90,
  page: auditPage,
});
