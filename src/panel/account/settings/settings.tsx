/** The account: its users, its IP allowlist, the user's password and sessions, and its latest activity. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { InputField, NewPasswordField, Notice, TextAreaField } from '../../kit/fields.js';
import { PostForm } from '../../kit/post-form.js';
import { Table } from '../../kit/table.js';
import { AuditTable } from '../../kit/audit-table.js';
import { allowlist, field, queryOf } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { kitText } from '../../kit/text.js';
import { setSessionCookie } from '../../security.js';
import { accountMessages } from './catalogue.js';
import type { UserView } from '../../../services/panel/users.js';
import { controlsInput, parseControls } from '../../../services/panel/account/send-shaping.js';
import type { ControlsField, ControlsInput } from '../../../services/panel/account/send-shaping.js';
import { ControlsFieldset, controlsErrorText, controlsOf, controlsText } from '../send/controls.js';
import { found } from '../../kit/not-found.js';

interface AccountErrors {
  allowlist?: { value: string; error: string };
  defaults?: { value: ControlsInput; errors: Partial<Record<ControlsField, string>> };
  current?: string;
  next?: string;
}

function PasswordForm(props: { request: FastifyRequest; errors: AccountErrors }) {
  const { errors } = props;
  const state = props.request.panel;
  const t = accountMessages[state.lang];
  return (
    <PostForm action="/panel/account/password" state={state} class="stack">
      <InputField
        id="current-password"
        name="current_password"
        type="password"
        label={t.currentPassword}
        error={errors.current}
        state={state}
        attributes={{ autocomplete: 'current-password', required: true }}
      />
      <NewPasswordField
        name="new_password"
        label={t.newPassword}
        hint={t.newPasswordHint}
        error={errors.next}
        state={state}
      />
      <div>
        <button type="submit">{t.changePassword}</button>
      </div>
    </PostForm>
  );
}

async function page(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  errors: AccountErrors = {},
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = accountMessages[lang];
  const mine = door.of(request).account;
  const [account, users, activity, defaults] = await Promise.all([
    found(mine.view()),
    mine.users(),
    mine.activity(20),
    mine.sendDefaults(),
  ]);
  const query = queryOf(request.query);
  const done =
    query.done === 'allowlist'
      ? t.allowlistSaved
      : query.done === 'password'
        ? t.passwordChanged
        : query.done === 'send-defaults'
          ? t.sendDefaultsSaved
          : undefined;
  const failed =
    errors.allowlist !== undefined ||
    errors.current !== undefined ||
    errors.next !== undefined ||
    errors.defaults !== undefined;
  const userState = (u: UserView): string =>
    u.status === 'disabled' ? t.userDisabled : u.password_set ? t.userActive : t.userNoPassword;
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
        <Table<UserView>
          rows={users}
          rowKey={(u) => u.id}
          columns={[
            {
              header: t.colEmail,
              rowHeader: true,
              cell: (u) => (
                <>
                  {u.email} {u.id === state.user?.id ? t.you : ''}
                </>
              ),
            },
            { header: t.colState, cell: userState },
            { header: t.colCreated, cell: (u) => dateTime(u.created_at, lang) },
          ]}
        />
        <p class="muted">{t.usersHint}</p>

        <h2>{t.allowlist}</h2>
        <PostForm action="/panel/account/allowlist" state={state} class="stack">
          <TextAreaField
            id="account-allowlist"
            name="ip_allow"
            label={t.allowlistField}
            rows={3}
            value={errors.allowlist?.value ?? account.ip_allow.join('\n')}
            hint={t.allowlistHint}
            error={errors.allowlist?.error}
            state={state}
          />
          <div>
            <button type="submit">{t.saveAllowlist}</button>
          </div>
        </PostForm>

        <h2>{t.sendDefaults}</h2>
        <p>{t.sendDefaultsIntro}</p>
        <p id="send-defaults-now">{defaults === null ? t.sendDefaultsNone : controlsText(lang, defaults)}</p>
        <PostForm action="/panel/account/send-defaults" state={state} class="stack">
          <ControlsFieldset
            lang={lang}
            state={state}
            value={errors.defaults?.value ?? controlsInput(defaults)}
            errors={errors.defaults?.errors ?? {}}
            id="defaults"
            legend={t.sendDefaultsLegend}
          />
          <div>
            <button type="submit">{t.saveSendDefaults}</button>
          </div>
        </PostForm>

        <h2>{t.password}</h2>
        <PasswordForm request={request} errors={errors} />

        <h2>{t.sessions}</h2>
        <PostForm action="/panel/sign-out-everywhere" state={state} class="stack">
          <p>{t.sessionsHint}</p>
          <div>
            <button type="submit" class="secondary">
              {kitText[lang].signOutEverywhere}
            </button>
          </div>
        </PostForm>

        <h2>{t.activity}</h2>
        <p class="muted">{t.activityIntro}</p>
        {activity.length === 0 ? (
          <p>{t.activityNone}</p>
        ) : (
          <AuditTable
            entries={activity}
            lang={lang}
            withAccount={false}
            withAddress={false}
            actor={(e) => (e.byProvider ? t.providerActor : e.actor)}
          />
        )}
      </>
    ),
  });
}

export const settingsArea: AccountArea = pageArea({
  name: 'settings',
  path: '/account',
  messages: accountMessages,
  order: 90,
  page,
  routes(app, door) {
    app.post('/account/allowlist', async (request, reply) => {
      const raw = field(request.body, 'ip_allow');
      const parsed = allowlist(raw);
      if ('bad' in parsed)
        return page(request, reply, door, {
          allowlist: { value: raw, error: accountMessages[request.panel.lang].errAllowlist(parsed.bad) },
        });
      await found(door.of(request).account.setAllowlist(parsed.ok));
      return reply.redirect('/panel/account?done=allowlist', 303);
    });

    app.post('/account/send-defaults', async (request, reply) => {
      const value = controlsOf(request.body);
      const parsed = parseControls(value);
      if (!parsed.ok) {
        const lang = request.panel.lang;
        const errs = Object.fromEntries(parsed.errors.map((f) => [f, controlsErrorText(lang, f)]));
        return page(request, reply, door, { defaults: { value, errors: errs } });
      }
      await found(door.of(request).account.setSendDefaults(parsed.controls));
      return reply.redirect('/panel/account?done=send-defaults', 303);
    });

    app.post('/account/password', async (request, reply) => {
      const t = accountMessages[request.panel.lang];
      const changed = await door
        .of(request)
        .changePassword(field(request.body, 'current_password'), field(request.body, 'new_password'));
      if (!changed.ok) {
        if (changed.reason === 'wrong-current') return page(request, reply, door, { current: t.errCurrent });
        return page(request, reply, door, { next: changed.reason === 'too-short' ? t.errShort : t.errLong });
      }
      setSessionCookie(request, reply, changed.token);
      return reply.redirect('/panel/account?done=password', 303);
    });
  },
});
