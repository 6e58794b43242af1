/** The account's sender IDs, and requests for new ones (pending until the provider approves). */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { InputField, Notice } from '../../kit/fields.js';
import { PostForm } from '../../kit/post-form.js';
import { Table } from '../../kit/table.js';
import { field, queryOf } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { senderIdMessages } from './catalogue.js';
import type { PanelSenderIdView } from '../../../services/panel/account/sender-ids.js';
import { senderIdRefusal } from '../../../domain/sender-title.js';

async function page(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  posted?: { title: string; error: string },
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = senderIdMessages[lang];
  const rows = await door.of(request).senderIds.list();
  const done = queryOf(request.query).done === 'requested' ? t.requested : undefined;
  const stateText = {
    approved: t.approved,
    pending: t.pending,
    rejected: t.rejected,
    'awaiting-reseller': t.awaitingReseller,
  };
  return sendPage(request, reply, {
    title: t.title,
    status: posted ? 400 : 200,
    body: (
      <>
        <Notice text={done} />
        <p>{t.intro}</p>
        <Table<PanelSenderIdView>
          rows={rows}
          rowKey={(s) => s.id}
          empty={t.none}
          columns={[
            { header: t.colTitle, rowHeader: true, cell: (s) => s.title },
            { header: t.colState, class: 'state', cell: (s) => stateText[s.status] },
            { header: t.colRequested, cell: (s) => dateTime(s.created_at, lang) },
            { header: t.colReason, cell: (s) => s.reason ?? '' },
          ]}
        />
        <h2>{t.request}</h2>
        <PostForm action="/panel/sender-ids" state={state} class="stack">
          <InputField
            id="sender-title"
            name="title"
            label={t.field}
            value={posted?.title ?? ''}
            hint={t.hint}
            error={posted?.error}
            state={state}
            attributes={{ maxLength: 22, required: true }}
          />
          <div>
            <button type="submit">{t.submit}</button>
          </div>
        </PostForm>
      </>
    ),
  });
}

export const senderIdsArea: AccountArea = pageArea({
  name: 'sender-ids',
  path: '/sender-ids',
  messages: senderIdMessages,
  order: 80,
  page,
  routes(app, door) {
    app.post('/sender-ids', async (request, reply) => {
      const t = senderIdMessages[request.panel.lang];
      const title = field(request.body, 'title');
      if (senderIdRefusal(title) !== null) return page(request, reply, door, { title, error: t.errInvalid });
      const requested = await door.of(request).senderIds.request(title);
      if (!requested.ok) return page(request, reply, door, { title, error: t.errTaken });
      return reply.redirect('/panel/sender-ids?done=requested', 303);
    });
  },
});
