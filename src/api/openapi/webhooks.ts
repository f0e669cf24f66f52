import { DELIVERED_EVENT_TYPES, PING_EVENT_TYPE } from '../../events/outbox.js';
import { eventSchemaName, WEBHOOK_EVENT_SCHEMAS } from '../../modules/feed/index.js';
import type { JsonSchema, SchemaConverter } from './json-schema.js';

/**
 * The webhook events (OpenAPI 3.1 `webhooks`): one signed POST per event type, whose body
 * is the event envelope (modules/feed/envelopes.schemas.ts). Also the `WebhookEvent`
 * union a receiver switches on by `type`.
 */

const SIGNATURE_HEADERS = [
  ['webhook-id', 'The event id (evt_…), the same on every attempt: deduplicate on it.'],
  ['webhook-timestamp', 'Unix seconds when this attempt was signed; refuse ones older than five minutes.'],
  ['webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">` signatures.'],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

/** Sent only when the write that caused the event continued a caller's trace; not signed. */
const TRACE_HEADER = {
  name: 'traceparent',
  in: 'header',
  required: false,
  description:
    'W3C Trace Context, when the request that caused the event sent a valid traceparent: the same trace-id and ' +
    'flags, with the span of that request as parent-id. Not signed.',
  schema: { type: 'string', pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' },
};

const DELIVERY_HEADERS = [...SIGNATURE_HEADERS, TRACE_HEADER];

const RECEIVER_ANSWERS = {
  '200': { description: 'Any 2xx acknowledges the event.' },
  '400': { description: 'Any other answer (or none within 10 s) is retried with backoff.' },
};

/** Adds every event's schema to the converter's components and answers the `webhooks` map. */
export function webhookSection(converter: SchemaConverter): Record<string, unknown> {
  const refs: JsonSchema[] = [];
  const webhooks: Record<string, unknown> = {};
  for (const type of DELIVERED_EVENT_TYPES) {
    const name = eventSchemaName(type);
    const ref = converter.convert(WEBHOOK_EVENT_SCHEMAS[name], name);
    refs.push(ref);
    webhooks[type] = {
      post: {
        operationId: `on${name}`,
        summary: type,
        description:
          type === PING_EVENT_TYPE
            ? `${type}, sent by POST /api/external/webhooks/{webhookId}/ping to that subscription only.`
            : `${type}, sent to subscriptions whose events include it or "*".`,
        tags: ['Webhook events'],
        parameters: DELIVERY_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: ref } } },
        responses: RECEIVER_ANSWERS,
      },
    };
  }
  converter.components.WebhookEvent = {
    description: 'Every webhook event body; switch on `type`.',
    oneOf: refs,
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(DELIVERED_EVENT_TYPES.map((type, i) => [type, refs[i].$ref])),
    },
  };
  // A subscription whose events are ["*"] receives any of them.
  webhooks['*'] = {
    post: {
      operationId: 'onWebhookEvent',
      summary: 'Any event',
      description: 'Any event, sent to subscriptions whose events are ["*"].',
      tags: ['Webhook events'],
      parameters: DELIVERY_HEADERS,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } },
      },
      responses: RECEIVER_ANSWERS,
    },
  };
  return webhooks;
}
