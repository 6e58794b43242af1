import { z } from 'zod';
import { coded, codedDetail, integerField, storableText } from './fields.js';
import { groupStatuses } from './group-fields.js';
import { smsSendRules } from './endpoint.js';
import type { Endpoint, StatusMap } from './endpoint.js';
import type { ResultCode } from '../domain/result-codes.js';
import { maxTemplateNameLength, templateTextIssue } from '../domain/templates.js';
import { textTooLong } from '../domain/sms-count.js';

/**
 * What the three template endpoints share (additions to v4, docs/api.md "Templates"): the
 * group endpoints' key rule and statuses (a duplicate name or a template the account does not
 * have is a failed result with HTTP 200), and the permission Allow POST requests.
 */
export const templateStatuses: StatusMap = {
  ...groupStatuses,
  'TS-1026': 400,
  'TS-1060': 400,
  'TS-1061': 403,
};

/** The rules the three template endpoints share (key, codes, permission, limits). */
export const templateEndpointRules = {
  ...smsSendRules,
  permissions: ['post_request'],
  statuses: templateStatuses,
} as const satisfies Partial<Endpoint>;

/** `template_id`: the id /templates/create answered; missing or not a positive integer is TS-1029. */
export const templateIdField = integerField('TS-1029').refine((n) => n > 0, 'TS-1029');

/** `name`: 1 to 100 characters once trimmed; TS-1033 otherwise. */
export const templateNameField = z
  .string(coded('TS-1033'))
  .transform((n) => n.trim())
  .refine((n) => n !== '', codedDetail('TS-1033', 'name is missing or empty'))
  .refine(
    (n) => n.length <= maxTemplateNameLength,
    codedDetail('TS-1033', `name is longer than ${maxTemplateNameLength} characters`),
  )
  .superRefine(storableText('TS-1033', 'name'));

/** `text`: as a send's text (1 to 2,000 characters), placeholder names of at most 32 characters; TS-1026 otherwise. */
export const templateTextField = z
  .string(coded('TS-1026'))
  .refine((t) => t.trim() !== '', 'TS-1026')
  .refine((t) => !textTooLong(t), 'TS-1026')
  .superRefine(storableText('TS-1026', 'text'))
  .superRefine((t, ctx) => {
    const issue = templateTextIssue(t);
    if (issue !== null) ctx.addIssue({ code: 'custom', ...codedDetail('TS-1026', issue) });
  });

/**
 * `template_id` on a send, instead of `text`: a positive integer, TS-1033 otherwise. The
 * two together are TS-1033, neither is the send's code for a missing text.
 */
export const sendTemplateIdField = integerField('TS-1033')
  .refine((n) => n > 0, codedDetail('TS-1033', 'template_id must be a positive integer'))
  .optional();

/**
 * A send's text comes from `text` or `template_id`, exactly one: neither is the endpoint's
 * code for a missing text (`missing`), both TS-1033. Checked once every field is valid.
 */
export function oneTextSource(
  missing: ResultCode,
): (body: { text?: unknown; template_id?: unknown }, ctx: z.RefinementCtx) => void {
  return (body, ctx) => {
    const hasText = body.text !== undefined;
    const hasTemplate = body.template_id !== undefined;
    if (hasText && hasTemplate)
      ctx.addIssue({ code: 'custom', ...codedDetail('TS-1033', 'send either text or template_id, not both') });
    else if (!hasText && !hasTemplate)
      ctx.addIssue({ code: 'custom', ...codedDetail(missing, 'text (or template_id) is missing') });
  };
}

/** `short_links` on a send: 1 shortens every URL per recipient, 0 or absent does not; TS-1033 otherwise. */
export const shortLinksField = integerField('TS-1033')
  .refine((v) => v === 0 || v === 1, codedDetail('TS-1033', 'short_links is 0 or 1'))
  .optional();
