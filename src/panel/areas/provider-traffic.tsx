/** The provider console's Traffic page: messages per minute over the last hours (uPlot), the backlog, the slowest webhook receivers and the keys whose webhooks fail. */
import type { PanelArea } from '../context.js';
import { providerOnly } from '../context.js';
import { sendPage } from '../layout.js';
import type { Lang } from '../i18n/messages.js';
import { providerTrafficMessages } from '../i18n/provider-traffic.js';
import type { TrafficView } from '../../services/provider-live.js';
import { DataScripts } from './data-components.js';
import { dateTime, notFound } from './data-shared.js';

const periods = [1, 3, 6, 24] as const;

function TrafficChart(props: { lang: Lang; traffic: TrafficView }) {
  const t = providerTrafficMessages[props.lang];
  const m = props.traffic.minutes;
  const spec = {
    kind: 'minutes',
    x: m.at,
    series: [
      { label: t.accepted, values: m.accepted },
      { label: t.submitted, values: m.submitted },
      { label: t.delivered, values: m.delivered },
      { label: t.failed, values: m.failed },
    ],
  };
  return (
    <figure aria-labelledby="traffic-chart-title">
      <figcaption id="traffic-chart-title">{t.chartTitle}</figcaption>
      <div class="chart" role="img" aria-label={t.chartTitle} data-chart={JSON.stringify(spec)}></div>
    </figure>
  );
}

function Totals(props: { lang: Lang; traffic: TrafficView }) {
  const t = providerTrafficMessages[props.lang];
  const { totals, backlog } = props.traffic;
  return (
    <div class="cards">
      <section aria-labelledby="traffic-totals" class="card">
        <h2 id="traffic-totals">{t.totals}</h2>
        <dl class="facts">
          <dt>{t.accepted}</dt>
          <dd data-total="accepted">{totals.accepted}</dd>
          <dt>{t.submitted}</dt>
          <dd data-total="submitted">{totals.submitted}</dd>
          <dt>{t.delivered}</dt>
          <dd data-total="delivered">{totals.delivered}</dd>
          <dt>{t.failed}</dt>
          <dd data-total="failed">{totals.failed + totals.expired}</dd>
        </dl>
      </section>
      <section aria-labelledby="traffic-backlog" class="card">
        <h2 id="traffic-backlog">{t.backlog}</h2>
        <dl class="facts">
          <dt>{t.dispatchDue}</dt>
          <dd>{backlog.dispatchDue}</dd>
          <dt>{t.scheduled}</dt>
          <dd>{backlog.scheduled}</dd>
          <dt>{t.webhookPending}</dt>
          <dd>{backlog.webhookPending}</dd>
          <dt>{t.oldestPending}</dt>
          <dd>{backlog.webhookOldestAt === null ? t.noneWaiting : dateTime(backlog.webhookOldestAt, props.lang)}</dd>
        </dl>
      </section>
    </div>
  );
}

function Webhooks(props: { lang: Lang; traffic: TrafficView }) {
  const t = providerTrafficMessages[props.lang];
  const { slowestReceivers, failingKeys } = props.traffic;
  return (
    <>
      <section aria-labelledby="slowest-receivers">
        <h2 id="slowest-receivers">{t.slowest}</h2>
        {slowestReceivers.length === 0 ? (
          <p>{t.noAttempts}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.colHost}</th>
                  <th scope="col">{t.colAttempts}</th>
                  <th scope="col">{t.colP95}</th>
                  <th scope="col">{t.colLast}</th>
                  <th scope="col">{t.colFailed}</th>
                </tr>
              </thead>
              <tbody>
                {slowestReceivers.map((r) => (
                  <tr key={r.host}>
                    <th scope="row">{r.host}</th>
                    <td>{r.attempts}</td>
                    <td>{r.p95Ms}</td>
                    <td>{r.lastMs}</td>
                    <td>{r.failed}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="failing-keys">
        <h2 id="failing-keys">{t.failingKeys}</h2>
        {failingKeys.length === 0 ? (
          <p>{t.noFailing}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.colKey}</th>
                  <th scope="col">{t.colAccount}</th>
                  <th scope="col">{t.colAttempts}</th>
                  <th scope="col">{t.colFailed}</th>
                </tr>
              </thead>
              <tbody>
                {failingKeys.map((k) => (
                  <tr key={k.keyId}>
                    <th scope="row">{k.keyId}</th>
                    <td>{k.accountId}</td>
                    <td>{k.attempts}</td>
                    <td>{k.failed}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

export const providerTrafficArea: PanelArea = {
  name: 'provider-traffic',
  nav: [{ path: '/provider/traffic', label: (lang) => providerTrafficMessages[lang].nav, order: 60, for: 'provider' }],
  routes(app, deps) {
    app.get<{ Querystring: { hours?: string } }>('/provider/traffic', providerOnly, async (request, reply) => {
      const live = deps.live ?? notFound();
      const lang = request.panel.lang;
      const t = providerTrafficMessages[lang];
      const asked = Number(request.query.hours);
      const hours = (periods as readonly number[]).includes(asked) ? asked : 3;
      const traffic = await live.traffic(hours);
      return sendPage(request, reply, {
        title: t.title,
        body: (
          <>
            <DataScripts chart />
            <form method="get" action="/panel/provider/traffic" class="inline">
              <label for="traffic-hours">{t.hours}</label>
              <select id="traffic-hours" name="hours">
                {periods.map((p) => (
                  <option key={p} value={String(p)} selected={p === hours}>
                    {t.lastHours(p)}
                  </option>
                ))}
              </select>
              <button type="submit">{t.show}</button>
            </form>
            <TrafficChart lang={lang} traffic={traffic} />
            <p class="help">{t.flushNote}</p>
            <Totals lang={lang} traffic={traffic} />
            <Webhooks lang={lang} traffic={traffic} />
          </>
        ),
      });
    });
  },
};
