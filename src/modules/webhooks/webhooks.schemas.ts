import { MAX_SECRET_OVERLAP_HOURS } from '../../config.js';
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
  serviceCheck,
  Text,
  Version,
} from '../../operations/schema-helpers.js';

// The service checks each entry (and that "*" stands alone); the document lists the set.
const eventsField = serviceCheck(
  List(Ref(), {
    minItems: 1,
    description: `Event types to receive, or ["*"] for all: ${EVENT_TYPES.join(', ')}.`,
  }),
  { items: { enum: [...EVENT_TYPES, '*'] } },
);
const urlField = Text(
  'Absolute http(s) URL of the receiver, at most 2,048 characters, on a public (global unicast) address; ' +
    'loopback, private, link-local and other special ranges are refused.',
  LIMITS.url,
);

export const WebhookSchema = Type.Object({
  webhookId: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
  disabledReason: Nullable(
    Type.Literal('consecutive_failures', {
      description:
        'Why the server set active to false: every delivery failed its last attempt for WSX_WEBHOOK_DISABLE_AFTER_HOURS. ' +
        'Null when it did not; setting active to true clears it.',
    }),
  ),
  disabledAt: Nullable(Type.String({ description: 'When the server set active to false; null when it did not.' })),
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
export const DeliveryIdParams = Type.Object({
  webhookId: PathParam(),
  deliveryId: PathParam('A deliveryId (dlv_…) from the delivery log.'),
});

/** The longest overlap a rotation may ask for: a week. */
const MAX_OVERLAP_SECONDS = MAX_SECRET_OVERLAP_HOURS * 3600;

export const RotateSecretBody = Type.Object({
  overlapSeconds: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_OVERLAP_SECONDS,
      description:
        `How long the replaced secret keeps signing beside the new one, 0 to ${MAX_OVERLAP_SECONDS} (a week); ` +
        'default WSX_WEBHOOK_SECRET_OVERLAP_HOURS (24 h). 0 replaces it at once.',
    }),
  ),
});

export const RotatedSecretSchema = Type.Object({
  webhookId: Type.String(),
  secret: Type.String({ description: 'The new whsec_… signing secret; shown only in this answer.' }),
  previousSecretExpiresAt: Nullable(
    Type.String({
      description:
        'Until then every delivery is also signed with the replaced secret (a second signature in webhook-signature); ' +
        'null when it was replaced at once.',
    }),
  ),
});

export const QueuedDeliverySchema = Type.Object({
  webhookId: Type.String(),
  eventId: Type.String({ description: 'The webhook-id header and body id the receiver gets.' }),
  eventType: Type.String(),
  attempt: Type.Integer({
    minimum: 1,
    description: 'The attempt number the delivery log will show for it (GET …/deliveries).',
  }),
});
export const ListQuery = Type.Object({ ...PaginationQuery });

export const WebhookResponse = Type.Object({ webhook: WebhookSchema });
export const CreatedWebhookResponse = Type.Object({ webhook: CreatedWebhookSchema });
export const WebhookListResponse = Type.Object({ webhooks: Type.Array(WebhookSchema), pageInfo: PageInfoSchema });
export const DeliveryListResponse = Type.Object({ deliveries: Type.Array(DeliverySchema), pageInfo: PageInfoSchema });
