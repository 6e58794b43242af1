/**
 * The provider console's queue of sender IDs customers requested (issue 22): approve, or
 * reject with a reason the customer sees. Decisions go through SenderIdReview, the service
 * of `haberci admin sender-id approve|reject`, with the audit row in the same transaction.
 */
import { cursor } from './provider-accounts.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelArea, PanelDeps } from '../context.js';
import { providerOnly } from '../context.js';
import { Csrf, FieldError, Notice, sendPage } from '../layout.js';
import { providerSenderIdMessages } from '../i18n/provider-sender-ids.js';
import { formOf, text, queryOf } from '../forms.js';
import { dateTime, idOf } from './key-format.js';
import type { IdParams } from './key-format.js';
import { actorOf } from '../audit.js';
import { AdminError } from '../../services/admin-error.js';
import { AlreadyReviewed } from '../../services/sender-id-review.js';
import { NotFoundForAccount } from '../../services/account-panel.js';

async function queuePage(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: PanelDeps,
  rejected?: { id: number; reason: string; error: string },
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = providerSenderIdMessages[lang];
  const query = queryOf(request.query);
  const after = cursor(query.after);
  const page = await deps.account.console.pendingSenderIds(after);
  const title = (query.title ?? '').slice(0, 22);
  const done =
    query.done === 'approved'
      ? t.doneApproved(title)
      : query.done === 'rejected'
        ? t.doneRejected(title)
        : query.done === 'already'
          ? t.alreadyReviewed
          : undefined;
  return sendPage(request, reply, {
    title: t.title,
    status: rejected ? 400 : 200,
    body: (
      <>
        <Notice text={done} />
        <p>{t.intro}</p>
        {page.items.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.colTitle}</th>
                  <th scope="col">{t.colAccount}</th>
                  <th scope="col">{t.colRequested}</th>
                  <th scope="col">{t.colDecision}</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((s) => {
                  const error = rejected?.id === s.id ? rejected.error : undefined;
                  return (
                    <tr key={s.id}>
                      <th scope="row">{s.title}</th>
                      <td>
                        <a href={`/panel/provider/accounts/${s.accountId}`}>{s.accountName}</a>
                      </td>
                      <td>{dateTime(new Date(s.createdAt).toISOString(), lang)}</td>
                      <td>
                        <form method="post" action={`/panel/provider/sender-ids/${s.id}/approve`} class="inline">
                          <Csrf state={state} />
                          <button type="submit">{t.approve(s.title)}</button>
                        </form>
                        <form method="post" action={`/panel/provider/sender-ids/${s.id}/reject`} class="stack">
                          <Csrf state={state} />
                          <div>
                            <label for={`reason-${s.id}`}>{t.reasonLabel(s.title)}</label>
                            <input
                              id={`reason-${s.id}`}
                              name="reason"
                              type="text"
                              maxLength={500}
                              required
                              value={rejected?.id === s.id ? rejected.reason : ''}
                              aria-invalid={error ? 'true' : undefined}
                              aria-describedby={error ? `reason-${s.id}-error` : undefined}
                            />
                            <FieldError id={`reason-${s.id}-error`} text={error} state={state} />
                          </div>
                          <div>
                            <button type="submit" class="danger">
                              {t.reject(s.title)}
                            </button>
                          </div>
                        </form>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
        {page.next !== null && (
          <p>
            <a href={`/panel/provider/sender-ids?after=${page.next}`}>{t.nextPage}</a>
          </p>
        )}
      </>
    ),
  });
}

/** A review of a sender ID that is not there answers "not found"; one decided meanwhile, the queue with a notice (null). */
function missingOrDecided(id: number) {
  return (error: unknown): null => {
    if (error instanceof AlreadyReviewed) return null;
    if (error instanceof AdminError && error.message.startsWith('no sender ID'))
      throw new NotFoundForAccount(`no sender ID ${id}`);
    throw error;
  };
}

const alreadyDecided = '/panel/provider/sender-ids?done=already';

export const providerSenderIdsArea: PanelArea = {
  name: 'provider-sender-ids',
  nav: [
    { path: '/provider/sender-ids', label: (lang) => providerSenderIdMessages[lang].nav, order: 20, for: 'provider' },
  ],
  routes(app, deps) {
    app.get('/provider/sender-ids', providerOnly, async (request, reply) => queuePage(request, reply, deps));

    app.post<IdParams>('/provider/sender-ids/:id/approve', providerOnly, async (request, reply) => {
      const id = idOf(request.params.id);
      const done = await deps.account.console.approveSenderId(actorOf(request), id).catch(missingOrDecided(id));
      if (done === null) return reply.redirect(alreadyDecided, 303);
      return reply.redirect(`/panel/provider/sender-ids?done=approved&title=${encodeURIComponent(done.title)}`, 303);
    });

    app.post<IdParams>('/provider/sender-ids/:id/reject', providerOnly, async (request, reply) => {
      const id = idOf(request.params.id);
      const reason = text(formOf(request.body), 'reason').trim().slice(0, 500);
      if (reason === '') {
        return queuePage(request, reply, deps, {
          id,
          reason,
          error: providerSenderIdMessages[request.panel.lang].errReason,
        });
      }
      const done = await deps.account.console.rejectSenderId(actorOf(request), id, reason).catch(missingOrDecided(id));
      if (done === null) return reply.redirect(alreadyDecided, 303);
      return reply.redirect(`/panel/provider/sender-ids?done=rejected&title=${encodeURIComponent(done.title)}`, 303);
    });
  },
};
