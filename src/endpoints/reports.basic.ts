import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { reportSummaryReply } from './replies.js';
import { raporIdField, reportCommon } from './reports-common.js';
import { ok } from '../domain/result.js';

/** POST /reports/basic: the summary of a group send or a scheduled /sms/send. */
export const reportsBasic = defineEndpoint({
  path: '/reports/basic',
  summary: 'Summary counters of a campaign',
  reply: reportSummaryReply,
  ...reportCommon,
  request: z.object({ raporid: raporIdField }),
  async handle({ body, caller, services }) {
    const summary = await services.reports.summary(caller.account.id, body.raporid);
    if (!summary.ok) return summary;
    return ok({ code: 'TS-1064', fields: summary.value });
  },
});
