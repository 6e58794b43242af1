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
import { InputField, Notice } from '../../kit/fields.js';
import { PostForm, RowAction } from '../../kit/post-form.js';
import { Table } from '../../kit/table.js';
import { Pager } from '../../kit/pager.js';
import { cursorOf, field, idOf, queryOf } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { resellerSenderIdMessages } from './catalogue.js';
import type { PendingSenderId } from '../../../ports/console-queries.js';

type IdParams = { Params: { id: string } };

interface Refused {
  id: number;
  reason: string;
  error: string;
}

function Decision(props: { state: PanelState; s: PendingSenderId; refused: Refused | undefined }) {
  const { state, s } = props;
  const t = resellerSenderIdMessages[state.lang];
  const refused = props.refused?.id === s.id ? props.refused : undefined;
  return (
    <>
      <RowAction
        action={`/panel/reseller/sender-ids/${s.id}/approve`}
        state={state}
        label={t.approve(s.title)}
        formClass="inline"
      />
      <PostForm action={`/panel/reseller/sender-ids/${s.id}/reject`} state={state} class="stack">
        <InputField
          id={`reason-${s.id}`}
          name="reason"
          label={t.reasonLabel(s.title)}
          value={refused?.reason ?? ''}
          error={refused?.error}
          state={state}
          attributes={{ maxLength: 500, required: true }}
        />
        <div>
          <button type="submit" class="danger">
            {t.reject(s.title)}
          </button>
        </div>
      </PostForm>
    </>
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
      await door.of(request).reviewSenderId(idOf(request.params.id), { approve: true });
      return reply.redirect('/panel/reseller/sender-ids?done=approved', 303);
    });

    app.post<IdParams>('/reseller/sender-ids/:id/reject', async (request, reply) => {
      const id = idOf(request.params.id);
      const reason = field(request.body, 'reason').trim().slice(0, 500);
      if (reason === '') {
        const t = resellerSenderIdMessages[request.panel.lang];
        return queuePage(request, reply, door, { id, reason, error: t.errReason });
      }
      await door.of(request).reviewSenderId(id, { approve: false, reason });
      return reply.redirect('/panel/reseller/sender-ids?done=rejected', 303);
    });
  },
};
