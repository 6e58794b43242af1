import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { coded } from './fields.js';
import { bulkSchedule, bulkText, groupStatuses, numbersField, scheduleFields, withNumbersAlias } from './bulk-fields.js';
import { bulkSend } from '../services/bulk-send.js';
import type { SmsLang } from '../domain/labels.js';
import { ok } from '../domain/result.js';

/** POST /group/sendMixed: text[i] to sentto[i], up to 50,000 pairs, queued first. */
export const groupSendMixed = defineEndpoint({
  path: '/group/sendMixed',
  summary: 'Send its own text to each of up to 50,000 numbers',
  envelope: 'result',
  key: { min: 30, max: 128, missing: 'TS-1025', malformed: 'TS-1025' },
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['send_group_sms'],
  limited: true,
  statuses: groupStatuses,
  // The spec's maxima: 50,000 texts of 2,000 characters, two bytes each in UTF-8 (Turkish,
  // Arabic), plus the numbers: about 200 MB. Larger bodies are refused before parsing.
  bodyLimit: 256 * 1024 * 1024,
  request: z.preprocess(
    withNumbersAlias,
    z
      .object({
        title: z.string(coded('TS-1029')).min(1, 'TS-1029'),
        sentto: numbersField,
        text: z.array(bulkText, coded('TS-1033')),
        ...scheduleFields,
      })
      .refine((b) => b.text.length === b.sentto.length, 'TS-1033'),
  ),
  async handle({ body, caller, services }) {
    const schedule = bulkSchedule(body, services.clock.now());
    if (!schedule.ok) return schedule;
    const sent = await bulkSend(services.sends, caller, {
      kind: 'mixed',
      title: body.title,
      lang: (body.sms_lang ?? 2) as SmsLang,
      numbers: body.sentto,
      texts: body.text,
      scheduledAt: schedule.value,
    });
    if (!sent.ok) return sent;
    return ok({ code: 'TS-1024', fields: { ...sent.value } });
  },
});
