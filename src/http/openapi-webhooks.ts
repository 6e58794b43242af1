import type { WebhookEventType } from '../domain/webhook.js';
import { WEBHOOK_USER_AGENT } from '../domain/webhook.js';

type JsonObject = Record<string, unknown>;

/** The events the service sends, with what each means (docs/webhooks.md). */
const events: Partial<Record<WebhookEventType, { summary: string; status: string | null }>> = {
  'sms.sent': { summary: 'A message was handed to the operator', status: 'sent' },
  'sms.delivered': { summary: 'The operator reported delivery', status: 'delivered' },
  'sms.failed': {
    summary: 'The message failed: refused, not delivered, or its validity period expired',
    status: 'failed',
  },
  'sms.cancelled': {
    summary: 'The message was cancelled by /sms/cancel before it was handed to the operator; its credit was given back',
    status: 'cancelled',
  },
  'sms.received': { summary: "An inbound SMS reached one of the account's numbers", status: null },
  'sms.clicked': {
    summary: 'A recipient opened a short link of the message for the first time (data.url, data.clicked_at)',
    status: null,
  },
  'key.test': { summary: "The provider tested the key's webhook", status: null },
};

function payload(type: string, status: string | null): JsonObject {
  const data: JsonObject = {
    type: 'object',
    properties: {
      sms_id: { type: 'integer', description: 'The message the event is about; 0 for key.test.' },
      ...(status === null ? {} : { status: { const: status } }),
    },
    required: status === null ? ['sms_id'] : ['sms_id', 'status'],
    description: 'More fields may be added: ignore the ones you do not know.',
  };
  return {
    type: 'object',
    properties: {
      event_type: { const: type },
      event_id: { type: 'string', description: 'The same for every attempt of one event: drop duplicates by it.' },
      timestamp: {
        type: 'string',
        format: 'date-time',
        description: 'ISO 8601 UTC time of this attempt; equals X-Service-Timestamp and is covered by the signature.',
      },
      data,
    },
    required: ['event_type', 'event_id', 'timestamp', 'data'],
  };
}

const headers = [
  {
    name: 'X-Service-Signature',
    in: 'header',
    required: false,
    description:
      '`sha256=<hex>`: lowercase hex HMAC-SHA256 of the raw body keyed with the webhook secret; present when a secret is set. Compare in constant time before parsing.',
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
  },
  {
    name: 'X-Service-Timestamp',
    in: 'header',
    required: true,
    description:
      "The time of this attempt (ISO 8601, UTC), the body's `timestamp`. Refuse requests outside your tolerance window (for example 5 minutes).",
    schema: { type: 'string', format: 'date-time' },
  },
  { name: 'User-Agent', in: 'header', required: false, schema: { type: 'string', const: WEBHOOK_USER_AGENT } },
];

/** The OpenAPI `webhooks` section: one POST per event type, signed as docs/webhooks.md says. */
export function webhookSection(): JsonObject {
  const out: JsonObject = {};
  for (const [type, event] of Object.entries(events)) {
    if (!event) continue;
    out[type] = {
      post: {
        operationId: `webhook_${type.replace('.', '_')}`,
        summary: event.summary,
        description:
          'Sent to the webhook URL of the key that sent the message. Any 2xx acknowledges; anything else is retried with backoff. Ordering is not guaranteed and an event may arrive twice.',
        tags: ['webhooks'],
        parameters: headers,
        requestBody: { required: true, content: { 'application/json': { schema: payload(type, event.status) } } },
        responses: {
          '200': { description: 'Acknowledged (any 2xx does)' },
          default: { description: 'Not acknowledged: the event is tried again' },
        },
      },
    };
  }
  return out;
}
