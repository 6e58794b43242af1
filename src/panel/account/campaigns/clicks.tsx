/** A campaign's clicks of its short links: the totals and a chart over time (the panel's uPlot chart, with a table as its text). */
import type { Lang } from '../../catalogue.js';
import { kitText } from '../../kit/text.js';
import { Table } from '../../kit/table.js';
import { dateTime } from '../../kit/format.js';
import { campaignMessages } from './catalogue.js';
import type { CampaignClicks } from '../../../services/panel/account/campaigns.js';

export function ClicksSection(props: { lang: Lang; clicks: CampaignClicks | null }) {
  const { lang, clicks } = props;
  if (clicks === null) return null;
  const t = campaignMessages[lang];
  const spec = {
    kind: 'clicks',
    // uPlot's time axis counts seconds.
    x: clicks.series.map((p) => Math.floor(p.at / 1000)),
    series: [{ label: t.clicks, values: clicks.series.map((p) => p.clicks) }],
  };
  return (
    <section aria-labelledby="clicks-title">
      <h2 id="clicks-title">{t.clicksTitle}</h2>
      <dl class="facts">
        <dt>{t.clicks}</dt>
        <dd id="campaign-clicks">{clicks.clicks}</dd>
        <dt>{t.clickers}</dt>
        <dd id="campaign-clickers">{clicks.clickers}</dd>
      </dl>
      {clicks.series.length === 0 ? (
        <p>{t.clicksNone}</p>
      ) : (
        <figure aria-labelledby="clicks-chart-title">
          <figcaption id="clicks-chart-title">{t.clicksChart}</figcaption>
          <div class="chart" role="img" aria-label={t.clicksChart} data-chart={JSON.stringify(spec)}></div>
          <details>
            <summary>{kitText[lang].showTable}</summary>
            <Table<{ at: number; clicks: number }>
              rows={clicks.series}
              rowKey={(p) => p.at}
              columns={[
                { header: t.colTime, rowHeader: true, cell: (p) => dateTime(p.at, lang) },
                { header: t.clicks, cell: (p) => p.clicks },
              ]}
            />
          </details>
        </figure>
      )}
    </section>
  );
}
