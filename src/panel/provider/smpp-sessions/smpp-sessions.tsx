/**
 * The provider console's SMPP customers page: who is bound to the cluster's SMPP servers
 * now (system_id, account, peer address, bind type, since when, which process), the submit
 * rate of the sessions this process holds, and the receipts owed to each user (the
 * backlog), polled by htmx.
 */
import { render } from 'preact-render-to-string';
import type { ProviderArea } from '../door.js';
import { liveOf } from '../door.js';
import { sendPage } from '../../layout.js';
import type { Lang } from '../../catalogue.js';
import { Table } from '../../kit/table.js';
import { dateTime } from '../../kit/format.js';
import { LiveSection } from '../live-section.js';
import { providerSmppSessionsMessages } from './catalogue.js';
import type { SmppSessionView } from '../../../services/panel/provider/provider-live.js';

function Sessions(props: { lang: Lang; sessions: readonly SmppSessionView[] | null; at: number }) {
  const { lang } = props;
  const t = providerSmppSessionsMessages[lang];
  return (
    <LiveSection name="smpp-sessions" lang={lang} at={props.at} heading={t.refreshed}>
      {props.sessions === null ? (
        <p>{t.off}</p>
      ) : (
        <Table<SmppSessionView>
          rows={props.sessions}
          rowKey={(s) => `${s.systemId}|${s.peer}|${s.since}`}
          empty={t.none}
          rowAttributes={(s) => ({
            'data-system-id': s.systemId,
            'data-bind': s.bindType,
            'data-here': String(s.here),
          })}
          columns={[
            { header: t.colSystemId, rowHeader: true, cell: (s) => s.systemId },
            {
              header: t.colAccount,
              cell: (s) => <a href={`/panel/provider/accounts/${s.accountId}`}>{s.accountId}</a>,
            },
            { header: t.colPeer, cell: (s) => s.peer },
            { header: t.colBind, cell: (s) => t[s.bindType] },
            { header: t.colSince, cell: (s) => dateTime(s.since, lang, 'second') },
            { header: t.colProcess, cell: (s) => (s.here ? t.thisProcess(s.process) : s.process) },
            { header: t.colRate, cell: (s) => (s.submitRate === null ? '-' : s.submitRate.toFixed(1)) },
            { header: t.colSubmits, cell: (s) => <span data-submits>{s.submits ?? '-'}</span> },
            { header: t.colUnanswered, cell: (s) => s.unanswered ?? '-' },
            { header: t.colOwed, cell: (s) => <span data-owed>{s.owedReceipts}</span> },
          ]}
        />
      )}
    </LiveSection>
  );
}

export const providerSmppSessionsArea: ProviderArea = {
  name: 'provider-smpp-sessions',
  nav: [{ path: '/provider/smpp-sessions', label: (lang) => providerSmppSessionsMessages[lang].nav, order: 55 }],
  routes(app, door) {
    app.get('/provider/smpp-sessions', async (request, reply) => {
      const live = liveOf(request, door);
      const lang = request.panel.lang;
      const t = providerSmppSessionsMessages[lang];
      const sessions = await live.smppSessions();
      return sendPage(request, reply, {
        title: t.title,
        body: (
          <>
            <p>{t.intro}</p>
            <Sessions lang={lang} sessions={sessions} at={door.of(request).now()} />
          </>
        ),
      });
    });
    app.get('/provider/smpp-sessions/live', async (request, reply) => {
      const live = liveOf(request, door);
      const html = render(
        <Sessions lang={request.panel.lang} sessions={await live.smppSessions()} at={door.of(request).now()} />,
      );
      return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
    });
  },
};
