import { z } from 'zod';
import { permissionNames } from '../domain/permissions.js';
import type { ResultCode } from '../domain/result-codes.js';

/**
 * The success answers of the endpoints, declared once: the codes a successful request
 * answers with and the fields the endpoint adds to the envelope. The OpenAPI document, the
 * response serializer and the suite's response check are all built from these, so a field
 * a handler renames or retypes fails the build (docs/decisions.md, "The contract").
 */
export interface ReplyShape {
  codes: readonly [ResultCode, ...ResultCode[]];
  fields: z.ZodObject;
}

const int = z.int();
const text = z.string();

export function reply(codes: ReplyShape['codes'], fields: z.ZodRawShape = {}): ReplyShape {
  return { codes, fields: z.strictObject(fields) };
}

const permissionFlags = z.strictObject(
  Object.fromEntries([...permissionNames, 'manage_groups'].map((name) => [name, z.boolean()])) as Record<
    string,
    z.ZodBoolean
  >,
);

export const authCheckReply = reply(['TS-1000'], {
  key_details: z.strictObject({ status: z.literal('Active'), permissions: permissionFlags }),
  account_summary: z.strictObject({
    account_status: text,
    balance: z.strictObject({ main: int, international: int }),
    global_sending: z.boolean(),
  }),
  audit_info: z.strictObject({
    request_ip: text,
    checked_at: text.meta({ description: 'YYYY-MM-DD HH:MM:SS, Europe/Istanbul' }),
  }),
});

export const balanceReply = reply(['TS-1040'], { balance_main: int.meta({ description: 'SMS credit' }) });

export const senderIdsReply = reply(['TS-1040'], {
  sender_ids_count: int,
  sender_ids: z.array(z.strictObject({ id: int, title: text, status: z.literal(1), network_stat: int })),
});

export const smsSendReply = reply(['TS-1024'], {
  sms_id: int.meta({ description: "Last recipient's message id; the report id (raporid) of a scheduled send" }),
  number_of_sms: int,
  total_recipients: int,
  success_count: int,
  sms_lang: text,
  content_type: text,
  country: text,
  iys_skipped: int.optional().meta({
    description: 'Commercial sends (iys=1) only: recipients left out for want of consent (İYS), not sent, not charged',
  }),
});

export const smsStatusReply = reply(['TS-1064', 'TS-1022'], {
  sender_id: text,
  date_of_sending: text,
  time_of_sending: text,
  sms_status: text,
  sms_balance: text.meta({ description: 'SMS count of this message' }),
  details: text,
  operator: text,
});

const otpFields = { sms_id: int, otp_code: int, sandbox: z.boolean() };
export const otpSendReply = reply(['TS-1024'], otpFields);
export const otpDetailedReply = reply(['TS-1024'], { ...otpFields, number_of_sms: int, sms_lang: text });
export const otpVerifyReply = reply(['TS-1064', 'TS-1090', 'TS-1091', 'TS-1092', 'TS-1093'], {
  verified: z.boolean().meta({ description: 'Whether the code was right: true only with TS-1064' }),
  tries_left: int.meta({ description: 'Wrong tries the code still allows' }),
});

export const groupCreateReply = reply(['TS-1064'], {
  group: z.strictObject({ id: int, name: text, created_at: text }),
});
export const groupEditReply = reply(['TS-1064'], { new_name: text });
export const groupDeleteReply = reply(['TS-1064']);
export const groupListReply = reply(['TS-1064'], {
  groups_count: int,
  groups: z.array(z.strictObject({ id: int, name: text, date: text })),
});
export const contactsAddReply = reply(['TS-1064'], {
  group_id: int,
  total_sent: int,
  total_added: int,
  total_failed: int,
  mobile: text,
});

export const templateCreateReply = reply(['TS-1064'], { template_id: int });
export const templateListReply = reply(['TS-1064'], {
  templates_count: int,
  templates: z.array(
    z.strictObject({
      template_id: int,
      name: text,
      text,
      placeholders: z.array(text).meta({ description: 'The {{field}} names the text uses, in order of first use' }),
      created_at: text.meta({ description: 'YYYY-MM-DD HH:MM:SS, Europe/Istanbul' }),
    }),
  ),
});
export const templateDeleteReply = reply(['TS-1064']);

