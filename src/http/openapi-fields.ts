/**
 * The rules of request fields that zod cannot put into JSON Schema (refinements, aliases,
 * digits sent as text), in the words of the spec. The generator merges them into the
 * schemas zod derives from each endpoint's `request`; a field named here that an endpoint
 * no longer has is left out, so this table cannot add a field the code does not read.
 */
export type FieldRule = Record<string, unknown> & {
  description: string;
  /** Required although zod cannot tell (a preprocessed field). */ required?: boolean;
};

const lang: FieldRule = {
  description: 'Character set and counting table: 0 English, 1 Turkish, 2 Arabic and other Unicode (default 2).',
  enum: [0, 1, 2],
};
const scheduledDate: FieldRule = {
  description: 'YYYY-MM-DD, Europe/Istanbul. A non-empty value schedules the send (TS-1070 when malformed).',
  examples: ['2026-04-01'],
};
const scheduledTime: FieldRule = {
  description:
    'HH:MM or HH:MM:ss, Europe/Istanbul; required with scheduled_date (TS-1071 when malformed, TS-1072 when in the past).',
  examples: ['09:30'],
};
const groupNumbers: FieldRule = {
  description: 'JSON array of numbers (strings or integers), at most 50,000 items; may be sent as `numbers`.',
  maxItems: 50_000,
};
const title: FieldRule = {
  description:
    'An approved sender ID of the account, case-sensitive; at most 11 characters, Turkish letters counting as two.',
};
const digits: FieldRule = { description: 'Code length: 4, 5 or 6; any other value gives 4.', examples: [6] };

const common: Record<string, FieldRule> = {
  sms_lang: lang,
  lang: { ...lang, description: `(${'`lang`'}) ${lang.description}` },
  content_type: {
    description: 'Label only: 0 Transactional (default), 1 High Quality, 2 Advertising.',
    enum: [0, 1, 2],
  },
  scheduled_date: scheduledDate,
  scheduled_time: scheduledTime,
  scheduled_sms: {
    description: '1 schedules the send at scheduled_date and scheduled_time; 0 or absent sends now.',
    enum: [0, 1],
  },
  idempotency_key: {
    description:
      'Optional. Within 24 hours, a second request with the same key and body gets the first answer again and sends nothing; with another body, TS-1033. The client retries a send only when it has one.',
  },
  title,
  digits,
  sms_id: {
    description: 'An id from an immediate single-recipient /sms/send, /otp/send or /otp/detailed answer.',
    minimum: 1,
  },
  raporid: { description: 'The rapor_id of a group send, or the sms_id of a scheduled /sms/send.' },
  page: { description: 'Page of 500 records, from 1.', minimum: 1, default: 1 },
  group_id: { description: "The id of one of the account's groups (from /groups/create or /groups/list).", minimum: 1 },
  name: {
    description: 'Group name, 1 to 100 characters once surrounding whitespace is removed; unique per account.',
    maxLength: 100,
  },
  send_window: {
    description:
      'Optional. Istanbul time, days 1 (Monday) to 7 (every day when left out); messages outside it wait for the next opening. A `to` not after `from` closes the next day. Also taken as the same JSON in a string (form bodies, /group/sendMixed). TS-1033 when out of its rules.',
    oneOf: [
      {
        type: 'object',
        properties: {
          from: { type: 'string', pattern: '^\\d{2}:\\d{2}$', examples: ['09:00'] },
          to: { type: 'string', pattern: '^\\d{2}:\\d{2}$', examples: ['18:00'] },
          days: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 7 }, minItems: 1, maxItems: 7 },
        },
        required: ['from', 'to'],
        additionalProperties: false,
      },
      { type: 'string', maxLength: 200 },
    ],
  },
  speed: {
    description: 'Optional. At most this many messages of this send a minute (TS-1033 outside 1 to 100,000).',
    minimum: 1,
    maximum: 100_000,
  },
  validity_minutes: {
    description:
      "Optional. Minutes from the send's time: a message not submitted by then ends expired (credit given back) and is never submitted after it; a submitted one carries it as SMPP validity_period (TS-1033 outside 1 to 2,880).",
    minimum: 1,
    maximum: 2880,
  },
  number: {
    description:
      'A Türkiye mobile number: 905XXXXXXXXX, +90 5XX..., 0090 5XX..., 05XX... or 5XX...; at least 7 characters.',
    minLength: 7,
  },
};

/** Rules that differ by endpoint, by path then field. */
const byPath: Record<string, Record<string, FieldRule>> = {
  '/sms/send': {
    sentto: {
      description:
        'Numbers separated by commas, semicolons or line breaks; at most 500 distinct numbers (50,000 when scheduled); at least 7 characters. May be sent as `mobile`.',
      minLength: 7,
    },
    text: { description: 'At most 2,000 characters; `TS-L` becomes a line break.', minLength: 1 },
  },
  '/otp/send': {
    mobile: {
      description: 'One number; 05..., 5... and 00... forms are converted; 11 to 15 digits after cleanup.',
      minLength: 7,
      required: true,
    },
    sms_lang: {
      ...lang,
      description: `Template language (may be sent as ${'`lang`'}): 0 English, 1 Turkish, 2 Arabic (default 2).`,
    },
  },
  '/otp/detailed': {
    mobile: { description: 'One number, 905XXXXXXXXX.', minLength: 7, required: true },
    text: {
      description: 'Must contain TS-CODE (in capitals), which the generated code replaces; at most 2,000 characters.',
      minLength: 1,
    },
    title: { ...title, description: `${title.description} Reserved names (test, api, sender, ...) are refused.` },
  },
  '/group/send': {
    sentto: groupNumbers,
    text: { description: 'One text for every number, at most 2,000 characters.', minLength: 1 },
  },
  '/group/sendMixed': {
    sentto: groupNumbers,
    text: { description: 'text[i] goes to sentto[i]; as many texts as numbers, each at most 2,000 characters.' },
  },
  '/contacts/add': {
    mobile: {
      description:
        'Numbers to add: a JSON array, or text separated by commas, semicolons or line breaks; at most 50,000; may be sent as `numbers`.',
      type: ['array', 'string'],
    },
  },
};

export function fieldRule(path: string, field: string): FieldRule | undefined {
  return byPath[path]?.[field] ?? common[field];
}
