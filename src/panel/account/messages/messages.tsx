/** The message log (search, keyset pages) and a message's page with its timeline. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import type { PanelState } from '../../context.js';
import { sendPage } from '../../layout.js';
import type { Lang } from '../../catalogue.js';
import { InputField } from '../../kit/fields.js';
import { Pager } from '../../kit/pager.js';
import { idOf, queryOf } from '../../kit/forms.js';
import { dateTime, stateLabel } from '../../kit/format.js';
import { kitText } from '../../kit/text.js';
import { PageScripts } from '../../kit/scripts.js';
import { logMessages } from './catalogue.js';
import { LogTable } from './log-table.js';
import type { MessageDetail } from '../../../ports/panel-queries.js';
import type { LogField, LogQuery } from '../../../services/panel/account/messages.js';
import { NotFound } from '../../kit/not-found.js';

const queryFields = ['number', 'from', 'to', 'status', 'sender', 'campaign'] as const;

function SearchForm(props: { q: LogQuery; errors: Partial<Record<LogField, 'invalid'>>; state: PanelState }) {
  const lang = props.state.lang;
  const t = logMessages[lang];
  const c = kitText[lang];
  const { q, errors } = props;
  const input = (name: 'number' | 'from' | 'to' | 'sender' | 'campaign', label: string, type: string) => {
    const error = errors[name as LogField] ? t.invalidField : undefined;
    return (
      <InputField
        id={`q-${name}`}
        name={name}
        type={type}
        label={label}
        value={q[name] ?? ''}
        error={error}
        state={props.state}
      />
    );
  };
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
  const at = (ms: number | null): string => (ms === null ? '' : dateTime(ms, lang, 'second'));
  const final =
    m.state === 'delivered' ? t.deliveredAt : m.state === 'failed' || m.state === 'expired' ? t.failedAt : null;
  return (
    <ol class="timeline">
      <li>
        {t.accepted}: {at(m.createdAt)}
      </li>
      {m.submittedAt !== null && (
        <li>
          {t.sentAt}: {at(m.submittedAt)}
        </li>
      )}
      {final !== null ? (
        <li>
          {final} ({stateLabel(m.state, lang)}): {at(m.doneAt)}
          {m.detail !== null && <p>{t.operatorReport(m.detail)}</p>}
        </li>
      ) : (
        <li>{t.awaiting}</li>
      )}
    </ol>
  );
}

function MessageFacts(props: { lang: Lang; m: MessageDetail }) {
  const t = logMessages[props.lang];
  const { m, lang } = props;
  return (
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
  );
}

async function searchPage(request: FastifyRequest, reply: FastifyReply, door: AccountDoor): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = logMessages[lang];
  const query = queryOf(request.query);
  const q: LogQuery = {};
  for (const name of [...queryFields, 'after'] as const) {
    const v = query[name];
    if (v !== undefined) q[name] = v;
  }
  const page = await door.of(request).messages.search(q);
  const keep = new URLSearchParams(queryFields.flatMap((n) => (q[n] ? [[n, q[n] ?? '']] : [])));
  return sendPage(request, reply, {
    title: t.title,
    body: (
      <>
        <PageScripts />
        <SearchForm q={q} errors={page.errors} state={request.panel} />
        {page.rows.length === 0 ? <p>{t.none}</p> : <LogTable lang={lang} rows={page.rows} />}
        <Pager
          lang={lang}
          label={t.title}
          first={q.after === undefined ? null : `/panel/messages?${keep.toString()}`}
          next={
            page.next === null
              ? null
              : `/panel/messages?${new URLSearchParams([...keep, ['after', page.next]]).toString()}`
          }
        />
      </>
    ),
  });
}

export const messagesArea: AccountArea = pageArea({
  name: 'messages',
  path: '/messages',
  messages: logMessages,
  order: 30,
  page: searchPage,
  routes(app, door) {
    app.get<{ Params: { id: string } }>('/messages/:id', async (request, reply) => {
      const lang = request.panel.lang;
      const t = logMessages[lang];
      const id = idOf(request.params.id, true);
      const m = await door.of(request).messages.message(id);
      if (!m) throw new NotFound(`no message ${id}`);
      return sendPage(request, reply, {
        title: t.messageTitle(m.id),
        body: (
          <>
            <PageScripts />
            <MessageFacts lang={lang} m={m} />
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
                      {t.partLabel(p.partNo)}: {stateLabel(p.state, lang)}{' '}
                      {p.doneAt === null ? '' : dateTime(p.doneAt, lang, 'second')} {p.detail ?? ''}
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
});
