import { LIMITS } from '../../core/limits.js';
import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../events/outbox.js';
import {
  List,
  Nullable,
  PageInfoSchema,
  PaginationQuery,
  PathParam,
  Ref,
  Text,
  Version,
} from '../../operations/schema-helpers.js';

const eventsField = List(Ref(), {
  minItems: 1,
  description: `Event types to receive, or ["*"] for all: ${EVENT_TYPES.join(', ')}.`,
});
const urlField = Text(
  'Absolute http(s) URL of the receiver, at most 2,048 characters, on a public (global unicast) address; loopback, private, link-local and other special ranges are refused.',
  LIMITS.url,
);

export const WebhookSchema = Type.Object({
  webhookId: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  version: Version(),
});

export const CreatedWebhookSchema = Type.Composite([
  WebhookSchema,
  Type.Object({
    secret: Type.String({ description: 'whsec_… signing secret (Standard Webhooks); shown only in this answer.' }),
  }),
]);

export const DeliverySchema = Type.Object({
  deliveryId: Type.String(),
  eventId: Type.String(),
  eventType: Type.String(),
  attempt: Type.Integer(),
  status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('pending')]),
  responseStatus: Nullable(Type.Integer()),
  durationMs: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  createdAt: Type.String(),
});

export const CreateWebhookBody = Type.Object({
  url: urlField,
  events: eventsField,
  active: Type.Optional(Type.Boolean({ description: 'Default true.' })),
});
export const UpdateWebhookBody = Type.Partial(CreateWebhookBody);
export const webhookFieldCodes = { url: 'INVALID_WEBHOOK_URL' } as const;

export const WebhookIdParams = Type.Object({ webhookId: PathParam() });
export const ListQuery = Type.Object({ ...PaginationQuery });

export const WebhookResponse = Type.Object({ webhook: WebhookSchema });
export const CreatedWebhookResponse = Type.Object({ webhook: CreatedWebhookSchema });
export const WebhookListResponse = Type.Object({ webhooks: Type.Array(WebhookSchema), pageInfo: PageInfoSchema });
export const DeliveryListResponse = Type.Object({ deliveries: Type.Array(DeliverySchema), pageInfo: PageInfoSchema });
