/** The permission table of the spec (Authentication) and the admin CLI's permission lists. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  allPermissions,
  isPermission,
  parsePermissionList,
  permissionFields,
  permissionNames,
  permissionOffCode,
} from '../../src/domain/permissions.js';
import type { PermissionSet } from '../../src/domain/permissions.js';

function set(list: string): PermissionSet {
  const parsed = parsePermissionList(list);
  if ('unknown' in parsed) throw new Error(`unexpected unknown permission ${parsed.unknown}`);
  return parsed;
}

function on(s: PermissionSet): string[] {
  return Object.entries(s)
    .filter(([, v]) => v)
    .map(([k]) => k)
    .sort();
}

describe('permissions', () => {
  describe('parsePermissionList', () => {
    it('all turns every permission on', () => {
      assert.deepEqual(set('all'), allPermissions(true));
      assert.deepEqual(set(' all '), allPermissions(true));
    });

    it('a list turns on exactly the named ones', () => {
      assert.deepEqual(on(set('send_single_sms,check_balance')), ['check_balance', 'send_single_sms']);
      assert.deepEqual(on(set(' send_otp , check_senderid ')), ['check_senderid', 'send_otp']);
    });

    it('manage_groups is the old name of create_group', () => {
      assert.deepEqual(on(set('manage_groups')), ['create_group']);
      assert.deepEqual(on(set('manage_groups,create_group')), ['create_group']);
    });

    it('delete_contact can be granted though no endpoint checks it', () => {
      assert.deepEqual(on(set('delete_contact')), ['delete_contact']);
    });

    it('an empty list grants nothing', () => {
      assert.deepEqual(set(''), allPermissions(false));
      assert.deepEqual(set(' , '), allPermissions(false));
    });

    const unknownCases: [string, string][] = [
      ['send_sms', 'send_sms'],
      ['check_balance,Check_Senderid', 'Check_Senderid'],
      ['ALL', 'ALL'],
      ['all,check_balance', 'all'],
      ['check balance', 'check balance'],
      ['__proto__', '__proto__'],
      ['toString', 'toString'],
    ];
    for (const [list, unknown] of unknownCases) {
      it(`names the unknown permission in ${JSON.stringify(list)}`, () => {
        assert.deepEqual(parsePermissionList(list), { unknown });
      });
    }
  });

  describe('permissionFields', () => {
    const fields = [
      'post_request',
      'send_single_sms',
      'send_group_sms',
      'send_otp',
      'send_otp_advanced',
      'create_group',
      'manage_groups',
      'edit_group',
      'delete_group',
      'list_groups',
      'add_contact',
      'delete_contact',
      'block_number',
      'check_balance',
      'check_sms_status',
      'check_senderid',
      // Not in the spec's table: ../shared/interfaces.md's permission of the İYS endpoints.
      'manage_iys',
      // ../shared/interfaces.md, "Resellers".
      'manage_subaccounts',
    ];

    it('has the 16 booleans of the check response, manage_iys and manage_subaccounts', () => {
      assert.deepEqual(Object.keys(permissionFields(allPermissions(true))).sort(), [...fields].sort());
      assert.equal(permissionNames.length, 17);
    });

    it('manage_groups mirrors create_group', () => {
      assert.equal(permissionFields(set('create_group')).manage_groups, true);
      assert.equal(permissionFields(set('check_balance')).manage_groups, false);
    });

    it('reports each permission as set', () => {
      const f = permissionFields(set('post_request,check_sms_status'));
      assert.deepEqual(
        Object.entries(f)
          .filter(([, v]) => v)
          .map(([k]) => k)
          .sort(),
        ['check_sms_status', 'post_request'],
      );
    });
  });

  describe('permissionOffCode', () => {
    it('is the spec table of codes when a permission is off', () => {
      assert.deepEqual(
        { ...permissionOffCode },
        {
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
        },
      );
    });
  });

  describe('isPermission', () => {
    it('knows the stored names only', () => {
      assert.equal(isPermission('check_balance'), true);
      assert.equal(isPermission('manage_groups'), false);
      assert.equal(isPermission('constructor'), false);
    });
  });
});
