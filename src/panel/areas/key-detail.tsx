/** One key: its settings, pause / reactivate / revoke (confirmed), rotate; its webhook (key-webhook.tsx). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PanelDeps, PanelState } from '../context.js';
import { accountIdOf } from '../context.js';
import { Csrf, Notice, sendPage } from '../layout.js';
import { keyDetailMessages } from '../i18n/key-detail.js';
import { common } from '../i18n/common.js';
import { formOf, ticked, queryOf } from '../forms.js';
import { KeySettingsFields, formValuesOf, readKeyForm } from './key-form.js';
import { keyCreateRoutes, shownOncePage } from './key-create.js';
import type { KeyFormErrors, KeyFormValues } from './key-form.js';
import { dateTime, idOf, stateLabel } from './key-format.js';
import type { IdParams } from './key-format.js';
import { WebhookSection, webhookRoutes } from './key-webhook.js';
import type { WebhookErrors } from './key-webhook.js';
import { AdminError } from '../../services/admin-error.js';
import type { KeyAction } from '../../domain/api-key.js';
import { audited } from '../audit.js';

const notices = (state: PanelState): Record<string, string> => {
  const t = keyDetailMessages[state.lang];
  return { saved: t.saved, paused: t.paused, reactivated: t.reactivated, revoked: t.revoked };
};

interface KeyPageExtras {
  form?: { values: KeyFormValues; errors: KeyFormErrors };
  notice?: { text: string; kind: 'ok' | 'error' };
  webhook?: { errors: WebhookErrors; url: string; attempts: string };
}

async function keyPage(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: PanelDeps,
  id: number,
  extras: KeyPageExtras = {},
): Promise<FastifyReply> {
  const { form, notice, webhook } = extras;
  const state = request.panel;
  const lang = state.lang;
  const t = keyDetailMessages[lang];
  const accountId = accountIdOf(state);
  const key = await deps.account.key(accountId, id);
  const deliveries = await deps.account.deliveries(accountId, id, 20);
  const query = queryOf(request.query);
  const done =
    notice ??
    (query.done !== undefined && notices(state)[query.done] !== undefined
      ? { text: notices(state)[query.done] ?? '', kind: 'ok' as const }
      : undefined);
  const revoked = key.state === 'Revoked';
  return sendPage(request, reply, {
    title: t.keyTitle(key.id),
    status: form || webhook ? 400 : 200,
    body: (
      <>
        <Notice text={done?.text} kind={done?.kind} />
        {form && <Notice kind="error" text={t.fixErrors} />}
        <dl class="facts">
          <dt>{t.state}</dt>
          <dd class="state">{stateLabel(lang, key.state)}</dd>
          <dt>{t.created}</dt>
          <dd>{dateTime(key.created_at, lang)}</dd>
          <dt>{t.lastUsed}</dt>
          <dd>{dateTime(key.last_used, lang)}</dd>
          {key.valid_until !== null && (
            <>
              <dt>{t.validUntil}</dt>
              <dd>{dateTime(key.valid_until, lang)}</dd>
            </>
          )}
          {key.replaced_by !== null && (
            <>
              <dt>{t.replacedBy(key.replaced_by)}</dt>
              <dd>
                <a href={`/panel/keys/${key.replaced_by}`}>{t.keyTitle(key.replaced_by)}</a>
              </dd>
            </>
          )}
        </dl>
        {!revoked && (
          <>
            <h2>{t.settings}</h2>
            <form method="post" action={`/panel/keys/${key.id}/settings`} class="stack">
              <Csrf state={state} />
              <KeySettingsFields
                state={state}
                values={
                  form?.values ??
                  formValuesOf({
                    permissions: key.permissions,
                    hourlyLimit: key.hourly_limit,
                    dailyLimit: key.daily_limit,
                    monthlyLimit: key.monthly_limit,
                    ipAllow: key.ip_allow,
                    expiresOn: key.expires,
                  })
                }
                errors={form?.errors ?? {}}
              />
              <div>
                <button type="submit">{t.saveSettings}</button>
              </div>
            </form>
            <h2>{t.stateActions}</h2>
            <div class="actions">
              {key.state === 'Active' && (
                <form method="post" action={`/panel/keys/${key.id}/pause`}>
                  <Csrf state={state} />
                  <button type="submit" class="secondary">
                    {t.pause}
                  </button>
                </form>
              )}
              {key.state === 'Paused' && (
                <form method="post" action={`/panel/keys/${key.id}/reactivate`}>
                  <Csrf state={state} />
                  <button type="submit" class="secondary">
                    {t.reactivate}
                  </button>
                </form>
              )}
              <a class="button secondary" href={`/panel/keys/${key.id}/revoke`}>
                {t.revoke}
              </a>
            </div>
          </>
        )}
        {key.state === 'Active' && (
          <>
            <h2>{t.rotate}</h2>
            <form method="post" action={`/panel/keys/${key.id}/rotate`} class="stack">
              <Csrf state={state} />
              <p>{t.rotateText}</p>
              <label>
                <input type="checkbox" name="keep_old" value="1" /> {t.keepOld}
              </label>
              <div>
                <button type="submit">{t.rotate}</button>
              </div>
            </form>
          </>
        )}
        <WebhookSection
          state={state}
          keyView={key}
          deliveries={deliveries}
          query={query}
          errors={webhook?.errors}
          posted={webhook ? { url: webhook.url, attempts: webhook.attempts } : undefined}
        />
        <p>
          <a href="/panel/keys">{t.backToKeys}</a>
        </p>
      </>
    ),
  });
}

export function keyDetailRoutes(app: FastifyInstance, deps: PanelDeps): void {
  keyCreateRoutes(app, deps);
  webhookRoutes(app, deps, (request, reply, id, webhook) => keyPage(request, reply, deps, id, { webhook }));
  app.get<IdParams>('/keys/:id', async (request, reply) => keyPage(request, reply, deps, idOf(request.params.id)));

  app.post<IdParams>('/keys/:id/settings', async (request, reply) => {
    const id = idOf(request.params.id);
    const current = await deps.account.key(accountIdOf(request.panel), id);
    const read = readKeyForm(formOf(request.body), current.permissions, request.panel);
    if ('errors' in read) return keyPage(request, reply, deps, id, { form: read });
    try {
      await deps.account.updateKey(accountIdOf(request.panel), id, read.ok);
      await audited(request, deps, { action: 'key.update', object: { type: 'key', id } });
    } catch (error) {
      if (!(error instanceof AdminError)) throw error;
      return keyPage(request, reply, deps, id, {
        notice: { text: keyDetailMessages[request.panel.lang].refused, kind: 'error' },
      });
    }
    return reply.redirect(`/panel/keys/${id}?done=saved`, 303);
  });

  const stateAction = (action: KeyAction, done: string): void => {
    app.post<IdParams>(`/keys/:id/${action}`, async (request, reply) => {
      const id = idOf(request.params.id);
      try {
        await deps.account.changeKeyState(accountIdOf(request.panel), id, action);
        await audited(request, deps, { action: `key.${action}`, object: { type: 'key', id } });
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        return keyPage(request, reply, deps, id, {
          notice: { text: keyDetailMessages[request.panel.lang].refused, kind: 'error' },
        });
      }
      return reply.redirect(`/panel/keys/${id}?done=${done}`, 303);
    });
  };
  stateAction('pause', 'paused');
  stateAction('reactivate', 'reactivated');
  stateAction('revoke', 'revoked');

  app.get<IdParams>('/keys/:id/revoke', async (request, reply) => {
    const state = request.panel;
    const t = keyDetailMessages[state.lang];
    const key = await deps.account.key(accountIdOf(state), idOf(request.params.id));
    return sendPage(request, reply, {
      title: t.revokeTitle(key.id),
      body: (
        <form method="post" action={`/panel/keys/${key.id}/revoke`} class="stack">
          <Csrf state={state} />
          <p>{t.revokeWarning}</p>
          <div class="actions">
            <button type="submit" class="danger">
              {t.revokeConfirm}
            </button>
            <a href={`/panel/keys/${key.id}`}>{common[state.lang].cancel}</a>
          </div>
        </form>
      ),
    });
  });

  app.post<IdParams>('/keys/:id/rotate', async (request, reply) => {
    const id = idOf(request.params.id);
    const t = keyDetailMessages[request.panel.lang];
    const keepOld = ticked(formOf(request.body), 'keep_old');
    let rotated;
    try {
      rotated = await deps.account.rotateKey(accountIdOf(request.panel), id, keepOld);
      await audited(request, deps, {
        action: 'key.rotate',
        object: { type: 'key', id },
        detail: { new_id: rotated.id, keep_old: keepOld },
      });
    } catch (error) {
      if (!(error instanceof AdminError)) throw error;
      return keyPage(request, reply, deps, id, { notice: { text: t.refused, kind: 'error' } });
    }
    const extra =
      rotated.old_key_valid_until === null
        ? t.oldKeyRevoked
        : t.oldKeyUntil(dateTime(rotated.old_key_valid_until, request.panel.lang));
    return shownOncePage(request, reply, t.rotatedTitle, rotated.api_key, rotated.id, extra);
  });
}
