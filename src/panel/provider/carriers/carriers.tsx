/** The provider console's Carriers page: each SMPP connection's state, window, submit rate and recent errors, polled by htmx. */
import { render } from 'preact-render-to-string';
import type { ProviderArea } from '../door.js';
import { liveOf } from '../door.js';
import { sendPage } from '../../layout.js';
import type { Lang } from '../../catalogue.js';
import { Table } from '../../kit/table.js';
import { dateTime } from '../../kit/format.js';
import { providerCarriersMessages } from './catalogue.js';
import type { ConnectionView } from '../../../services/panel/provider/provider-live.js';

const livePath = '/panel/provider/carriers/live';

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

/** The table, with the htmx attributes that fetch it again every 3 s and put it in its own place. */
function Connections(props: { lang: Lang; connections: readonly ConnectionView[]; at: number }) {
  const { lang } = props;
  const t = providerCarriersMessages[lang];
  return (
    <section
      id="carriers-live"
      aria-labelledby="carriers-now"
      aria-live="polite"
      hx-get={livePath}
      hx-trigger="every 3s"
      hx-swap="outerHTML"
    >
      <h2 id="carriers-now">{t.refreshed(dateTime(props.at, lang, 'second'))}</h2>
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
          { header: t.colErrors, cell: (c) => <Errors lang={lang} c={c} /> },
        ]}
      />
    </section>
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
      const connections = await live.carriers();
      return sendPage(request, reply, {
        title: t.title,
        body: (
          <>
            <p>{t.intro}</p>
            <Connections lang={lang} connections={connections} at={door.of(request).now()} />
          </>
        ),
      });
    });
    app.get('/provider/carriers/live', async (request, reply) => {
      const live = liveOf(request, door);
      const html = render(
        <Connections lang={request.panel.lang} connections={await live.carriers()} at={door.of(request).now()} />,
      );
      return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
    });
  },
};
