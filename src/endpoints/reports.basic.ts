import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { reportSummaryReply } from './replies.js';
import { raporIdField, reportKey, reportStatuses } from './reports-common.js';
import { ok } from '../domain/result.js';

/** POST /reports/basic: the summary of a group send or a scheduled /sms/send. */
export const reportsBasic = defineEndpoint({
  path: '/reports/basic',
  summary: 'Summary counters of a campaign',
  reply: reportSummaryReply,
  envelope: 'status',
  omitMessageOnSuccess: true,
  key: reportKey,
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['post_request', 'check_sms_status'],
  limited: true,
  statuses: reportStatuses,
  request: z.object({ raporid: raporIdField }),
  async handle({ body, caller, services }) {
    const summary = await services.reports.summary(caller.account.id, body.raporid);
    if (!summary.ok) return summary;
    return ok({ code: 'TS-1064', fields: summary.value });
  },
});
