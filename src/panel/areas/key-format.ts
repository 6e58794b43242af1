/** How keys are shown: state names, permissions by their panel names, times in Istanbul. */
import type { Lang } from '../i18n/messages.js';
import { keysMessages, permissionMessages } from '../i18n/keys.js';
import { common } from '../i18n/common.js';
import type { KeyView } from '../../services/admin.js';
import type { KeyState } from '../../domain/api-key.js';
import type { Permission } from '../../domain/permissions.js';
import { permissionNames } from '../../domain/permissions.js';
import { NotFoundForAccount } from '../../services/account-panel.js';

/** The permissions the panel shows: every one with a panel name (delete_contact has none). */
export const panelPermissions: readonly Permission[] = permissionNames.filter((p) => p !== 'delete_contact');

export function stateLabel(lang: Lang, state: KeyState): string {
  const t = keysMessages[lang];
  return { Active: t.stateActive, Paused: t.statePaused, Expired: t.stateExpired, Revoked: t.stateRevoked }[state];
}

export function permissionsText(lang: Lang, key: Pick<KeyView, 'permissions'>): string {
  const on = panelPermissions.filter((p) => key.permissions[p]);
  if (on.length === panelPermissions.length) return keysMessages[lang].allPermissions;
  if (on.length === 0) return common[lang].none;
  return on.map((p) => permissionMessages[lang][p]).join(', ');
}

export function dateTime(iso: string | null, lang: Lang): string {
  if (iso === null) return common[lang].never;
  return new Intl.DateTimeFormat(lang === 'tr' ? 'tr-TR' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'Europe/Istanbul',
  }).format(new Date(iso));
}

export type IdParams = { Params: { id: string } };

/** A path id: anything but a plain number is a page that does not exist. */
export function idOf(raw: string): number {
  if (!/^\d{1,9}$/.test(raw)) throw new NotFoundForAccount(`no such id ${raw}`);
  return Number(raw);
}
