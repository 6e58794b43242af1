/** A key's facts, and (unless revoked) its settings form and its state actions. */
import type { FastifyRequest } from 'fastify';
import { PostForm, RowAction } from '../../kit/post-form.js';
import { dateTime, stateLabel } from '../../kit/format.js';
import { keyDetailMessages } from './key-catalogue.js';
import { kitText } from '../../kit/text.js';
import type { Lang } from '../../catalogue.js';
import { KeySettingsFields, formValuesOf } from './key-form.js';
import type { KeyFormErrors, KeyFormValues } from './key-form.js';
import type { PanelKeyView } from '../../../services/panel/account/keys.js';

export function Facts(props: { k: PanelKeyView; lang: Lang }) {
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
export function Settings(props: {
  request: FastifyRequest;
  k: PanelKeyView;
  form: { values: KeyFormValues; errors: KeyFormErrors } | undefined;
}) {
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
