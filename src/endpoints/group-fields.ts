import { z } from 'zod';
import { ourStatuses } from './endpoint.js';
import type { StatusMap } from './endpoint.js';
import { codedDetail, coded, integerField, storableText } from './fields.js';
import { groupName, maxGroupNameLength } from '../domain/contacts.js';

/**
 * What the five group and contact endpoints share. The spec shows their permissions and
 * response fields only; request fields, result codes and statuses are ours
 * (docs/decisions.md, docs/api.md), modelled on /sms/send: bad fields 400, key 401, account
 * and permission 403, and a failed result with HTTP 200 for a duplicate name or a group
 * the account does not have.
 */
export const groupStatuses: StatusMap = {
  ...ourStatuses,
  'TS-1033:duplicate': 200,
  'TS-1029': 400,
  'TS-1029:not-found': 200,
};

/** `group_id`: the `id` of /groups/create and /groups/list; missing or not a positive integer is TS-1029. */
export const groupIdField = integerField('TS-1029').refine((n) => n > 0, 'TS-1029');

/** `name`: 1 to 100 characters once surrounding whitespace is removed; TS-1033 otherwise. */
export const groupNameField = z
  .string(coded('TS-1033'))
  .transform(groupName)
  .refine((n) => n !== '', codedDetail('TS-1033', 'name is missing or empty'))
  .refine(
    (n) => n.length <= maxGroupNameLength,
    codedDetail('TS-1033', `name is longer than ${maxGroupNameLength} characters`),
  )
  .superRefine(storableText('TS-1033', 'name'));
