/** The provider console's Carriers page: each SMPP connection's state, window, submit rate and recent errors, polled by htmx. */
import { render } from 'preact-render-to-string';
import type { PanelArea } from '../context.js';
import { providerOnly } from '../context.js';
import { sendPage } from '../layout.js';
import type { Lang } from '../i18n/messages.js';
import { providerCarriersMessages } from '../i18n/provider-carriers.js';
import type { ConnectionView } from '../../services/provider-live.js';
import { dateTime, notFound } from './data-shared.js';

const livePath = '/panel/provider/carriers/live';

/** The table, with the htmx attributes that fetch it again every 3 s and put it in its own place. */
function Connections(props: { lang: Lang; connections: readonly ConnectionView[]; at: number }) {
  const t = providerCarriersMessages[props.lang];
  return (
    <section
      id="carriers-live"
      aria-labelledby="carriers-now"
      aria-live="polite"
      hx-get={livePath}
      hx-trigger="every 3s"
      hx-swap="outerHTML"
    >
      <h2 id="carriers-now">{t.refreshed(dateTime(props.at, props.lang))}</h2>
      {props.connections.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t.colConnection}</th>
                <th scope="col">{t.colState}</th>
                <th scope="col">{t.colWindow}</th>
                <th scope="col">{t.colRate}</th>
                <th scope="col">{t.colSubmits}</th>
                <th scope="col">{t.colErrors}</th>
              </tr>
            </thead>
            <tbody>
              {props.connections.map((c) => (
                <tr key={c.name} data-connection={c.name} data-state={c.bound ? 'bound' : 'unbound'}>
                  <th scope="row">{c.name}</th>
                  <td>{c.bound ? t.bound : t.unbound}</td>
                  <td>{t.window(c.inFlight, c.windowSize)}</td>
                  <td>{c.submitRate === null ? '-' : c.submitRate.toFixed(1)}</td>
                  <td>{c.submits}</td>
                  <td>
                    {c.recentErrors.length === 0 ? (
                      t.noErrors
                    ) : (
                      <ul>
                        {[...c.recentErrors].reverse().map((e, i) => (
                          <li key={`${e.at}-${i}`}>
                            {dateTime(e.at, props.lang)}: {e.what}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export const providerCarriersArea: PanelArea = {
  name: 'provider-carriers',
  nav: [
    { path: '/provider/carriers', label: (lang) => providerCarriersMessages[lang].nav, order: 50, for: 'provider' },
  ],
  routes(app, deps) {
    app.get('/provider/carriers', providerOnly, async (request, reply) => {
      const live = deps.live ?? notFound();
      const lang = request.panel.lang;
      const t = providerCarriersMessages[lang];
      const connections = await live.carriers();
      return sendPage(request, reply, {
        title: t.title,
        body: (
          <>
            <p>{t.intro}</p>
            <Connections lang={lang} connections={connections} at={deps.clock.now()} />
          </>
        ),
      });
    });
    app.get('/provider/carriers/live', providerOnly, async (request, reply) => {
      const live = deps.live ?? notFound();
      const html = render(
        <Connections lang={request.panel.lang} connections={await live.carriers()} at={deps.clock.now()} />,
      );
      return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
    });
  },
};
