/** The message log (search, keyset pages) and a message's page with its timeline. */
import type { PanelArea } from '../context.js';
import { accountIdOf } from '../context.js';
import { FieldError, sendPage } from '../layout.js';
import type { Lang } from '../i18n/messages.js';
import { logMessages } from '../i18n/log.js';
import { dataCommon } from '../i18n/data-common.js';
import type { LogRow, MessageDetail } from '../../ports/panel-queries.js';
import type { LogField, LogQuery } from '../../services/panel/panel-messages.js';
import { dataOf, dateTime, idParam, notFound, stateLabel } from './data-shared.js';
import { DataScripts } from './data-components.js';

export function LogTable(props: { lang: Lang; rows: readonly LogRow[] }) {
  const t = logMessages[props.lang];
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t.colId}</th>
            <th scope="col">{t.colNumber}</th>
            <th scope="col">{t.colSender}</th>
            <th scope="col">{t.colStatus}</th>
            <th scope="col">{t.colParts}</th>
            <th scope="col">{t.colCreated}</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={r.id}>
              <th scope="row">
                <a href={`/panel/messages/${r.id}`}>{t.messageTitle(r.id)}</a>
              </th>
              <td>{r.recipient}</td>
              <td>{r.sender}</td>
              <td>{stateLabel(r.state, props.lang)}</td>
              <td>{r.smsCount}</td>
              <td>{dateTime(r.createdAt, props.lang)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const queryFields = ['number', 'from', 'to', 'status', 'sender', 'campaign'] as const;

function SearchForm(props: {
  lang: Lang;
  q: LogQuery;
  errors: Partial<Record<LogField, 'invalid'>>;
  state: Parameters<typeof FieldError>[0]['state'];
}) {
  const t = logMessages[props.lang];
  const c = dataCommon[props.lang];
  const { q, errors } = props;
  const input = (name: 'number' | 'from' | 'to' | 'sender' | 'campaign', label: string, type: string) => (
    <p>
      <label for={`q-${name}`}>{label}</label>
      <input
        id={`q-${name}`}
        name={name}
        type={type}
        value={q[name] ?? ''}
        aria-invalid={errors[name as LogField] ? 'true' : undefined}
        aria-describedby={errors[name as LogField] ? `q-${name}-error` : undefined}
      />
      <FieldError
        id={`q-${name}-error`}
        text={errors[name as LogField] ? t.invalidField : undefined}
        state={props.state}
      />
    </p>
  );
  return (
    <form method="get" action="/panel/messages" role="search" class="filters">
      {input('number', t.number, 'text')}
      {input('from', t.from, 'date')}
      {input('to', t.to, 'date')}
      <p>
        <label for="q-status">{t.status}</label>
        <select id="q-status" name="status">
          <option value="">{t.anyStatus}</option>
          {(['delivered', 'failed', 'pending'] as const).map((s) => (
            <option value={s} selected={q.status === s}>
              {c[s]}
            </option>
          ))}
        </select>
      </p>
      {input('sender', t.sender, 'text')}
      {input('campaign', t.campaign, 'text')}
      <p>
        <button type="submit">{t.search}</button>
      </p>
    </form>
  );
}

function Timeline(props: { lang: Lang; m: MessageDetail }) {
  const t = logMessages[props.lang];
  const { m, lang } = props;
  const final =
    m.state === 'delivered' ? t.deliveredAt : m.state === 'failed' || m.state === 'expired' ? t.failedAt : null;
  return (
    <ol class="timeline">
      <li>
        {t.accepted}: {dateTime(m.createdAt, lang)}
      </li>
      {m.submittedAt !== null && (
        <li>
          {t.sentAt}: {dateTime(m.submittedAt, lang)}
        </li>
      )}
      {final !== null ? (
        <li>
          {final} ({stateLabel(m.state, lang)}): {dateTime(m.doneAt, lang)}
          {m.detail !== null && <p>{t.operatorReport(m.detail)}</p>}
        </li>
      ) : (
        <li>{t.awaiting}</li>
      )}
    </ol>
  );
}

export const messagesArea: PanelArea = {
  name: 'messages',
  nav: [{ path: '/messages', label: (lang) => logMessages[lang].nav, order: 30, for: 'account' }],
  routes(app, deps) {
    app.get<{ Querystring: LogQuery }>('/messages', async (request, reply) => {
      const lang = request.panel.lang;
      const t = logMessages[lang];
      const c = dataCommon[lang];
      const q: LogQuery = {};
      for (const name of [...queryFields, 'after'] as const) {
        const v = request.query[name];
        if (typeof v === 'string') q[name] = v;
      }
      const page = await dataOf(deps).messages.search(accountIdOf(request.panel), q);
      const keep = new URLSearchParams(queryFields.flatMap((n) => (q[n] ? [[n, q[n] ?? '']] : [])));
      const nextHref =
        page.next === null
          ? null
          : `/panel/messages?${new URLSearchParams([...keep, ['after', page.next]]).toString()}`;
      return sendPage(request, reply, {
        title: t.title,
        body: (
          <>
            <DataScripts />
            <SearchForm lang={lang} q={q} errors={page.errors} state={request.panel} />
            {page.rows.length === 0 ? <p>{t.none}</p> : <LogTable lang={lang} rows={page.rows} />}
            <nav aria-label={t.title} class="pager">
              {q.after !== undefined && <a href={`/panel/messages?${keep.toString()}`}>{c.firstPage}</a>}
              {nextHref !== null && (
                <a href={nextHref} rel="next">
                  {c.nextPage}
                </a>
              )}
            </nav>
          </>
        ),
      });
    });

    app.get<{ Params: { id: string } }>('/messages/:id', async (request, reply) => {
      const lang = request.panel.lang;
      const t = logMessages[lang];
      const id = idParam(request.params.id);
      const m = id === null ? null : await dataOf(deps).messages.message(accountIdOf(request.panel), id);
      if (!m) return notFound();
      return sendPage(request, reply, {
        title: t.messageTitle(m.id),
        body: (
          <>
            <DataScripts />
            <dl class="facts">
              <dt>{t.colNumber}</dt>
              <dd>{m.recipient}</dd>
              <dt>{t.colSender}</dt>
              <dd>{m.sender}</dd>
              <dt>{t.colStatus}</dt>
              <dd>{stateLabel(m.state, lang)}</dd>
              <dt>{t.operator}</dt>
              <dd>{m.operator}</dd>
              <dt>{t.colParts}</dt>
              <dd>{m.smsCount}</dd>
              <dt>{t.text}</dt>
              <dd>
                <pre class="message-text">{m.text}</pre>
              </dd>
            </dl>
            <p>
              <a href={`/panel/campaigns/${m.sendId}`}>{t.campaignLink(m.sendId)}</a>
            </p>
            <h2>{t.timeline}</h2>
            <Timeline lang={lang} m={m} />
            {m.parts.length > 0 && (
              <>
                <h2>{t.parts}</h2>
                <ul>
                  {m.parts.map((p) => (
                    <li key={p.partNo}>
                      {t.partLabel(p.partNo)}: {stateLabel(p.state, lang)} {dateTime(p.doneAt, lang)} {p.detail ?? ''}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </>
        ),
      });
    });
  },
};
