/**
 * `send_window`, `speed` and `validity_minutes` (../shared/interfaces.md, "Campaign controls";
 * docs/api.md, "Send window, speed and validity"), optional on /sms/send, /group/send and
 * /group/sendMixed. A wrong value is TS-1033 with a detail naming the field and the rule.
 */
import { z } from 'zod';
import { codedDetail, integerField } from './fields.js';
import { maxSpeed, maxValidityMinutes, parseSendWindow } from '../domain/send-controls.js';
import type { SendWindow } from '../domain/send-controls.js';

/** Longest `send_window` text taken (a window with every day fits in well under it). */
const maxWindowText = 200;

/**
 * The window as an object, or as the same JSON in a string: form bodies and the streamed
 * body of /group/sendMixed carry no objects.
 */
const sendWindowField = z
  .unknown()
  .transform((value, ctx): SendWindow | undefined => {
    if (value === undefined || value === null || value === '') return undefined;
    let input: unknown = value;
    if (typeof value === 'string') {
      if (value.length > maxWindowText) {
        ctx.addIssue({ code: 'custom', ...codedDetail('TS-1033', 'send_window is too long') });
        return z.NEVER;
      }
      try {
        input = JSON.parse(value);
      } catch {
        ctx.addIssue({ code: 'custom', ...codedDetail('TS-1033', 'send_window is not a JSON object') });
        return z.NEVER;
      }
    }
    const parsed = parseSendWindow(input);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', ...codedDetail('TS-1033', parsed.reason) });
      return z.NEVER;
    }
    return parsed.window;
  })
  .optional();

const emptyAsAbsent = (v: unknown): unknown => (v === '' || v === null ? undefined : v);

export const speedField = z.preprocess(
  emptyAsAbsent,
  integerField('TS-1033')
    .refine(
      (n) => n >= 1 && n <= maxSpeed,
      codedDetail('TS-1033', `speed must be a whole number of messages a minute from 1 to ${maxSpeed}`),
    )
    .optional(),
);

export const validityMinutesField = z.preprocess(
  emptyAsAbsent,
  integerField('TS-1033')
    .refine(
      (n) => n >= 1 && n <= maxValidityMinutes,
      codedDetail('TS-1033', `validity_minutes must be a whole number from 1 to ${maxValidityMinutes}`),
    )
    .optional(),
);

/** The three fields, spread into a send endpoint's request object. */
export const sendControlFields = {
  send_window: sendWindowField,
  speed: speedField,
  validity_minutes: validityMinutesField,
};
