/** The provider console's Traffic page: messages per minute over the last hours (uPlot), the backlog, the slowest webhook receivers and the keys whose webhooks fail. */
import type { ProviderArea } from '../door.js';
import { liveOf } from '../door.js';
import { sendPage } from '../../layout.js';
import type { Lang } from '../../catalogue.js';
import { Table } from '../../kit/table.js';
import { dateTime } from '../../kit/format.js';
import { queryOf } from '../../kit/forms.js';
import { PageScripts } from '../../kit/scripts.js';
import { providerTrafficMessages } from './catalogue.js';
import type { FailingKeyView, ReceiverView, TrafficView } from '../../../services/panel/provider/provider-live.js';

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
          <dd>
            {backlog.webhookOldestAt === null ? t.noneWaiting : dateTime(backlog.webhookOldestAt, props.lang, 'second')}
          </dd>
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
        <Table<ReceiverView>
          rows={slowestReceivers}
          rowKey={(r) => r.host}
          empty={t.noAttempts}
          columns={[
            { header: t.colHost, rowHeader: true, cell: (r) => r.host },
            { header: t.colAttempts, cell: (r) => r.attempts },
            { header: t.colP95, cell: (r) => r.p95Ms },
            { header: t.colLast, cell: (r) => r.lastMs },
            { header: t.colFailed, cell: (r) => r.failed },
          ]}
        />
      </section>
      <section aria-labelledby="failing-keys">
        <h2 id="failing-keys">{t.failingKeys}</h2>
        <Table<FailingKeyView>
          rows={failingKeys}
          rowKey={(k) => k.keyId}
          empty={t.noFailing}
          columns={[
            { header: t.colKey, rowHeader: true, cell: (k) => k.keyId },
            { header: t.colAccount, cell: (k) => k.accountId },
            { header: t.colAttempts, cell: (k) => k.attempts },
            { header: t.colFailed, cell: (k) => k.failed },
          ]}
        />
      </section>
    </>
  );
}

export const providerTrafficArea: ProviderArea = {
  name: 'provider-traffic',
  nav: [{ path: '/provider/traffic', label: (lang) => providerTrafficMessages[lang].nav, order: 60 }],
  routes(app, door) {
    app.get('/provider/traffic', async (request, reply) => {
      const live = liveOf(request, door);
      const lang = request.panel.lang;
      const t = providerTrafficMessages[lang];
      const asked = Number(queryOf(request.query).hours);
      const hours = (periods as readonly number[]).includes(asked) ? asked : 3;
      const traffic = await live.traffic(hours);
      return sendPage(request, reply, {
        title: t.title,
        body: (
          <>
            <PageScripts chart />
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
