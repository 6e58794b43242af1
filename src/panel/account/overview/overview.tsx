/** Overview: balances, today's and this month's counts, 30 days of sends, the latest messages. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import type { Lang } from '../../catalogue.js';
import { kitText } from '../../kit/text.js';
import { Table } from '../../kit/table.js';
import { dateTime } from '../../kit/format.js';
import { PageScripts } from '../../kit/scripts.js';
import { overviewMessages } from './catalogue.js';
import { LogTable } from '../messages/log-table.js';
import type { DailySeries, Tally } from '../../../services/panel/account/overview.js';
import type { CampaignRow } from '../../../ports/panel-queries.js';
import { NotFound } from '../../kit/not-found.js';

function TallyList(props: { lang: Lang; title: string; tally: Tally; id: string }) {
  const t = overviewMessages[props.lang];
  const c = kitText[props.lang];
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
  const c = kitText[props.lang];
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
        <Table<number>
          rows={series.dates.map((_, i) => i)}
          rowKey={(i) => series.dates[i] ?? i}
          columns={[
            { header: c.date, rowHeader: true, cell: (i) => series.dates[i] },
            { header: t.chartMessages, cell: (i) => series.messages[i] },
            { header: t.chartRate, cell: (i) => series.deliveryRate[i] ?? '' },
          ]}
        />
      </details>
    </figure>
  );
}

function SendsTable(props: { lang: Lang; sends: readonly CampaignRow[] }) {
  const t = overviewMessages[props.lang];
  const c = kitText[props.lang];
  const kind = { sms: t.kindSms, otp: t.kindOtp, group: t.kindGroup, mixed: t.kindMixed } as const;
  return (
    <Table<CampaignRow>
      rows={props.sends}
      rowKey={(s) => s.id}
      columns={[
        {
          header: t.colSend,
          rowHeader: true,
          cell: (s) => <a href={`/panel/campaigns/${s.id}`}>{t.sendLink(s.id)}</a>,
        },
        { header: t.colKind, cell: (s) => kind[s.kind] },
        { header: t.colRecipients, cell: (s) => s.totalNumbers },
        { header: c.delivered, cell: (s) => s.counts.delivered },
        { header: c.failed, cell: (s) => s.counts.failed },
        { header: t.colCreated, cell: (s) => dateTime(s.createdAt, props.lang, 'second') },
      ]}
    />
  );
}

async function overviewPage(request: FastifyRequest, reply: FastifyReply, door: AccountDoor): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = overviewMessages[lang];
  const data = await door.of(request).overview.overview();
  if (!data) throw new NotFound('no account');
  return sendPage(request, reply, {
    title: t.title,
    body: (
      <>
        <PageScripts chart />
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
          {data.latestSends.length === 0 ? <p>{t.noMessages}</p> : <SendsTable lang={lang} sends={data.latestSends} />}
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
}

export const overviewArea: AccountArea = pageArea({
  name: 'overview',
  path: '/overview',
  messages: overviewMessages,
  order: 10,
  page: overviewPage,
  routes(app, door) {
    app.get('/overview/chart.json', async (request) => door.of(request).overview.chart());
  },
});
