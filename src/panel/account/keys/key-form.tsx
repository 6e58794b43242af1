/** The settings form of a key (create and edit): permissions, limits, allowlist, expiry. */
import type { PanelState } from '../../context.js';
import { FieldError, InputField, TextAreaField } from '../../kit/fields.js';
import { allowlist, date, field, limit, list } from '../../kit/forms.js';
import { keyDetailMessages } from './key-catalogue.js';
import { permissionMessages } from './catalogue.js';
import type { KeySettings } from '../../../ports/keys.js';
import type { PermissionSet } from '../../../domain/permissions.js';
import { allPermissions, isPermission } from '../../../domain/permissions.js';
import { panelPermissions } from './permissions.js';

export type KeyFormField = 'permissions' | 'hourly' | 'daily' | 'monthly' | 'ipAllow' | 'expires';
export type KeyFormErrors = Partial<Record<KeyFormField, string>>;

/** What the form shows: the key's values, or what was posted when it comes back with errors. */
export interface KeyFormValues {
  permissions: PermissionSet;
  hourly: string;
  daily: string;
  monthly: string;
  ipAllow: string;
  expires: string;
}

export function formValuesOf(
  s: Pick<KeySettings, 'permissions' | 'hourlyLimit' | 'dailyLimit' | 'monthlyLimit' | 'ipAllow' | 'expiresOn'>,
): KeyFormValues {
  const n = (v: number): string => (v > 0 ? String(v) : '');
  return {
    permissions: s.permissions,
    hourly: n(s.hourlyLimit),
    daily: n(s.dailyLimit),
    monthly: n(s.monthlyLimit),
    ipAllow: s.ipAllow.join('\n'),
    expires: s.expiresOn ?? '',
  };
}

export function postedValues(form: unknown, keep: PermissionSet): KeyFormValues {
  const chosen = new Set(list(form, 'permissions'));
  const permissions = { ...keep };
  for (const p of panelPermissions) permissions[p] = chosen.has(p);
  return {
    permissions,
    hourly: field(form, 'hourly_limit'),
    daily: field(form, 'daily_limit'),
    monthly: field(form, 'monthly_limit'),
    ipAllow: field(form, 'ip_allow'),
    expires: field(form, 'expires'),
  };
}

type KeyFormPatch = Pick<
  KeySettings,
  'permissions' | 'hourlyLimit' | 'dailyLimit' | 'monthlyLimit' | 'ipAllow' | 'expiresOn'
>;

/**
 * The settings in a posted form, or the errors by field. Permissions without a panel name
 * (delete_contact) keep `keep`'s value.
 */
export function readKeyForm(
  form: unknown,
  keep: PermissionSet,
  state: PanelState,
): { ok: KeyFormPatch } | { errors: KeyFormErrors; values: KeyFormValues } {
  const t = keyDetailMessages[state.lang];
  const values = postedValues(form, keep);
  const errors: KeyFormErrors = {};
  for (const raw of list(form, 'permissions')) if (!isPermission(raw)) errors.permissions = t.errPermissions;
  if (!panelPermissions.some((p) => values.permissions[p])) errors.permissions = t.errPermissions;
  const hourly = limit(values.hourly);
  const daily = limit(values.daily);
  const monthly = limit(values.monthly);
  if (hourly === null) errors.hourly = t.errLimit;
  if (daily === null) errors.daily = t.errLimit;
  if (monthly === null) errors.monthly = t.errLimit;
  const ips = allowlist(values.ipAllow);
  if ('bad' in ips) errors.ipAllow = t.errAllowlist(ips.bad);
  const expires = date(values.expires);
  if ('bad' in expires) errors.expires = t.errExpires;
  if (
    Object.keys(errors).length > 0 ||
    hourly === null ||
    daily === null ||
    monthly === null ||
    'bad' in ips ||
    'bad' in expires
  )
    return { errors, values };
  return {
    ok: {
      permissions: values.permissions,
      hourlyLimit: hourly,
      dailyLimit: daily,
      monthlyLimit: monthly,
      ipAllow: ips.ok,
      expiresOn: expires.ok,
    },
  };
}

export const newKeyPermissions = (): PermissionSet => ({ ...allPermissions(true), delete_contact: false });

export function KeySettingsFields(props: { state: PanelState; values: KeyFormValues; errors: KeyFormErrors }) {
  const { state, values, errors } = props;
  const t = keyDetailMessages[state.lang];
  const p = permissionMessages[state.lang];
  const numberField = (id: 'hourly' | 'daily' | 'monthly', name: string, label: string, value: string) => (
    <InputField
      id={`key-${id}`}
      name={name}
      type="number"
      label={label}
      value={value}
      hint={t.limitHint}
      error={errors[id]}
      state={state}
      attributes={{ min: 0, step: 1, inputMode: 'numeric' }}
    />
  );
  return (
    <>
      <fieldset aria-describedby={errors.permissions ? 'key-permissions-error' : undefined}>
        <legend>{t.permissions}</legend>
        <div class="checks">
          {panelPermissions.map((name) => (
            <label key={name}>
              <input type="checkbox" name="permissions" value={name} checked={values.permissions[name]} />
              {p[name]}
            </label>
          ))}
        </div>
        <FieldError id="key-permissions-error" text={errors.permissions} state={state} />
      </fieldset>
      {numberField('hourly', 'hourly_limit', t.hourlyLimit, values.hourly)}
      {numberField('daily', 'daily_limit', t.dailyLimit, values.daily)}
      {numberField('monthly', 'monthly_limit', t.monthlyLimit, values.monthly)}
      <TextAreaField
        id="key-ipAllow"
        name="ip_allow"
        label={t.ipAllow}
        rows={3}
        value={values.ipAllow}
        hint={t.ipAllowHint}
        error={errors.ipAllow}
        state={state}
      />
      <InputField
        id="key-expires"
        name="expires"
        type="date"
        label={t.expires}
        value={values.expires}
        hint={t.expiresHint}
        error={errors.expires}
        state={state}
      />
    </>
  );
}
