import { z } from 'zod';
import { commonStatuses } from './endpoint.js';
import type { KeyRule, StatusMap } from './endpoint.js';
import { numberFieldTooShort } from '../domain/recipients.js';
import { numberText } from './fields.js';

/** The blocking endpoints' key rule: at least 20 characters; missing is TS-1050, short TS-1031. */
export const blacklistKey: KeyRule = { min: 20, max: 128, missing: 'TS-1050', malformed: 'TS-1031' };

/** The spec's rows for /blacklist/post/add and /blacklist/post/status (TS-404 is the router's). */
export const blacklistStatuses: StatusMap = {
  ...commonStatuses,
  'TS-1025': 400,
  'TS-1144': 400,
  'TS-1140': 400,
  'TS-1033': 400,
  'TS-1031': 401,
  'TS-1050': 403,
  'TS-1065': 403,
};

/**
 * `number`: present and at least 7 characters as sent (TS-1025); whether it is a Türkiye
 * mobile number (TS-1144) is the service's check.
 */
export const blacklistRequest = z.object({
  number: numberText.refine((n) => !numberFieldTooShort(n), 'TS-1025'),
});

/** What the two blocking endpoints share: all but their path, summary and handler. */
export const blacklistEndpoint = {
  envelope: 'status',
  key: blacklistKey,
  invalidBody: 'TS-1050',
  accountInactive: 'TS-1031',
  serverError: 'SRV-ERR',
  permissions: ['block_number'],
  limited: true,
  statuses: blacklistStatuses,
  request: blacklistRequest,
} as const;
