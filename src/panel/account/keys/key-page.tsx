/** One key's page (facts, settings, state actions, rotation, webhook) and its routes; revoking asks first. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountDoor } from '../door.js';
import { sendPage } from '../../layout.js';
import { Notice } from '../../kit/fields.js';
import { ConfirmForm, PostForm } from '../../kit/post-form.js';
import { idOf, queryOf, ticked } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { keyDetailMessages } from './key-catalogue.js';
import { readKeyForm } from './key-form.js';
import type { KeyFormErrors, KeyFormValues } from './key-form.js';
import { shownOncePage } from './key-create.js';
import { WebhookSection } from './webhook-section.js';
import type { PostedWebhook } from './webhook-section.js';
import type { AdminResult } from '../../../services/admin-result.js';
import type { KeyAction } from '../../../domain/api-key.js';
import { Facts, Settings } from './key-settings.js';
import { found, orRefused } from '../../kit/not-found.js';

type IdParams = { Params: { id: string } };

export interface KeyPageExtras {
  form?: { values: KeyFormValues; errors: KeyFormErrors };
  notice?: { text: string; kind: 'ok' | 'error' };
  webhook?: PostedWebhook;
}

export async function keyPage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  id: number,
  extras: KeyPageExtras = {},
): Promise<FastifyReply> {
  const { form, notice, webhook } = extras;
  const state = request.panel;
  const t = keyDetailMessages[state.lang];
  const keys = door.of(request).keys;
  const key = await found(keys.get(id));
  const deliveries = await found(keys.deliveries(id, 20));
  const query = queryOf(request.query);
  const notices: Record<string, string> = {
    saved: t.saved,
    paused: t.paused,
    reactivated: t.reactivated,
    revoked: t.revoked,
  };
  const doneText = query.done === undefined ? undefined : notices[query.done];
  const done = notice ?? (doneText === undefined ? undefined : { text: doneText, kind: 'ok' as const });
  return sendPage(request, reply, {
    title: t.keyTitle(key.id),
    status: form || webhook ? 400 : 200,
    body: (
      <>
        <Notice text={done?.text} kind={done?.kind} />
        {form && <Notice kind="error" text={t.fixErrors} />}
        <Facts k={key} lang={state.lang} />
        {key.state !== 'Revoked' && <Settings request={request} k={key} form={form} />}
        {key.state === 'Active' && (
          <>
            <h2>{t.rotate}</h2>
            <PostForm action={`/panel/keys/${key.id}/rotate`} state={state} class="stack">
              <p>{t.rotateText}</p>
              <label>
                <input type="checkbox" name="keep_old" value="1" /> {t.keepOld}
              </label>
              <div>
                <button type="submit">{t.rotate}</button>
              </div>
            </PostForm>
          </>
        )}
        <WebhookSection state={state} keyView={key} deliveries={deliveries} query={query} posted={webhook} />
        <p>
          <a href="/panel/keys">{t.backToKeys}</a>
        </p>
      </>
    ),
  });
}

/**
 * Runs a key action, then `then` with what it did; the key's state refusing it (ADM-REFUSED)
 * shows the key's page with a notice, another account's key is "Page not found".
 */
async function keyAction<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  id: number,
  action: () => Promise<AdminResult<T>>,
  then: (done: T) => Promise<FastifyReply>,
): Promise<FastifyReply> {
  const done = await orRefused(action());
  if (done.ok) return then(done.value);
  const notice = { text: keyDetailMessages[request.panel.lang].refused, kind: 'error' as const };
  return keyPage(request, reply, door, id, { notice });
}

export function keyPageRoutes(app: FastifyInstance, door: AccountDoor): void {
  app.get<IdParams>('/keys/:id', async (request, reply) => keyPage(request, reply, door, idOf(request.params.id)));

  app.post<IdParams>('/keys/:id/settings', async (request, reply) => {
    const id = idOf(request.params.id);
    const keys = door.of(request).keys;
    const read = readKeyForm(request.body, (await found(keys.get(id))).permissions, request.panel);
    if ('errors' in read) return keyPage(request, reply, door, id, { form: read });
    return keyAction(
      request,
      reply,
      door,
      id,
      () => keys.update(id, read.ok),
      async () => reply.redirect(`/panel/keys/${id}?done=saved`, 303),
    );
  });

  const stateAction = (action: KeyAction, done: string): void => {
    app.post<IdParams>(`/keys/:id/${action}`, async (request, reply) => {
      const id = idOf(request.params.id);
      return keyAction(
        request,
        reply,
        door,
        id,
        () => door.of(request).keys.changeState(id, action),
        async () => reply.redirect(`/panel/keys/${id}?done=${done}`, 303),
      );
    });
  };
  stateAction('pause', 'paused');
  stateAction('reactivate', 'reactivated');
  stateAction('revoke', 'revoked');

  app.get<IdParams>('/keys/:id/revoke', async (request, reply) => {
    const state = request.panel;
    const t = keyDetailMessages[state.lang];
    const key = await found(door.of(request).keys.get(idOf(request.params.id)));
    const base = `/panel/keys/${key.id}`;
    return sendPage(request, reply, {
      title: t.revokeTitle(key.id),
      body: (
        <ConfirmForm
          action={`${base}/revoke`}
          state={state}
          warning={t.revokeWarning}
          confirm={t.revokeConfirm}
          back={base}
        />
      ),
    });
  });

  app.post<IdParams>('/keys/:id/rotate', async (request, reply) => {
    const id = idOf(request.params.id);
    const t = keyDetailMessages[request.panel.lang];
    const keepOld = ticked(request.body, 'keep_old');
    return keyAction(
      request,
      reply,
      door,
      id,
      () => door.of(request).keys.rotate(id, keepOld),
      async (rotated) => {
        const until = rotated.old_key_valid_until;
        const extra = until === null ? t.oldKeyRevoked : t.oldKeyUntil(dateTime(until, request.panel.lang));
        return shownOncePage(request, reply, t.rotatedTitle, rotated.api_key, rotated.id, extra);
      },
    );
  });
}
