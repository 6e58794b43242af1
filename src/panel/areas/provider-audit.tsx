/**
 * The audit log (issue 22): the provider's search page (by account, actor, action and
 * Istanbul dates, newest first, paged by id), and the table the customer's Account page
 * shows of the account's own entries.
 */
import { queryOf } from '../forms.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelArea, PanelDeps } from '../context.js';
import { providerOnly } from '../context.js';
import { FieldError, sendPage } from '../layout.js';
import { auditMessages } from '../i18n/provider-audit.js';
import type { Lang } from '../i18n/messages.js';
import { dateTime } from './key-format.js';
import type { AuditEntry, AuditSearch } from '../../ports/audit-store.js';
import { dayOfDate, dayStart } from '../../domain/istanbul-day.js';

/** Audit entries as a table; `withAccount`: the Account column (the provider's page). */
export function AuditTable(props: {
  entries: readonly AuditEntry[];
  lang: Lang;
  withAccount: boolean;
  withAddress: boolean;
}) {
  const t = auditMessages[props.lang];
  return (
    <div class="table-wrap">
      <table class="audit">
        <thead>
          <tr>
            <th scope="col">{t.colWhen}</th>
            <th scope="col">{t.colActor}</th>
            {props.withAddress && <th scope="col">{t.colAddress}</th>}
            <th scope="col">{t.colAction}</th>
            {props.withAccount && <th scope="col">{t.colAccount}</th>}
            <th scope="col">{t.colObject}</th>
            <th scope="col">{t.colDetail}</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((e) => (
            <tr key={e.id}>
              <td>{dateTime(new Date(e.at).toISOString(), props.lang)}</td>
              <td>{e.actor}</td>
              {props.withAddress && <td>{e.address ?? ''}</td>}
              <td class="action">{e.action}</td>
              {props.withAccount && (
                <td>
                  {e.accountId === null ? (
                    ''
                  ) : (
                    <a href={`/panel/provider/accounts/${e.accountId}`}>{String(e.accountId)}</a>
                  )}
                </td>
              )}
              <td>{e.objectType === null ? '' : `${e.objectType} ${e.objectId ?? ''}`}</td>
              <td class="detail">{e.detail ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

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

async function auditPage(request: FastifyRequest, reply: FastifyReply, deps: PanelDeps): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = auditMessages[lang];
  const query = queryOf(request.query);
  const { search, values, errors } = searchOf(query, lang);
  const failed = Object.keys(errors).length > 0;
  const page = failed ? { entries: [], next: null } : await deps.account.audit.search(search);
  const filters = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
  const field = (name: Fields, label: string, type: 'text' | 'date') => (
    <div>
      <label for={`audit-${name}`}>{label}</label>
      <input
        id={`audit-${name}`}
        name={name}
        type={type}
        value={values[name]}
        aria-invalid={errors[name] ? 'true' : undefined}
        aria-describedby={errors[name] ? `audit-${name}-error` : undefined}
      />
      <FieldError id={`audit-${name}-error`} text={errors[name]} state={state} />
    </div>
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
          <div>
            <button type="submit">{t.search}</button>
          </div>
        </form>
        {page.entries.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <AuditTable entries={page.entries} lang={lang} withAccount={true} withAddress={true} />
        )}
        <p class="actions">
          {page.next !== null && (
            <a
              href={`/panel/provider/audit?${new URLSearchParams({ ...filters, before: String(page.next) }).toString()}`}
            >
              {t.nextPage}
            </a>
          )}
          {query.before !== undefined && (
            <a href={`/panel/provider/audit?${new URLSearchParams(filters).toString()}`}>{t.firstPage}</a>
          )}
        </p>
      </>
    ),
  });
}

export const providerAuditArea: PanelArea = {
  name: 'provider-audit',
  nav: [{ path: '/provider/audit', label: (lang) => auditMessages[lang].nav, order: 90, for: 'provider' }],
  routes(app, deps) {
    app.get('/provider/audit', providerOnly, async (request, reply) => auditPage(request, reply, deps));
  },
};
