import { z } from 'zod';
import { commonStatuses } from './endpoint.js';
import type { KeyRule, StatusMap } from './endpoint.js';
import { integerField } from './fields.js';

/** The spec's error table row shared by /reports/basic and /reports/detailed. */
export const reportStatuses: StatusMap = {
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

export const reportKey: KeyRule = { min: 30, max: 128, missing: 'TS-1050', malformed: 'TS-1050' };

/** raporid: required integer; missing or not a number is TS-1029. */
export const raporIdField = z.preprocess(
  (v) => (v === undefined || v === null || v === '' ? undefined : v),
  integerField('TS-1029'),
);
