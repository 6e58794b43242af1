/** One key: its settings, pause / reactivate / revoke (confirmed), rotate; its webhook (webhook.tsx). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountDoor } from '../door.js';
import { sendPage } from '../../layout.js';
import { Notice } from '../../kit/fields.js';
import { ConfirmForm, PostForm, RowAction } from '../../kit/post-form.js';
import { idOf, queryOf, ticked } from '../../kit/forms.js';
import { dateTime, stateLabel } from '../../kit/format.js';
import { keyDetailMessages } from './key-catalogue.js';
import { kitText } from '../../kit/text.js';
import type { Lang } from '../../kit/catalogue.js';
import { KeySettingsFields, formValuesOf, readKeyForm } from './key-form.js';
import type { KeyFormErrors, KeyFormValues } from './key-form.js';
import { shownOncePage } from './key-create.js';
import { WebhookSection } from './webhook.js';
import type { PostedWebhook } from './webhook.js';
import type { PanelKeyView } from '../../../services/panel/account/keys.js';
import { AdminError } from '../../../services/admin-error.js';
import type { KeyAction } from '../../../domain/api-key.js';

export type IdParams = { Params: { id: string } };

export interface KeyPageExtras {
  form?: { values: KeyFormValues; errors: KeyFormErrors };
  notice?: { text: string; kind: 'ok' | 'error' };
  webhook?: PostedWebhook;
}

function Facts(props: { k: PanelKeyView; lang: Lang }) {
  const { k, lang } = props;
  const t = keyDetailMessages[lang];
  return (
    <dl class="facts">
      <dt>{t.state}</dt>
      <dd class="state">{stateLabel(k.state, lang)}</dd>
      <dt>{t.created}</dt>
      <dd>{dateTime(k.created_at, lang)}</dd>
      <dt>{t.lastUsed}</dt>
      <dd>{k.last_used === null ? kitText[lang].never : dateTime(k.last_used, lang)}</dd>
      {k.valid_until !== null && (
        <>
          <dt>{t.validUntil}</dt>
          <dd>{dateTime(k.valid_until, lang)}</dd>
        </>
      )}
      {k.replaced_by !== null && (
        <>
          <dt>{t.replacedBy(k.replaced_by)}</dt>
          <dd>
            <a href={`/panel/keys/${k.replaced_by}`}>{t.keyTitle(k.replaced_by)}</a>
          </dd>
        </>
      )}
    </dl>
  );
}

/** The settings form and the state actions of a key that is not revoked. */
function Settings(props: { request: FastifyRequest; k: PanelKeyView; form: KeyPageExtras['form'] }) {
  const { k, form } = props;
  const state = props.request.panel;
  const t = keyDetailMessages[state.lang];
  const values =
    form?.values ??
    formValuesOf({
      permissions: k.permissions,
      hourlyLimit: k.hourly_limit,
      dailyLimit: k.daily_limit,
      monthlyLimit: k.monthly_limit,
      ipAllow: k.ip_allow,
      expiresOn: k.expires,
    });
  const base = `/panel/keys/${k.id}`;
  return (
    <>
      <h2>{t.settings}</h2>
      <PostForm action={`${base}/settings`} state={state} class="stack">
        <KeySettingsFields state={state} values={values} errors={form?.errors ?? {}} />
        <div>
          <button type="submit">{t.saveSettings}</button>
        </div>
      </PostForm>
      <h2>{t.stateActions}</h2>
      <div class="actions">
        {k.state === 'Active' && (
          <RowAction action={`${base}/pause`} state={state} label={t.pause} buttonClass="secondary" />
        )}
        {k.state === 'Paused' && (
          <RowAction action={`${base}/reactivate`} state={state} label={t.reactivate} buttonClass="secondary" />
        )}
        <RowAction action={`${base}/revoke`} state={state} label={t.revoke} confirm={`${base}/revoke`} />
      </div>
    </>
  );
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
  const key = await keys.get(id);
  const deliveries = await keys.deliveries(id, 20);
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

/** Runs a key action; the key's state refusing it (AdminError) shows the key's page with a notice. */
async function orRefused(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  id: number,
  action: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof AdminError)) throw error;
    const notice = { text: keyDetailMessages[request.panel.lang].refused, kind: 'error' as const };
    return keyPage(request, reply, door, id, { notice });
  }
}

export function keyPageRoutes(app: FastifyInstance, door: AccountDoor): void {
  app.get<IdParams>('/keys/:id', async (request, reply) => keyPage(request, reply, door, idOf(request.params.id)));

  app.post<IdParams>('/keys/:id/settings', async (request, reply) => {
    const id = idOf(request.params.id);
    const keys = door.of(request).keys;
    const read = readKeyForm(request.body, (await keys.get(id)).permissions, request.panel);
    if ('errors' in read) return keyPage(request, reply, door, id, { form: read });
    return orRefused(request, reply, door, id, async () => {
      await keys.update(id, read.ok);
      return reply.redirect(`/panel/keys/${id}?done=saved`, 303);
    });
  });

  const stateAction = (action: KeyAction, done: string): void => {
    app.post<IdParams>(`/keys/:id/${action}`, async (request, reply) => {
      const id = idOf(request.params.id);
      return orRefused(request, reply, door, id, async () => {
        await door.of(request).keys.changeState(id, action);
        return reply.redirect(`/panel/keys/${id}?done=${done}`, 303);
      });
    });
  };
  stateAction('pause', 'paused');
  stateAction('reactivate', 'reactivated');
  stateAction('revoke', 'revoked');

  app.get<IdParams>('/keys/:id/revoke', async (request, reply) => {
    const state = request.panel;
    const t = keyDetailMessages[state.lang];
    const key = await door.of(request).keys.get(idOf(request.params.id));
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
    return orRefused(request, reply, door, id, async () => {
      const rotated = await door.of(request).keys.rotate(id, keepOld);
      const until = rotated.old_key_valid_until;
      const extra = until === null ? t.oldKeyRevoked : t.oldKeyUntil(dateTime(until, request.panel.lang));
      return shownOncePage(request, reply, t.rotatedTitle, rotated.api_key, rotated.id, extra);
    });
  });
}
