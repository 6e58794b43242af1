/** Campaigns: every bulk and panel send with its counters and progress, its outcome chart and CSV export. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
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
import { ConfirmForm, RowAction } from '../../kit/post-form.js';
import type { PanelState } from '../../context.js';
import { campaignMessages } from './catalogue.js';
import { ClicksSection } from './clicks.js';
import type { CampaignRow } from '../../../ports/panel-queries.js';
import { NotFound } from '../../kit/not-found.js';

function outcome(c: CampaignRow, cancelled = 0): { delivered: number; failed: number; pending: number; done: number } {
  const { delivered, failed, messages } = c.counts;
  // Recipients not yet written out as messages are pending too; cancelled ones are not.
  const pending = Math.max(
    0,
    Math.max(c.totalNumbers - c.invalidNumbers - delivered - failed, messages - delivered - failed) - cancelled,
  );
  return { delivered, failed, pending, done: delivered + failed + cancelled };
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

/** What the last control did, from the redirect's query. */
function ControlNotice(props: { lang: Lang; query: Record<string, string | undefined> }) {
  const t = campaignMessages[props.lang];
  const q = props.query;
  if (q.cancelled !== undefined)
    return <Notice text={t.cancelledNotice(Number(q.cancelled) || 0, Number(q.refunded) || 0)} />;
  if (q.control === 'paused') return <Notice text={t.paused} />;
  if (q.control === 'resumed') return <Notice text={t.resumed} />;
  if (q.control === 'refused') return <Notice text={t.refused} kind="error" />;
  return null;
}

/** Pause or Resume, and Cancel (asked first, with the credit that comes back), while the campaign can still change. */
function ControlButtons(props: { lang: Lang; c: CampaignRow; state: PanelState }) {
  const t = campaignMessages[props.lang];
  const { c, state } = props;
  // The controls of /group/*: a campaign's sends (a single /sms/send is cancelled over the API).
  if (c.control === 'cancelled' || (c.kind !== 'group' && c.kind !== 'mixed')) return null;
  const base = `/panel/campaigns/${c.id}`;
  return (
    <div class="actions">
      {c.control === 'paused' ? (
        <RowAction action={`${base}/resume`} state={state} label={t.resume} buttonClass="primary" />
      ) : (
        <RowAction action={`${base}/pause`} state={state} label={t.pause} buttonClass="secondary" />
      )}
      <RowAction action={`${base}/cancel`} state={state} label={t.cancel} confirm={`${base}/cancel`} />
    </div>
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

async function listPage(request: FastifyRequest, reply: FastifyReply, door: AccountDoor): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = campaignMessages[lang];
  const page = await door.of(request).campaigns.list(cursorOf(queryOf(request.query).before, true) ?? null);
  return sendPage(request, reply, {
    title: t.title,
    body: (
      <>
        <CampaignList lang={lang} rows={page.rows} />
        <Pager lang={lang} label={t.title} next={page.next === null ? null : `/panel/campaigns?before=${page.next}`} />
      </>
    ),
  });
}

export const campaignsArea: AccountArea = pageArea({
  name: 'campaigns',
  path: '/campaigns',
  messages: campaignMessages,
  order: 40,
  page: listPage,
  routes(app, door) {
    app.get<{ Params: { id: string } }>('/campaigns/:id', async (request, reply) => {
      const lang = request.panel.lang;
      const t = campaignMessages[lang];
      const d = kitText[lang];
      const id = idOf(request.params.id, true);
      const campaigns = door.of(request).campaigns;
      const c = await campaigns.campaign(id);
      if (!c) throw new NotFound(`no campaign ${id}`);
      const [cancelled, clicks] = await Promise.all([campaigns.cancelledOf(c), campaigns.clicksOf(c)]);
      const o = outcome(c, cancelled);
      return sendPage(request, reply, {
        title: t.campaignTitle(c.id),
        body: (
          <>
            <PageScripts chart />
            <Notice text={queryOf(request.query).sent === '1' ? t.sent : undefined} />
            <ControlNotice lang={lang} query={queryOf(request.query)} />
            <dl class="facts">
              <dt>{t.state}</dt>
              <dd id="campaign-state">{t.stateLabel(c.control)}</dd>
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
              {c.control === 'cancelled' && (
                <>
                  <dt>{t.cancelled}</dt>
                  <dd>{cancelled}</dd>
                </>
              )}
            </dl>
            <ControlButtons lang={lang} c={c} state={request.panel} />
            <p>
              <label for="progress">{t.progress}</label>{' '}
              <progress id="progress" max={Math.max(1, o.done + o.pending)} value={o.done}></progress>{' '}
              {t.progressText(o.done, o.done + o.pending)}
            </p>
            <OutcomeChart lang={lang} c={c} />
            <ClicksSection lang={lang} clicks={clicks} />
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

    app.get<{ Params: { id: string } }>('/campaigns/:id/cancel', async (request, reply) => {
      const lang = request.panel.lang;
      const t = campaignMessages[lang];
      const id = idOf(request.params.id, true);
      const preview = await door.of(request).campaigns.previewCancel(id);
      if (!preview) throw new NotFound(`no campaign ${id}`);
      const back = `/panel/campaigns/${id}`;
      return sendPage(request, reply, {
        title: t.cancelTitle(id),
        body:
          preview.waiting === 0 ? (
            <p>
              {t.nothingToCancel} <a href={back}>{t.campaignLink(id)}</a>
            </p>
          ) : (
            <ConfirmForm
              action={`${back}/cancel`}
              state={request.panel}
              warning={t.cancelWarning(preview.waiting, preview.credit)}
              confirm={t.cancelConfirm}
              back={back}
            />
          ),
      });
    });

    for (const action of ['pause', 'resume', 'cancel'] as const)
      app.post<{ Params: { id: string } }>(`/campaigns/:id/${action}`, async (request, reply) => {
        const id = idOf(request.params.id, true);
        const answer = await door.of(request).campaigns.control(action, id);
        if (!answer) throw new NotFound(`no campaign ${id}`);
        const done = !answer.ok
          ? 'control=refused'
          : 'cancelled' in answer.value
            ? `cancelled=${answer.value.cancelled}&refunded=${answer.value.refunded}`
            : `control=${action === 'pause' ? 'paused' : 'resumed'}`;
        return reply.redirect(`/panel/campaigns/${id}?${done}`, 303);
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
});
