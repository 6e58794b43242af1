/**
 * The provider console's queue of sender IDs customers requested: approve, or reject with a
 * reason the customer sees. Decisions go through SenderIdReview, the service of `haberci
 * admin sender-id approve|reject`, with the audit row in the same transaction.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelState } from '../../context.js';
import type { ProviderArea, ProviderDoor } from '../door.js';
import { sendPage } from '../../layout.js';
import { Notice } from '../../kit/fields.js';
import { Table } from '../../kit/table.js';
import { SenderIdDecision } from '../../kit/sender-id-decision.js';
import type { RefusedRejection } from '../../kit/sender-id-decision.js';
import { Pager } from '../../kit/pager.js';
import { cursorOf, field, idOf, queryOf } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { providerSenderIdMessages } from './catalogue.js';
import type { PendingSenderId } from '../../../ports/console-queries.js';
import type { AdminResult } from '../../../services/admin-result.js';
import { orRefused } from '../../kit/not-found.js';

type IdParams = { Params: { id: string } };

type Refused = RefusedRejection;

function Decision(props: { state: PanelState; s: PendingSenderId; refused: Refused | undefined }) {
  return (
    <SenderIdDecision
      state={props.state}
      base="/panel/provider/sender-ids"
      request={props.s}
      texts={providerSenderIdMessages[props.state.lang]}
      refused={props.refused}
    />
  );
}

async function queuePage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: ProviderDoor,
  refused?: Refused,
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = providerSenderIdMessages[lang];
  const query = queryOf(request.query);
  const page = await door.of(request).console.pendingSenderIds(cursorOf(query.after));
  const title = (query.title ?? '').slice(0, 22);
  const notices: Record<string, string> = {
    approved: t.doneApproved(title),
    rejected: t.doneRejected(title),
    already: t.alreadyReviewed,
  };
  return sendPage(request, reply, {
    title: t.title,
    status: refused ? 400 : 200,
    body: (
      <>
        <Notice text={query.done === undefined ? undefined : notices[query.done]} />
        <p>{t.intro}</p>
        <Table<PendingSenderId>
          rows={page.items}
          rowKey={(s) => s.id}
          empty={t.none}
          columns={[
            { header: t.colTitle, rowHeader: true, cell: (s) => s.title },
            {
              header: t.colAccount,
              cell: (s) => <a href={`/panel/provider/accounts/${s.accountId}`}>{s.accountName}</a>,
            },
            { header: t.colRequested, cell: (s) => dateTime(s.createdAt, lang) },
            { header: t.colDecision, cell: (s) => <Decision state={state} s={s} refused={refused} /> },
          ]}
        />
        <Pager
          lang={lang}
          label={t.title}
          next={page.next === null ? null : `/panel/provider/sender-ids?after=${page.next}`}
        />
      </>
    ),
  });
}

/** A request decided meanwhile (another member of staff, a page left open): the queue says so. */
const alreadyDecided = '/panel/provider/sender-ids?done=already';

/** The queue with the decision's notice, or with "already decided". */
async function decided(
  reply: FastifyReply,
  verb: 'approved' | 'rejected',
  decide: () => Promise<AdminResult<{ title: string }>>,
): Promise<FastifyReply> {
  const done = await orRefused(decide());
  if (done.ok)
    return reply.redirect(`/panel/provider/sender-ids?done=${verb}&title=${encodeURIComponent(done.value.title)}`, 303);
  if (done.code === 'ADM-DECIDED') return reply.redirect(alreadyDecided, 303);
  throw new Error(done.message);
}

export const providerSenderIdsArea: ProviderArea = {
  name: 'provider-sender-ids',
  nav: [{ path: '/provider/sender-ids', label: (lang) => providerSenderIdMessages[lang].nav, order: 20 }],
  routes(app, door) {
    app.get('/provider/sender-ids', async (request, reply) => queuePage(request, reply, door));

    app.post<IdParams>('/provider/sender-ids/:id/approve', async (request, reply) => {
      const id = idOf(request.params.id);
      return decided(reply, 'approved', () => door.of(request).console.approveSenderId(id));
    });

    app.post<IdParams>('/provider/sender-ids/:id/reject', async (request, reply) => {
      const id = idOf(request.params.id);
      const reason = field(request.body, 'reason').trim().slice(0, 500);
      if (reason === '') {
        const error = providerSenderIdMessages[request.panel.lang].errReason;
        return queuePage(request, reply, door, { id, reason, error });
      }
      return decided(reply, 'rejected', () => door.of(request).console.rejectSenderId(id, reason));
    });
  },
};
