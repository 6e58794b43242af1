/**
 * The provider console's Carriers page: each SMPP connection's state, window, submit rate,
 * binds in the cluster (which process holds each), the cluster's rate and recent errors,
 * and the lanes' backlog, polled by htmx.
 */
import { render } from 'preact-render-to-string';
import type { ProviderArea } from '../door.js';
import { liveOf } from '../door.js';
import { sendPage } from '../../layout.js';
import type { Lang } from '../../catalogue.js';
import { Table } from '../../kit/table.js';
import { dateTime } from '../../kit/format.js';
import { LiveSection } from '../live-section.js';
import { providerCarriersMessages } from './catalogue.js';
import type { ConnectionView } from '../../../services/panel/provider/provider-live.js';
import type { Backlog } from '../../../ports/metrics.js';

type Lanes = NonNullable<Backlog['lanes']>;

function Errors(props: { lang: Lang; c: ConnectionView }) {
  const t = providerCarriersMessages[props.lang];
  if (props.c.recentErrors.length === 0) return <>{t.noErrors}</>;
  return (
    <ul>
      {[...props.c.recentErrors].reverse().map((e, i) => (
        <li key={`${e.at}-${i}`}>
          {dateTime(e.at, props.lang, 'second')}: {e.what}
        </li>
      ))}
    </ul>
  );
}

/** The places of the connection's binds in the cluster, each with the process holding it. */
function Binds(props: { lang: Lang; c: ConnectionView }) {
  const t = providerCarriersMessages[props.lang];
  const binds = props.c.binds;
  if (binds === undefined) return <>-</>;
  return (
    <>
      {t.bindsOf(binds.length, props.c.maxBinds ?? binds.length)}
      {binds.length === 0 ? (
        <> ({t.noBinds})</>
      ) : (
        <ul>
          {binds.map((b) => (
            <li key={b.slot} data-bind-owner={b.owner}>
              {b.owner}
              {b.mine ? ` (${t.thisProcess})` : ''}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function LaneBacklog(props: { lang: Lang; lanes: Lanes | null; at: number }) {
  const t = providerCarriersMessages[props.lang];
  if (props.lanes === null) return null;
  const rows = Object.entries(props.lanes).map(([lane, depth]) => ({ lane: lane as keyof Lanes, ...depth }));
  return (
    <>
      <h2 id="carriers-lanes">{t.lanesTitle}</h2>
      <Table<(typeof rows)[number]>
        rows={rows}
        rowKey={(r) => r.lane}
        empty="-"
        rowAttributes={(r) => ({ 'data-lane': r.lane })}
        columns={[
          { header: t.colLane, rowHeader: true, cell: (r) => t.lane(r.lane) },
          { header: t.colDue, cell: (r) => r.due },
          {
            header: t.colWaiting,
            cell: (r) =>
              r.oldestDueAt === null ? '-' : t.seconds(Math.max(0, Math.round((props.at - r.oldestDueAt) / 1000))),
          },
        ]}
      />
    </>
  );
}

/** The connections' table and the lanes' backlog: the part htmx fetches again every 3 s. */
function Connections(props: { lang: Lang; connections: readonly ConnectionView[]; lanes: Lanes | null; at: number }) {
  const { lang } = props;
  const t = providerCarriersMessages[lang];
  return (
    <LiveSection name="carriers" lang={lang} at={props.at} heading={t.refreshed}>
      <Table<ConnectionView>
        rows={props.connections}
        rowKey={(c) => c.name}
        empty={t.none}
        rowAttributes={(c) => ({ 'data-connection': c.name, 'data-state': c.bound ? 'bound' : 'unbound' })}
        columns={[
          { header: t.colConnection, rowHeader: true, cell: (c) => c.name },
          { header: t.colState, cell: (c) => (c.bound ? t.bound : t.unbound) },
          { header: t.colWindow, cell: (c) => t.window(c.inFlight, c.windowSize) },
          { header: t.colRate, cell: (c) => (c.submitRate === null ? '-' : c.submitRate.toFixed(1)) },
          { header: t.colSubmits, cell: (c) => c.submits },
          { header: t.colBinds, cell: (c) => <Binds lang={lang} c={c} /> },
          {
            header: t.colClusterRate,
            cell: (c) => (c.clusterRate === undefined ? '-' : c.clusterRate.toFixed(1)),
          },
          { header: t.colErrors, cell: (c) => <Errors lang={lang} c={c} /> },
        ]}
      />
      <LaneBacklog lang={lang} lanes={props.lanes} at={props.at} />
    </LiveSection>
  );
}

export const providerCarriersArea: ProviderArea = {
  name: 'provider-carriers',
  nav: [{ path: '/provider/carriers', label: (lang) => providerCarriersMessages[lang].nav, order: 50 }],
  routes(app, door) {
    app.get('/provider/carriers', async (request, reply) => {
      const live = liveOf(request, door);
      const lang = request.panel.lang;
      const t = providerCarriersMessages[lang];
      const [connections, lanes] = await Promise.all([live.carriers(), live.lanes()]);
      return sendPage(request, reply, {
        title: t.title,
        body: (
          <>
            <p>{t.intro}</p>
            <Connections lang={lang} connections={connections} lanes={lanes} at={door.of(request).now()} />
          </>
        ),
      });
    });
    app.get('/provider/carriers/live', async (request, reply) => {
      const live = liveOf(request, door);
      const [connections, lanes] = await Promise.all([live.carriers(), live.lanes()]);
      const html = render(
        <Connections lang={request.panel.lang} connections={connections} lanes={lanes} at={door.of(request).now()} />,
      );
      return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
    });
  },
};
