/** Sign-in, sign-out and set-password links (the provider's home is provider-home.tsx). */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { PanelArea } from '../context.js';
import { Csrf, FieldError, Notice, sendPage } from '../layout.js';
import { signInMessages } from '../i18n/sign-in.js';
import { clearSessionCookie, setSessionCookie } from '../security.js';
import { panelPath } from '../paths.js';
import { audited, auditedAs } from '../audit.js';

type Notes = { notice?: string; error?: string; email?: string; status?: number };

function signInPage(request: FastifyRequest, reply: FastifyReply, next: string, notes: Notes = {}): FastifyReply {
  const state = request.panel;
  const t = signInMessages[state.lang];
  return sendPage(request, reply, {
    title: t.title,
    status: notes.status ?? 200,
    body: (
      <>
        <Notice text={notes.notice} />
        <form method="post" action="/panel/sign-in" class="stack">
          <Csrf state={state} />
          <input type="hidden" name="next" value={next} />
          <div>
            <label for="email">{t.email}</label>
            <input
              id="email"
              name="email"
              type="email"
              autocomplete="username"
              required
              value={notes.email ?? ''}
              aria-describedby={notes.error ? 'sign-in-error' : undefined}
              aria-invalid={notes.error ? 'true' : undefined}
            />
          </div>
          <div>
            <label for="password">{t.password}</label>
            <input
              id="password"
              name="password"
              type="password"
              autocomplete="current-password"
              required
              aria-describedby={notes.error ? 'sign-in-error' : undefined}
              aria-invalid={notes.error ? 'true' : undefined}
            />
            <FieldError id="sign-in-error" text={notes.error} state={state} />
          </div>
          <div>
            <button type="submit">{t.submit}</button>
          </div>
        </form>
      </>
    ),
  });
}

function setPasswordPage(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  error?: string,
  status = 200,
): FastifyReply {
  const state = request.panel;
  const t = signInMessages[state.lang];
  return sendPage(request, reply, {
    title: t.setPasswordTitle,
    status,
    body: (
      <form method="post" action="/panel/set-password" class="stack">
        <Csrf state={state} />
        <input type="hidden" name="token" value={token} />
        <div>
          <label for="new-password">{t.newPassword}</label>
          <input
            id="new-password"
            name="password"
            type="password"
            autocomplete="new-password"
            required
            minLength={10}
            aria-describedby={error ? 'password-error' : undefined}
            aria-invalid={error ? 'true' : undefined}
          />
          <FieldError id="password-error" text={error} state={state} />
        </div>
        <div>
          <button type="submit">{t.setPasswordSubmit}</button>
        </div>
      </form>
    ),
  });
}

const signInBody = z.object({
  email: z.string().max(320).default(''),
  password: z.string().max(1000).default(''),
  next: z.string().optional(),
});
const setPasswordBody = z.object({
  token: z.string().max(200).default(''),
  password: z.string().max(1000).default(''),
});

export const signInArea: PanelArea = {
  name: 'sign-in',
  routes(app, deps) {
    app.get<{ Querystring: { next?: string; done?: string } }>(
      '/sign-in',
      { config: { panelAccess: 'public' } },
      async (request, reply) => {
        const t = signInMessages[request.panel.lang];
        if (request.panel.user) return reply.redirect(panelPath(request.query.next), 303);
        const notices: Record<string, string> = {
          'signed-out': t.signedOut,
          'password-set': t.passwordSet,
          expired: t.expired,
        };
        const notice = request.query.done === undefined ? undefined : notices[request.query.done];
        return signInPage(request, reply, panelPath(request.query.next), { notice });
      },
    );

    app.post('/sign-in', { config: { panelAccess: 'public' } }, async (request, reply) => {
      const t = signInMessages[request.panel.lang];
      const body = signInBody.safeParse(request.body ?? {});
      const input = body.success ? body.data : { email: '', password: '', next: undefined };
      const next = panelPath(input.next);
      const result = await deps.users.signIn(input.email, input.password, request.ip);
      if (!result.ok) {
        const error = result.reason === 'limited' ? t.limited(result.retryAfterMinutes) : t.invalid;
        return signInPage(request, reply, next, {
          error,
          email: input.email,
          status: result.reason === 'limited' ? 429 : 401,
        });
      }
      setSessionCookie(request, reply, result.token);
      return reply.redirect(next, 303);
    });

    app.post('/sign-out', { config: { panelAccess: 'signed-in' } }, async (request, reply) => {
      const token = request.panel.sessionToken;
      if (token !== null) await deps.users.signOut(token);
      clearSessionCookie(request, reply);
      return reply.redirect('/panel/sign-in?done=signed-out', 303);
    });

    app.post('/sign-out-everywhere', { config: { panelAccess: 'signed-in' } }, async (request, reply) => {
      const user = request.panel.user;
      if (user) {
        await deps.users.signOutEverywhere(user.id);
        await audited(request, deps, { action: 'user.sign-out-everywhere', object: { type: 'user', id: user.id } });
      }
      clearSessionCookie(request, reply);
      return reply.redirect('/panel/sign-in?done=signed-out', 303);
    });

    app.get<{ Querystring: { token?: string } }>(
      '/set-password',
      { config: { panelAccess: 'public' } },
      async (request, reply) => {
        const token = request.query.token ?? '';
        if (!(await deps.users.linkValid(token))) {
          const t = signInMessages[request.panel.lang];
          return sendPage(request, reply, {
            title: t.setPasswordTitle,
            status: 410,
            body: <Notice kind="error" text={t.linkInvalid} />,
          });
        }
        return setPasswordPage(request, reply, token);
      },
    );

    app.post('/set-password', { config: { panelAccess: 'public' } }, async (request, reply) => {
      const t = signInMessages[request.panel.lang];
      const body = setPasswordBody.safeParse(request.body ?? {});
      const input = body.success ? body.data : { token: '', password: '' };
      const result = await deps.users.setPasswordWithLink(input.token, input.password);
      if (result.ok) {
        // Signed out, the user is known by the link: the row names them, from this address.
        const user = await deps.users.user(result.userId);
        await auditedAs(
          request,
          deps,
          { kind: 'user', userId: user.id, email: user.email, address: request.ip },
          { action: 'user.password-set', accountId: user.accountId, object: { type: 'user', id: user.id } },
        );
        return reply.redirect('/panel/sign-in?done=password-set', 303);
      }
      if (result.reason === 'invalid-link')
        return sendPage(request, reply, {
          title: t.setPasswordTitle,
          status: 410,
          body: <Notice kind="error" text={t.linkInvalid} />,
        });
      return setPasswordPage(request, reply, input.token, result.reason === 'too-short' ? t.tooShort : t.tooLong, 400);
    });
  },
};
