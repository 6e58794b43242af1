/** Overview: balances, today's and this month's counts, 30 days of sends, the latest messages. */
import type { PanelArea } from '../context.js';
import { accountIdOf } from '../context.js';
import { sendPage } from '../layout.js';
import type { Lang } from '../i18n/messages.js';
import { overviewMessages } from '../i18n/overview.js';
import { dataCommon } from '../i18n/data-common.js';
import type { Tally } from '../../services/panel/panel-overview.js';
import type { CampaignRow } from '../../ports/panel-queries.js';
import type { DailySeries } from '../../services/panel/panel-overview.js';
import { dataOf, dateTime, notFound } from './data-shared.js';
import { DataScripts } from './data-components.js';
import { LogTable } from './messages.js';

function TallyList(props: { lang: Lang; title: string; tally: Tally; id: string }) {
  const t = overviewMessages[props.lang];
  const c = dataCommon[props.lang];
  const { tally } = props;
  return (
    <section aria-labelledby={props.id} class="card">
      <h2 id={props.id}>{props.title}</h2>
      <dl class="facts">
        <dt>{t.messages}</dt>
        <dd>{tally.messages}</dd>
        <dt>{t.sms}</dt>
        <dd>{tally.sms}</dd>
        <dt>{c.delivered}</dt>
        <dd>{tally.delivered}</dd>
        <dt>{c.failed}</dt>
        <dd>{tally.failed}</dd>
        <dt>{c.pending}</dt>
        <dd>{tally.pending}</dd>
      </dl>
    </section>
  );
}

/** The chart's data rides in an attribute (preact escapes it); the table is its text alternative. */
export function DailyChart(props: { lang: Lang; series: DailySeries }) {
  const t = overviewMessages[props.lang];
  const c = dataCommon[props.lang];
  const { series } = props;
  const spec = {
    kind: 'daily',
    x: series.x,
    series: [
      { label: t.chartMessages, values: series.messages },
      { label: t.chartRate, values: series.deliveryRate, scale: '%' },
    ],
  };
  return (
    <figure aria-labelledby="chart-title">
      <figcaption id="chart-title">{t.chartTitle}</figcaption>
      <div class="chart" role="img" aria-label={t.chartTitle} data-chart={JSON.stringify(spec)}></div>
      <details>
        <summary>{c.showTable}</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{c.date}</th>
                <th scope="col">{t.chartMessages}</th>
                <th scope="col">{t.chartRate}</th>
              </tr>
            </thead>
            <tbody>
              {series.dates.map((d, i) => (
                <tr key={d}>
                  <th scope="row">{d}</th>
                  <td>{series.messages[i]}</td>
                  <td>{series.deliveryRate[i] ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

function SendsTable(props: { lang: Lang; sends: readonly CampaignRow[] }) {
  const t = overviewMessages[props.lang];
  const c = dataCommon[props.lang];
  const kind = { sms: t.kindSms, otp: t.kindOtp, group: t.kindGroup, mixed: t.kindMixed } as const;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t.colSend}</th>
            <th scope="col">{t.colKind}</th>
            <th scope="col">{t.colRecipients}</th>
            <th scope="col">{c.delivered}</th>
            <th scope="col">{c.failed}</th>
            <th scope="col">{t.colCreated}</th>
          </tr>
        </thead>
        <tbody>
          {props.sends.map((s) => (
            <tr key={s.id}>
              <th scope="row">
                <a href={`/panel/campaigns/${s.id}`}>{t.sendLink(s.id)}</a>
              </th>
              <td>{kind[s.kind]}</td>
              <td>{s.totalNumbers}</td>
              <td>{s.counts.delivered}</td>
              <td>{s.counts.failed}</td>
              <td>{dateTime(s.createdAt, props.lang)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export const overviewArea: PanelArea = {
  name: 'overview',
  nav: [{ path: '/overview', label: (lang) => overviewMessages[lang].nav, order: 10, for: 'account' }],
  routes(app, deps) {
    app.get('/overview', async (request, reply) => {
      const lang = request.panel.lang;
      const t = overviewMessages[lang];
      const data = await dataOf(deps).overview.overview(accountIdOf(request.panel));
      if (!data) return notFound();
      return sendPage(request, reply, {
        title: t.title,
        body: (
          <>
            <DataScripts chart />
            <section aria-labelledby="balances" class="card">
              <h2 id="balances">{t.balances}</h2>
              <dl class="facts">
                <dt>{t.balanceMain}</dt>
                <dd>{data.balanceMain}</dd>
                <dt>{t.balanceInternational}</dt>
                <dd>{data.balanceInternational}</dd>
              </dl>
            </section>
            <div class="cards">
              <TallyList lang={lang} title={t.today} tally={data.today} id="today" />
              <TallyList lang={lang} title={t.month} tally={data.month} id="month" />
            </div>
            <DailyChart lang={lang} series={data.chart} />
            <section aria-labelledby="latest-sends">
              <h2 id="latest-sends">{t.latestSends}</h2>
              {data.latestSends.length === 0 ? (
                <p>{t.noMessages}</p>
              ) : (
                <SendsTable lang={lang} sends={data.latestSends} />
              )}
            </section>
            <section aria-labelledby="latest">
              <h2 id="latest">{t.latest}</h2>
              {data.latest.length === 0 ? <p>{t.noMessages}</p> : <LogTable lang={lang} rows={data.latest} />}
              <p>
                <a href="/panel/messages">{t.allMessages}</a>
              </p>
            </section>
          </>
        ),
      });
    });
    app.get('/overview/chart.json', async (request) => dataOf(deps).overview.chart(accountIdOf(request.panel)));
  },
};
