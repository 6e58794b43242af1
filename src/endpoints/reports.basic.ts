import { z } from 'zod';
import { answered, defineEndpoint } from './endpoint.js';
import { reportSummaryReply } from './replies.js';
import { raporIdField, reportCommon } from './reports-common.js';

/** POST /reports/basic: the summary of a group send or a scheduled /sms/send. */
export const reportsBasic = defineEndpoint({
  path: '/reports/basic',
  summary: 'Summary counters of a campaign',
  reply: reportSummaryReply,
  ...reportCommon,
  request: z.object({ raporid: raporIdField }),
  async handle({ body, caller, services }) {
    return answered('TS-1064', await services.reports.summary(caller.account.id, body.raporid));
  },
});
