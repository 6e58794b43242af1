/** The account's sender IDs, and requests for new ones (pending until the provider approves). */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelArea, PanelDeps } from '../context.js';
import { accountIdOf } from '../context.js';
import { Csrf, FieldError, Notice, sendPage } from '../layout.js';
import { senderIdMessages } from '../i18n/sender-ids.js';
import { formOf, text, queryOf } from '../forms.js';
import { dateTime } from './key-format.js';
import { senderIdRefusal } from '../../domain/sender-title.js';
import { AdminError } from '../../services/admin-error.js';
import { audited } from '../audit.js';

async function page(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: PanelDeps,
  posted?: { title: string; error: string },
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = senderIdMessages[lang];
  const rows = await deps.account.senderIds(accountIdOf(state));
  const done = queryOf(request.query).done === 'requested' ? t.requested : undefined;
  const stateText = { approved: t.approved, pending: t.pending, rejected: t.rejected };
  return sendPage(request, reply, {
    title: t.title,
    status: posted ? 400 : 200,
    body: (
      <>
        <Notice text={done} />
        <p>{t.intro}</p>
        {rows.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.colTitle}</th>
                  <th scope="col">{t.colState}</th>
                  <th scope="col">{t.colRequested}</th>
                  <th scope="col">{t.colReason}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((s) => (
                  <tr key={s.id}>
                    <th scope="row">{s.title}</th>
                    <td class="state">{stateText[s.status]}</td>
                    <td>{dateTime(s.created_at, lang)}</td>
                    <td>{s.reason ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <h2>{t.request}</h2>
        <form method="post" action="/panel/sender-ids" class="stack">
          <Csrf state={state} />
          <div>
            <label for="sender-title">{t.field}</label>
            <input
              id="sender-title"
              name="title"
              type="text"
              maxLength={22}
              required
              value={posted?.title ?? ''}
              aria-invalid={posted ? 'true' : undefined}
              aria-describedby={posted ? 'sender-title-hint sender-title-error' : 'sender-title-hint'}
            />
            <p class="muted" id="sender-title-hint">
              {t.hint}
            </p>
            <FieldError id="sender-title-error" text={posted?.error} state={state} />
          </div>
          <div>
            <button type="submit">{t.submit}</button>
          </div>
        </form>
      </>
    ),
  });
}

export const senderIdsArea: PanelArea = {
  name: 'sender-ids',
  nav: [{ path: '/sender-ids', label: (lang) => senderIdMessages[lang].nav, order: 80, for: 'account' }],
  routes(app, deps) {
    app.get('/sender-ids', async (request, reply) => page(request, reply, deps));
    app.post('/sender-ids', async (request, reply) => {
      const t = senderIdMessages[request.panel.lang];
      const title = text(formOf(request.body), 'title');
      if (senderIdRefusal(title) !== null) return page(request, reply, deps, { title, error: t.errInvalid });
      try {
        const made = await deps.account.requestSenderId(accountIdOf(request.panel), title);
        await audited(request, deps, {
          action: 'sender-id.request',
          object: { type: 'sender-id', id: made.id },
          detail: { title },
        });
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        return page(request, reply, deps, { title, error: t.errTaken });
      }
      return reply.redirect('/panel/sender-ids?done=requested', 303);
    });
  },
};
