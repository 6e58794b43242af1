/** The account: its users, its IP allowlist, the user's password and sessions. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelArea, PanelDeps } from '../context.js';
import { accountIdOf } from '../context.js';
import { Csrf, FieldError, Notice, sendPage } from '../layout.js';
import { accountMessages } from '../i18n/account.js';
import { common } from '../i18n/common.js';
import { allowlist, formOf, text, queryOf } from '../forms.js';
import { dateTime } from './key-format.js';
import { setSessionCookie } from '../security.js';
import { AuditTable } from './provider-audit.js';
import { auditMessages } from '../i18n/provider-audit.js';
import { audited } from '../audit.js';

interface AccountErrors {
  allowlist?: { value: string; error: string };
  current?: string;
  next?: string;
}

async function page(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: PanelDeps,
  errors: AccountErrors = {},
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = accountMessages[lang];
  const accountId = accountIdOf(state);
  const account = await deps.account.account(accountId);
  const users = await deps.account.users(accountId);
  // The account's own audit entries; the provider's staff and commands are shown as "the provider".
  const ownUsers = new Set(users.map((u) => u.id));
  const activity = (await deps.account.audit.search({ accountId }, 20)).entries.map((e) =>
    e.actorUserId !== null && ownUsers.has(e.actorUserId)
      ? e
      : { ...e, actor: auditMessages[lang].providerActor, address: null },
  );
  const query = queryOf(request.query);
  const done =
    query.done === 'allowlist' ? t.allowlistSaved : query.done === 'password' ? t.passwordChanged : undefined;
  const failed = errors.allowlist !== undefined || errors.current !== undefined || errors.next !== undefined;
  const passwordDescribed = (id: string, error: string | undefined, hint?: string): string | undefined =>
    [hint ?? '', error !== undefined ? `${id}-error` : ''].filter((x) => x !== '').join(' ') || undefined;
  return sendPage(request, reply, {
    title: t.title,
    status: failed ? 400 : 200,
    body: (
      <>
        <Notice text={done} />
        <dl class="facts">
          <dt>{t.name}</dt>
          <dd>{account.name}</dd>
          <dt>{t.status}</dt>
          <dd>{account.status === 'Active' ? t.statusActive : t.statusSuspended}</dd>
          <dt>{t.balance}</dt>
          <dd>{account.balance_main}</dd>
        </dl>

        <h2>{t.users}</h2>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t.colEmail}</th>
                <th scope="col">{t.colState}</th>
                <th scope="col">{t.colCreated}</th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.id}>
                  <th scope="row">
                    {u.email} {u.id === state.user?.id ? t.you : ''}
                  </th>
                  <td>{u.status === 'disabled' ? t.userDisabled : u.password_set ? t.userActive : t.userNoPassword}</td>
                  <td>{dateTime(u.created_at, lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p class="muted">{t.usersHint}</p>

        <h2>{t.allowlist}</h2>
        <form method="post" action="/panel/account/allowlist" class="stack">
          <Csrf state={state} />
          <div>
            <label for="account-allowlist">{t.allowlistField}</label>
            <textarea
              id="account-allowlist"
              name="ip_allow"
              rows={3}
              aria-invalid={errors.allowlist ? 'true' : undefined}
              aria-describedby={
                errors.allowlist ? 'account-allowlist-hint account-allowlist-error' : 'account-allowlist-hint'
              }
            >
              {errors.allowlist?.value ?? account.ip_allow.join('\n')}
            </textarea>
            <p class="muted" id="account-allowlist-hint">
              {t.allowlistHint}
            </p>
            <FieldError id="account-allowlist-error" text={errors.allowlist?.error} state={state} />
          </div>
          <div>
            <button type="submit">{t.saveAllowlist}</button>
          </div>
        </form>

        <h2>{t.password}</h2>
        <form method="post" action="/panel/account/password" class="stack">
          <Csrf state={state} />
          <div>
            <label for="current-password">{t.currentPassword}</label>
            <input
              id="current-password"
              name="current_password"
              type="password"
              autocomplete="current-password"
              required
              aria-invalid={errors.current ? 'true' : undefined}
              aria-describedby={passwordDescribed('current-password', errors.current)}
            />
            <FieldError id="current-password-error" text={errors.current} state={state} />
          </div>
          <div>
            <label for="new-password">{t.newPassword}</label>
            <input
              id="new-password"
              name="new_password"
              type="password"
              autocomplete="new-password"
              required
              minLength={10}
              aria-invalid={errors.next ? 'true' : undefined}
              aria-describedby={passwordDescribed('new-password', errors.next, 'new-password-hint')}
            />
            <p class="muted" id="new-password-hint">
              {t.newPasswordHint}
            </p>
            <FieldError id="new-password-error" text={errors.next} state={state} />
          </div>
          <div>
            <button type="submit">{t.changePassword}</button>
          </div>
        </form>

        <h2>{t.sessions}</h2>
        <form method="post" action="/panel/sign-out-everywhere" class="stack">
          <Csrf state={state} />
          <p>{t.sessionsHint}</p>
          <div>
            <button type="submit" class="secondary">
              {common[lang].signOutEverywhere}
            </button>
          </div>
        </form>

        <h2>{auditMessages[lang].accountHeading}</h2>
        <p class="muted">{auditMessages[lang].accountIntro}</p>
        {activity.length === 0 ? (
          <p>{auditMessages[lang].accountNone}</p>
        ) : (
          <AuditTable entries={activity} lang={lang} withAccount={false} withAddress={false} />
        )}
      </>
    ),
  });
}

export const accountArea: PanelArea = {
  name: 'account',
  nav: [{ path: '/account', label: (lang) => accountMessages[lang].nav, order: 90, for: 'account' }],
  routes(app, deps) {
    app.get('/account', async (request, reply) => page(request, reply, deps));

    app.post('/account/allowlist', async (request, reply) => {
      const raw = text(formOf(request.body), 'ip_allow');
      const parsed = allowlist(raw);
      if ('bad' in parsed)
        return page(request, reply, deps, {
          allowlist: { value: raw, error: accountMessages[request.panel.lang].errAllowlist(parsed.bad) },
        });
      await deps.account.setAccountAllowlist(accountIdOf(request.panel), parsed.ok);
      await audited(request, deps, {
        action: 'account.allowlist',
        object: { type: 'account', id: accountIdOf(request.panel) },
        detail: { entries: parsed.ok.length },
      });
      return reply.redirect('/panel/account?done=allowlist', 303);
    });

    app.post('/account/password', async (request, reply) => {
      const t = accountMessages[request.panel.lang];
      const form = formOf(request.body);
      const user = request.panel.user;
      if (!user) return reply.redirect('/panel/sign-in', 303);
      const changed = await deps.users.changePassword(
        user.id,
        text(form, 'current_password'),
        text(form, 'new_password'),
      );
      if (!changed.ok) {
        if (changed.reason === 'wrong-current') return page(request, reply, deps, { current: t.errCurrent });
        return page(request, reply, deps, { next: changed.reason === 'too-short' ? t.errShort : t.errLong });
      }
      await audited(request, deps, { action: 'user.password-change', object: { type: 'user', id: user.id } });
      setSessionCookie(request, reply, changed.token);
      return reply.redirect('/panel/account?done=password', 303);
    });
  },
};
