import type { ResultCode } from './result-codes.js';

/**
 * The permission fields of /auth/post/check/. `manage_groups` is not stored: it is the old
 * name of `create_group` and always mirrors it. `delete_contact` has no panel equivalent
 * and guards no documented endpoint, but is kept so that the check response has all 16.
 */
export const permissionNames = [
  'post_request',
  'send_single_sms',
  'send_group_sms',
  'send_otp',
  'send_otp_advanced',
  'create_group',
  'edit_group',
  'delete_group',
  'list_groups',
  'add_contact',
  'delete_contact',
  'block_number',
  'check_balance',
  'check_sms_status',
  'check_senderid',
  // Additive: the İYS consent endpoints. Keys stored before it lack it: off.
  'manage_iys',
  // Additive: a reseller's /subaccounts/... endpoints (its account must be a reseller too).
  'manage_subaccounts',
] as const;

export type Permission = (typeof permissionNames)[number];
export type PermissionSet = Record<Permission, boolean>;

/** The code a request gets when the named permission is off (spec, Authentication). */
export const permissionOffCode: Record<Permission, ResultCode> = {
  post_request: 'TS-1061',
  send_single_sms: 'TS-1062',
  send_group_sms: 'TS-1067',
  send_otp: 'TS-1036',
  send_otp_advanced: 'TS-1037',
  create_group: 'TS-1081',
  edit_group: 'TS-1084',
  delete_group: 'TS-1085',
  list_groups: 'TS-1089',
  add_contact: 'TS-1065',
  delete_contact: 'TS-1065',
  block_number: 'TS-1065',
  check_balance: 'TS-1065',
  check_sms_status: 'TS-1063',
  check_senderid: 'TS-1038',
  manage_iys: 'TS-1065',
  manage_subaccounts: 'TS-1065',
};

export function isPermission(name: string): name is Permission {
  return (permissionNames as readonly string[]).includes(name);
}

export function allPermissions(value: boolean): PermissionSet {
  return Object.fromEntries(permissionNames.map((p) => [p, value])) as PermissionSet;
}

/** Parses `all` or a comma-separated list of names (`manage_groups` means `create_group`). */
export function parsePermissionList(text: string): PermissionSet | { unknown: string } {
  if (text.trim() === 'all') return allPermissions(true);
  const set = allPermissions(false);
  for (const raw of text.split(',')) {
    const name = raw.trim() === 'manage_groups' ? 'create_group' : raw.trim();
    if (name === '') continue;
    if (!isPermission(name)) return { unknown: name };
    set[name] = true;
  }
  return set;
}

/** The booleans of the check response: the spec's 16 in its order, then the additive ones. */
export function permissionFields(set: PermissionSet): Record<Permission | 'manage_groups', boolean> {
  const out: Record<string, boolean> = {};
  for (const name of permissionNames) {
    out[name] = set[name] === true;
    if (name === 'create_group') out.manage_groups = set.create_group;
  }
  return out as Record<Permission | 'manage_groups', boolean>;
}
