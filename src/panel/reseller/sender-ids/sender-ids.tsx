/**
 * The sender IDs the reseller's customers requested, waiting for the reseller: approve
 * (the request goes on to the provider's queue) or reject with a reason the customer
 * sees. Decisions are the desk's, with the audit row in the same transaction; a request of
 * another account, or one no longer waiting, is not found.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelState } from '../../context.js';
import type { ResellerArea, ResellerDoor } from '../door.js';
import { sendPage } from '../../layout.js';
import { Notice } from '../../kit/fields.js';
import { Table } from '../../kit/table.js';
import { SenderIdDecision } from '../../kit/sender-id-decision.js';
import type { RefusedRejection } from '../../kit/sender-id-decision.js';
import { Pager } from '../../kit/pager.js';
import { cursorOf, field, idOf, queryOf } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { resellerSenderIdMessages } from './catalogue.js';
import type { PendingSenderId } from '../../../ports/console-queries.js';
import { found } from '../../kit/not-found.js';

type IdParams = { Params: { id: string } };

type Refused = RefusedRejection;

function Decision(props: { state: PanelState; s: PendingSenderId; refused: Refused | undefined }) {
  return (
    <SenderIdDecision
      state={props.state}
      base="/panel/reseller/sender-ids"
      request={props.s}
      texts={resellerSenderIdMessages[props.state.lang]}
      refused={props.refused}
    />
  );
}

async function queuePage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: ResellerDoor,
  refused?: Refused,
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = resellerSenderIdMessages[lang];
  const query = queryOf(request.query);
  const page = await door.of(request).awaitingSenderIds(cursorOf(query.after));
  const notices: Record<string, string> = { approved: t.doneApproved, rejected: t.doneRejected };
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
              header: t.colCustomer,
              cell: (s) => <a href={`/panel/reseller/customers/${s.accountId}`}>{s.accountName}</a>,
            },
            { header: t.colRequested, cell: (s) => dateTime(s.createdAt, lang) },
            { header: t.colDecision, cell: (s) => <Decision state={state} s={s} refused={refused} /> },
          ]}
        />
        <Pager
          lang={lang}
          label={t.title}
          next={page.next === null ? null : `/panel/reseller/sender-ids?after=${page.next}`}
        />
      </>
    ),
  });
}

export const resellerSenderIdsArea: ResellerArea = {
  name: 'reseller-sender-ids',
  nav: [{ path: '/reseller/sender-ids', label: (lang) => resellerSenderIdMessages[lang].nav, order: 210 }],
  routes(app, door) {
    app.get('/reseller/sender-ids', async (request, reply) => queuePage(request, reply, door));

    app.post<IdParams>('/reseller/sender-ids/:id/approve', async (request, reply) => {
      await found(door.of(request).reviewSenderId(idOf(request.params.id), { approve: true }));
      return reply.redirect('/panel/reseller/sender-ids?done=approved', 303);
    });

    app.post<IdParams>('/reseller/sender-ids/:id/reject', async (request, reply) => {
      const id = idOf(request.params.id);
      const reason = field(request.body, 'reason').trim().slice(0, 500);
      if (reason === '') {
        const t = resellerSenderIdMessages[request.panel.lang];
        return queuePage(request, reply, door, { id, reason, error: t.errReason });
      }
      await found(door.of(request).reviewSenderId(id, { approve: false, reason }));
      return reply.redirect('/panel/reseller/sender-ids?done=rejected', 303);
    });
  },
};
