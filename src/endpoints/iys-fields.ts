import { z } from 'zod';
import { ourStatuses, smsSendRules } from './endpoint.js';
import type { StatusMap } from './endpoint.js';
import { coded, integerField } from './fields.js';
import { recipientTypes } from '../domain/iys.js';

const iysStatuses: StatusMap = {
  ...ourStatuses,
  'TS-1025': 400,
  'TS-1060': 400,
  'TS-1065': 403,
};

/** What the İYS endpoints declare alike: envelope, key rule, codes, the permission. */
export const iysCommon = {
  ...smsSendRules,
  permissions: ['manage_iys'],
  statuses: iysStatuses,
} as const;

export const recipientTypeField = z.enum(recipientTypes, coded('TS-1033'));

/**
 * The optional fields of a commercial send (../shared/interfaces.md): `iys` 0 or 1 and
 * `iys_recipient_type` (BIREYSEL by default). Anything else is TS-1033.
 */
export const commercialFields = {
  iys: integerField('TS-1033')
    .refine((v) => v === 0 || v === 1, 'TS-1033')
    .optional(),
  iys_recipient_type: recipientTypeField.optional(),
};

/** The recipient type of a commercial send, or null for a send that is not commercial. */
export function commercialType(body: { iys?: number; iys_recipient_type?: 'BIREYSEL' | 'TACIR' }) {
  return body.iys === 1 ? (body.iys_recipient_type ?? 'BIREYSEL') : null;
}
