/** Permissions as the panel shows them: by their panel names (spec, Authentication). */
import type { Lang } from '../../catalogue.js';
import { kitText } from '../../kit/text.js';
import { keysMessages, permissionMessages } from './catalogue.js';
import type { KeyView } from '../../../services/admin.js';
import type { Permission } from '../../../domain/permissions.js';
import { permissionNames } from '../../../domain/permissions.js';

/** The permissions the panel shows: every one with a panel name (delete_contact has none). */
export const panelPermissions: readonly Permission[] = permissionNames.filter((p) => p !== 'delete_contact');

export function permissionsText(lang: Lang, key: Pick<KeyView, 'permissions'>): string {
  const on = panelPermissions.filter((p) => key.permissions[p]);
  if (on.length === panelPermissions.length) return keysMessages[lang].allPermissions;
  if (on.length === 0) return kitText[lang].none;
  return on.map((p) => permissionMessages[lang][p]).join(', ');
}
