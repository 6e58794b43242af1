import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { reportPageReply } from './replies.js';
import { integerField } from './fields.js';
import { raporIdField, reportCommon } from './reports-common.js';
import { ok } from '../domain/result.js';

/** POST /reports/detailed: a campaign's recipients, 500 per page. */
export const reportsDetailed = defineEndpoint({
  path: '/reports/detailed',
  summary: 'Per-recipient rows of a campaign, 500 per page',
  reply: reportPageReply,
  ...reportCommon,
  request: z.object({
    raporid: raporIdField,
    page: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? 1 : v),
      integerField('TS-1033').refine((p) => p >= 1, 'TS-1033'),
    ),
  }),
  async handle({ body, caller, services }) {
    const page = await services.reports.page(caller.account.id, body.raporid, body.page);
    if (!page.ok) return page;
    return ok({ code: 'TS-1064', fields: page.value });
  },
});
