/** Signing in and out, and set-password links: the pages of both sides' users, and of no one signed in yet. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { PanelArea } from '../context.js';
import { actorOf } from '../context.js';
import { sendPage } from '../layout.js';
import { Field, FieldError, NewPasswordField, Notice, described } from '../kit/fields.js';
import { PostForm } from '../kit/post-form.js';
import { signInMessages } from './catalogue.js';
import { clearSessionCookie, setSessionCookie } from '../security.js';
import { panelPath } from '../paths.js';
import type { UserService } from '../../services/panel/users.js';

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
        <PostForm action="/panel/sign-in" state={state} class="stack">
          <input type="hidden" name="next" value={next} />
          {/* One error for both fields, under the second: which of the two was wrong is not said. */}
          <Field id="email" label={t.email} state={state}>
            <input
              id="email"
              name="email"
              type="email"
              value={notes.email ?? ''}
              autocomplete="username"
              required
              {...described('sign-in', notes.error)}
            />
          </Field>
          <Field id="password" label={t.password} state={state}>
            <input
              id="password"
              name="password"
              type="password"
              autocomplete="current-password"
              required
              {...described('sign-in', notes.error)}
            />
            <FieldError id="sign-in-error" text={notes.error} state={state} />
          </Field>
          <div>
            <button type="submit">{t.submit}</button>
          </div>
        </PostForm>
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
      <PostForm action="/panel/set-password" state={state} class="stack">
        <input type="hidden" name="token" value={token} />
        <NewPasswordField name="password" label={t.newPassword} error={error} state={state} />
        <div>
          <button type="submit">{t.setPasswordSubmit}</button>
        </div>
      </PostForm>
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

/** The sign-in pages' area: its door is the sessions service. */
export const sessionArea: PanelArea<UserService> = {
  name: 'session',
  routes(app, sessions) {
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
      const brandOf = request.panel.brand?.accountId ?? null;
      const result = await sessions.signIn(input.email, input.password, request.ip, brandOf);
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
      if (token !== null) await sessions.signOut(token);
      clearSessionCookie(request, reply);
      return reply.redirect('/panel/sign-in?done=signed-out', 303);
    });

    app.post('/sign-out-everywhere', { config: { panelAccess: 'signed-in' } }, async (request, reply) => {
      if (request.panel.user) await sessions.signOutEverywhere(actorOf(request));
      clearSessionCookie(request, reply);
      return reply.redirect('/panel/sign-in?done=signed-out', 303);
    });

    app.get<{ Querystring: { token?: string } }>(
      '/set-password',
      { config: { panelAccess: 'public' } },
      async (request, reply) => {
        const token = request.query.token ?? '';
        if (!(await sessions.linkValid(token))) {
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
      const result = await sessions.setPasswordWithLink(input.token, input.password, request.ip);
      if (result.ok) return reply.redirect('/panel/sign-in?done=password-set', 303);
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
