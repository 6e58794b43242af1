import { z } from 'zod';
import { commonStatuses, defineEndpoint, smsSendRules } from './endpoint.js';
import { otpVerifyReply } from './replies.js';
import { codedDetail, smsIdField } from './fields.js';
import { offeredCode } from '../domain/otp-check.js';
import { ok } from '../domain/result.js';

/** Field order is check order: sms_id (TS-1052, as /sms/status), then code (TS-1033). */
const request = z.object({
  sms_id: smsIdField,
  code: z.unknown().transform((raw, ctx) => {
    const code = offeredCode(raw);
    if (code !== null) return code;
    ctx.addIssue({ code: 'custom', ...codedDetail('TS-1033', 'code must be the digits that were sent') });
    return z.NEVER;
  }),
});

/**
 * POST /otp/verify (../shared/interfaces.md): checks a code sent by /otp/send or
 * /otp/detailed with this account. A checked code is answered `result` true with `verified`
 * true (TS-1064) or false and why (TS-1090 wrong, TS-1091 expired, TS-1092 already used,
 * TS-1093 too many tries); an sms_id that is no OTP of the account is TS-1020. No
 * permission of the spec's sixteen is needed: nothing is sent or charged, and only the
 * account's own codes are reached (docs/decisions.md, "One-time passwords").
 */
export const otpVerify = defineEndpoint({
  path: '/otp/verify',
  summary: 'Check a one-time code sent with this account (verified true or false)',
  reply: otpVerifyReply,
  ...smsSendRules,
  permissions: [],
  statuses: {
    ...commonStatuses,
    'TS-1033': 400,
    'TS-1052': 400,
    'TS-1050': 401,
    'TS-1031': 403,
    'TS-1030': 403,
    'TS-1020': 403,
  },
  request,
  async handle({ body, caller, services }) {
    const checked = await services.otp.verify(caller, body.sms_id, body.code);
    if (!checked.ok) return checked;
    const { code, ...fields } = checked.value;
    return ok({ code, fields });
  },
});
