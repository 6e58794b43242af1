import { z } from 'zod';
import { commonStatuses, smsSendKey } from './endpoint.js';
import type { StatusMap } from './endpoint.js';
import { integerField } from './fields.js';

/** The spec's error table row shared by /reports/basic and /reports/detailed. */
const reportStatuses: StatusMap = {
  ...commonStatuses,
  'TS-1029': 400,
  'TS-1029:not-found': 200,
  'TS-1033': 400,
  'TS-1050': 400,
  'TS-1031': 400,
  'TS-1061': 400,
  'TS-1063': 400,
  'TS-1030': 400,
};

/** What /reports/basic and /reports/detailed declare alike: envelope, key rule, codes, permissions. */
export const reportCommon = {
  envelope: 'status',
  omitMessageOnSuccess: true,
  key: smsSendKey,
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['post_request', 'check_sms_status'],
  limited: true,
  statuses: reportStatuses,
} as const;

/** raporid: required integer; missing or not a number is TS-1029. */
export const raporIdField = z.preprocess(
  (v) => (v === undefined || v === null || v === '' ? undefined : v),
  integerField('TS-1029'),
);
