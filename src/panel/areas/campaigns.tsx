/** Campaigns: every bulk and panel send with its counters and progress, its outcome chart and CSV export. */
import type { PanelArea } from '../context.js';
import { accountIdOf } from '../context.js';
import { Notice, sendPage } from '../layout.js';
import type { Lang } from '../i18n/messages.js';
import { campaignMessages } from '../i18n/campaigns.js';
import { dataCommon } from '../i18n/data-common.js';
import type { CampaignRow } from '../../ports/panel-queries.js';
import { dataOf, dateTime, idParam, notFound, sendCsv, stateLabel } from './data-shared.js';
import { DataScripts } from './data-components.js';

function outcome(c: CampaignRow): { delivered: number; failed: number; pending: number; done: number } {
  const { delivered, failed, messages } = c.counts;
  // Recipients not yet written out as messages are pending too.
  const pending = Math.max(0, c.totalNumbers - c.invalidNumbers - delivered - failed, messages - delivered - failed);
  return { delivered, failed, pending, done: delivered + failed };
}

function OutcomeChart(props: { lang: Lang; c: CampaignRow }) {
  const t = campaignMessages[props.lang];
  const d = dataCommon[props.lang];
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

export const campaignsArea: PanelArea = {
  name: 'campaigns',
  nav: [{ path: '/campaigns', label: (lang) => campaignMessages[lang].nav, order: 40, for: 'account' }],
  routes(app, deps) {
    app.get<{ Querystring: { before?: string } }>('/campaigns', async (request, reply) => {
      const lang = request.panel.lang;
      const t = campaignMessages[lang];
      const d = dataCommon[lang];
      const before = typeof request.query.before === 'string' ? idParam(request.query.before) : null;
      const page = await dataOf(deps).campaigns.list(accountIdOf(request.panel), before);
      return sendPage(request, reply, {
        title: t.title,
        body: (
          <>
            {page.rows.length === 0 ? (
              <p>{t.none}</p>
            ) : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t.colCampaign}</th>
                      <th scope="col">{t.colSender}</th>
                      <th scope="col">{t.colCreated}</th>
                      <th scope="col">{t.colRecipients}</th>
                      <th scope="col">{t.colOutcome}</th>
                      <th scope="col">{t.colProgress}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.rows.map((c) => {
                      const o = outcome(c);
                      return (
                        <tr key={c.id}>
                          <th scope="row">
                            <a href={`/panel/campaigns/${c.id}`}>{t.campaignLink(c.id)}</a>
                          </th>
                          <td>{c.sender}</td>
                          <td>{dateTime(c.createdAt, lang)}</td>
                          <td>{c.totalNumbers}</td>
                          <td>
                            {o.delivered} / {o.failed} / {o.pending}
                          </td>
                          <td>
                            <progress
                              max={Math.max(1, o.done + o.pending)}
                              value={o.done}
                              aria-label={t.progressText(o.done, o.done + o.pending)}
                            ></progress>
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
            {page.next !== null && (
              <nav aria-label={t.title} class="pager">
                <a href={`/panel/campaigns?before=${page.next}`} rel="next">
                  {d.nextPage}
                </a>
              </nav>
            )}
          </>
        ),
      });
    });

    app.get<{ Params: { id: string }; Querystring: { sent?: string } }>('/campaigns/:id', async (request, reply) => {
      const lang = request.panel.lang;
      const t = campaignMessages[lang];
      const d = dataCommon[lang];
      const id = idParam(request.params.id);
      const c = id === null ? null : await dataOf(deps).campaigns.campaign(accountIdOf(request.panel), id);
      if (!c) return notFound();
      const o = outcome(c);
      return sendPage(request, reply, {
        title: t.campaignTitle(c.id),
        body: (
          <>
            <DataScripts chart />
            <Notice text={request.query.sent === '1' ? t.sent : undefined} />
            <dl class="facts">
              <dt>{t.colSender}</dt>
              <dd>{c.sender}</dd>
              <dt>{t.text}</dt>
              <dd>{c.text === null ? t.perRecipient : <pre class="message-text">{c.text}</pre>}</dd>
              <dt>{t.colCreated}</dt>
              <dd>{dateTime(c.createdAt, lang)}</dd>
              {c.scheduledAt !== null && (
                <>
                  <dt>{t.scheduled}</dt>
                  <dd>{dateTime(c.scheduledAt, lang)}</dd>
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
      const id = idParam(request.params.id);
      const pages = id === null ? null : await dataOf(deps).campaigns.exportRows(accountIdOf(request.panel), id);
      if (!pages) return notFound();
      const columns = ['message_id', 'number', 'operator', 'status', 'sms', 'accepted', 'sent', 'done', 'report'].map(
        (key) => ({ key, header: key }),
      );
      const iso = (v: number | null): string => (v === null ? '' : new Date(v).toISOString());
      return sendCsv(reply, `campaign-${id ?? 0}.csv`, columns, pages, (r) => ({
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