export const blacklistAddReply = reply(['TS-1141']);
export const blacklistStatusReply = reply(['TS-1143', 'TS-1142'], {
  is_blocked: z.boolean(),
  block_date: text.optional().meta({ description: 'YYYY-MM-DD; only when blocked' }),
  block_time: text.optional().meta({ description: 'HH:MM; only when blocked' }),
});

export const bulkSendReply = reply(['TS-1024'], {
  rapor_id: int,
  total_numbers: int,
  total_sms_cost: int,
  scheduled: z.boolean(),
  iys_skipped: int.optional().meta({
    description: 'Commercial sends (iys=1) only: recipients left out for want of consent (İYS), not sent, not charged',
  }),
});

export const reportSummaryReply = reply(['TS-1064'], {
  rapor_id: int,
  total_numbers: int,
  success_count: int,
  failed_count: int,
  pending_count: int,
  cancelled_count: int.meta({
    description: 'Messages cancelled before they were handed to an operator (/group/cancel, /sms/cancel)',
  }),
  details: z.strictObject({
    sending_date: text,
    sending_time: text,
    report_status: text,
    sms_sender_id: text,
    invalid_numbers: int,
    blocked_numbers: int,
    last_update: text,
    iys_skipped: int.optional().meta({
      description:
        'Commercial sends (iys=1) only: recipients left out for want of consent (İYS), not sent, not charged',
    }),
  }),
  clicks: int.optional().meta({ description: 'Clicks on the short links of the send (short_links=1); 0 without' }),
  unique_clickers: int.optional().meta({ description: 'Recipients who opened at least one of their short links' }),
});

export const reportPageReply = reply(['TS-1064'], {
  data: z.array(
    z.strictObject({
      phone_number: text,
      sent_at: text,
      sms_status: text,
      details: z.strictObject({
        done_at: text,
        status_code: z.union([z.literal(0), z.literal(1), z.literal(2)]),
        operator: text,
        reason: text.optional().meta({
          description: 'A recipient left out of a commercial send: IYS_NO_CONSENT or IYS_RET',
        }),
      }),
      short_links: z
        .array(text)
        .optional()
        .meta({ description: 'A send with short_links=1: the short links this recipient got' }),
      clicks: int.optional().meta({ description: 'A send with short_links=1: clicks on those links' }),
      refunded: int.optional().meta({
        description:
          "SMS credits given back to the account for this message (cancelled, or failed or expired under the account's refund policy); absent when none",
      }),
    }),
  ),
  pagination: z.strictObject({ current_page: int, total_pages: int, total_records: int, records_per_page: int }),
});

export const iysConsentAddReply = reply(['TS-1064'], {
  added: int.meta({ description: 'Consents taken (an older one than the record in force changes nothing)' }),
  failed: int,
  errors: z.array(
    z.strictObject({
      index: int.meta({ description: 'Position of the refused item in consents, from 0' }),
      code: text,
      message: text,
    }),
  ),
});

export const iysConsentStatusReply = reply(['TS-1064'], {
  recipient: text,
  recipient_type: z.enum(['BIREYSEL', 'TACIR']),
  status: z.enum(['ONAY', 'RET', 'NONE']),
  consent_date: text.meta({ description: 'YYYY-MM-DD HH:MM:SS, Europe/Istanbul; empty when NONE' }),
  source: text.meta({ description: 'İYS source name; empty when NONE' }),
});

// Campaign controls (../shared/interfaces.md): additions to v4.
export const cancelReply = reply(['TS-1064'], {
  cancelled: int.meta({ description: 'Messages cancelled by this request (not yet handed to an operator)' }),
  refunded: int.meta({ description: 'SMS credits given back by this request' }),
});
export const controlReply = reply(['TS-1064'], {
  state: z.enum(['paused', 'running', 'cancelled']).meta({
    description:
      'The send after the request: paused, running, or cancelled (a cancelled send is neither paused nor resumed)',
  }),
  waiting: int.meta({ description: 'Messages of the send not yet submitted' }),
});
