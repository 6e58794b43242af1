import { z } from 'zod';
import { answered, commonStatuses, defineEndpoint } from './endpoint.js';
import type { Endpoint, KeyRule, StatusMap } from './endpoint.js';
import { integerField } from './fields.js';
import type { ReplyShape } from './replies.js';
import type { Services } from '../services/services.js';
import type { Result } from '../domain/result.js';

/**
 * /group/cancel, /group/pause, /group/resume (../shared/interfaces.md, "Campaign controls"):
 * the key and error rows of /group/send, and a report id as /reports/basic takes it (missing
 * or not a number: TS-1029, HTTP 400; no such report of the caller: TS-1029, HTTP 200).
 */
export const groupControlStatuses: StatusMap = {
  ...commonStatuses,
  'TS-1033': 400,
  'TS-1025': 400,
  'TS-1029': 400,
  'TS-1029:not-found': 200,
  'TS-1031': 403,
  'TS-1067': 403,
  'TS-1030': 403,
};

export const groupControlKey: KeyRule = { min: 30, max: 128, missing: 'TS-1025', malformed: 'TS-1025' };

export const groupControlRequest = z.object({
  rapor_id: z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? undefined : v),
    integerField('TS-1029').refine((n) => n > 0, 'TS-1029'),
  ),
});

/** One of the /group/* controls: the same key, fields, permission and refusals, one service call. */
export function groupControl<F extends object>(endpoint: {
  path: string;
  summary: string;
  reply: ReplyShape;
  run: (services: Services, accountId: number, raporId: number) => Promise<Result<F>>;
}): Endpoint<typeof groupControlRequest> {
  return defineEndpoint({
    path: endpoint.path,
    summary: endpoint.summary,
    reply: endpoint.reply,
    envelope: 'result',
    key: groupControlKey,
    invalidBody: 'TS-1033',
    serverError: 'SRV-ERR',
    permissions: ['send_group_sms'],
    limited: true,
    statuses: groupControlStatuses,
    request: groupControlRequest,
    async handle({ body, caller, services }) {
      return answered('TS-1064', await endpoint.run(services, caller.account.id, body.rapor_id));
    },
  });
}
