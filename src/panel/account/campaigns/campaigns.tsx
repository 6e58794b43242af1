/** Campaigns: every bulk and panel send with its counters and progress, its outcome chart and CSV export. */
import type { AccountArea } from '../door.js';
import { sendPage } from '../../layout.js';
import type { Lang } from '../../catalogue.js';
import { kitText } from '../../kit/text.js';
import { Notice } from '../../kit/fields.js';
import { Table } from '../../kit/table.js';
import { Pager } from '../../kit/pager.js';
import { cursorOf, idOf, queryOf } from '../../kit/forms.js';
import { dateTime, stateLabel } from '../../kit/format.js';
import { sendCsv } from '../../kit/csv.js';
import { PageScripts } from '../../kit/scripts.js';
import { campaignMessages } from './catalogue.js';
import type { CampaignRow } from '../../../ports/panel-queries.js';
import { NotFound } from '../../../services/panel/not-found.js';

function outcome(c: CampaignRow): { delivered: number; failed: number; pending: number; done: number } {
  const { delivered, failed, messages } = c.counts;
  // Recipients not yet written out as messages are pending too.
  const pending = Math.max(0, c.totalNumbers - c.invalidNumbers - delivered - failed, messages - delivered - failed);
  return { delivered, failed, pending, done: delivered + failed };
}

function OutcomeChart(props: { lang: Lang; c: CampaignRow }) {
  const t = campaignMessages[props.lang];
  const d = kitText[props.lang];
  const o = outcome(props.c);
  const spec = {
    kind: 'outcome',
    x: [0, 1, 2],
    labels: [d.delivered, d.failed, d.pending],
    series: [{ label: t.recipients, values: [o.delivered, o.failed, o.pending] }],
  };
  return (
    <figure aria-labelledby="outcome-title">
      <figcaption id="outcome-title">{t.chartTitle}</figcaption>
      <div
        class="chart"
        role="img"
        aria-label={`${t.chartTitle}: ${d.delivered} ${o.delivered}, ${d.failed} ${o.failed}, ${d.pending} ${o.pending}`}
        data-chart={JSON.stringify(spec)}
      ></div>
    </figure>
  );
}

function CampaignList(props: { lang: Lang; rows: readonly CampaignRow[] }) {
  const t = campaignMessages[props.lang];
  return (
    <Table<CampaignRow>
      rows={props.rows}
      rowKey={(c) => c.id}
      empty={t.none}
      columns={[
        {
          header: t.colCampaign,
          rowHeader: true,
          cell: (c) => <a href={`/panel/campaigns/${c.id}`}>{t.campaignLink(c.id)}</a>,
        },
        { header: t.colSender, cell: (c) => c.sender },
        { header: t.colCreated, cell: (c) => dateTime(c.createdAt, props.lang, 'second') },
        { header: t.colRecipients, cell: (c) => c.totalNumbers },
        {
          header: t.colOutcome,
          cell: (c) => {
            const o = outcome(c);
            return `${o.delivered} / ${o.failed} / ${o.pending}`;
          },
        },
        {
          header: t.colProgress,
          cell: (c) => {
            const o = outcome(c);
            return (
              <progress
                max={Math.max(1, o.done + o.pending)}
                value={o.done}
                aria-label={t.progressText(o.done, o.done + o.pending)}
              ></progress>
            );
          },
        },
      ]}
    />
  );
}

export const campaignsArea: AccountArea = {
  name: 'campaigns',
  nav: [{ path: '/campaigns', label: (lang) => campaignMessages[lang].nav, order: 40 }],
  routes(app, door) {
    app.get('/campaigns', async (request, reply) => {
      const lang = request.panel.lang;
      const t = campaignMessages[lang];
      const page = await door.of(request).campaigns.list(cursorOf(queryOf(request.query).before, true) ?? null);
      return sendPage(request, reply, {
        title: t.title,
        body: (
          <>
            <CampaignList lang={lang} rows={page.rows} />
            <Pager
              lang={lang}
              label={t.title}
              next={page.next === null ? null : `/panel/campaigns?before=${page.next}`}
            />
          </>
        ),
      });
    });

    app.get<{ Params: { id: string } }>('/campaigns/:id', async (request, reply) => {
      const lang = request.panel.lang;
      const t = campaignMessages[lang];
      const d = kitText[lang];
      const id = idOf(request.params.id, true);
      const c = await door.of(request).campaigns.campaign(id);
      if (!c) throw new NotFound(`no campaign ${id}`);
      const o = outcome(c);
      return sendPage(request, reply, {
        title: t.campaignTitle(c.id),
        body: (
          <>
            <PageScripts chart />
            <Notice text={queryOf(request.query).sent === '1' ? t.sent : undefined} />
            <dl class="facts">
              <dt>{t.colSender}</dt>
              <dd>{c.sender}</dd>
              <dt>{t.text}</dt>
              <dd>{c.text === null ? t.perRecipient : <pre class="message-text">{c.text}</pre>}</dd>
              <dt>{t.colCreated}</dt>
              <dd>{dateTime(c.createdAt, lang, 'second')}</dd>
              {c.scheduledAt !== null && (
                <>
                  <dt>{t.scheduled}</dt>
                  <dd>{dateTime(c.scheduledAt, lang, 'second')}</dd>
                </>
              )}
              <dt>{t.recipients}</dt>
              <dd>{c.totalNumbers}</dd>
              <dt>{t.invalid}</dt>
              <dd>{c.invalidNumbers}</dd>
              <dt>{t.blocked}</dt>
              <dd>{c.blockedNumbers}</dd>
              <dt>{t.cost}</dt>
              <dd>{c.smsCost}</dd>
              <dt>{d.delivered}</dt>
              <dd>{o.delivered}</dd>
              <dt>{d.failed}</dt>
              <dd>{o.failed}</dd>
              <dt>{d.pending}</dt>
              <dd>{o.pending}</dd>
            </dl>
            <p>
              <label for="progress">{t.progress}</label>{' '}
              <progress id="progress" max={Math.max(1, o.done + o.pending)} value={o.done}></progress>{' '}
              {t.progressText(o.done, o.done + o.pending)}
            </p>
            <OutcomeChart lang={lang} c={c} />
            <p>
              <a href={`/panel/campaigns/${c.id}/export.csv`} download>
                {d.exportCsv}
              </a>{' '}
              · <a href={`/panel/messages?campaign=${c.id}`}>{t.messagesLink}</a>
            </p>
          </>
        ),
      });
    });

    app.get<{ Params: { id: string } }>('/campaigns/:id/export.csv', async (request, reply) => {
      const lang = request.panel.lang;
      const id = idOf(request.params.id, true);
      const pages = await door.of(request).campaigns.exportRows(id);
      if (!pages) throw new NotFound(`no campaign ${id}`);
      const columns = ['message_id', 'number', 'operator', 'status', 'sms', 'accepted', 'sent', 'done', 'report'];
      const iso = (v: number | null): string => (v === null ? '' : new Date(v).toISOString());
      return sendCsv(reply, `campaign-${id}.csv`, columns, pages, (r) => ({
        message_id: r.id,
        number: r.recipient,
        operator: r.operator,
        status: stateLabel(r.state, lang),
        sms: r.smsCount,
        accepted: iso(r.createdAt),
        sent: iso(r.submittedAt),
        done: iso(r.doneAt),
        report: r.detail ?? '',
      }));
    });
  },
};
