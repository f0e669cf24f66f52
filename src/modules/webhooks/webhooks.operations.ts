import { accepted, created, defineOperation, noContent, ok, type Operation } from '../../operations/define.js';
import { pingWebhook, redeliver } from './delivery-requests.js';
import { rotateSecret } from './secret-rotation.js';
import {
  CreatedWebhookResponse,
  CreateWebhookBody,
  DeliveryIdParams,
  DeliveryListResponse,
  ListQuery,
  QueuedDeliverySchema,
  RotatedSecretSchema,
  RotateSecretBody,
  UpdateWebhookBody,
  WebhookIdParams,
  WebhookListResponse,
  WebhookResponse,
  webhookFieldCodes,
} from './webhooks.schemas.js';
import {
  createWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  prepareReceiver,
  removeWebhook,
  updateWebhookById,
} from './webhooks.service.js';
import { defineResource } from '../../operations/versioned.js';

/** The versioned record its GET, PATCH and DELETE share (ETag, If-Match). */
const webhookResource = defineResource({
  name: 'webhook',
  table: 'webhooks',
  idField: 'webhookId',
  read: (ctx, params: { webhookId: string }) => getWebhook(ctx, params.webhookId),
});

const tag = 'Webhooks';

export const webhooksOperations: Operation[] = [
  defineOperation({
    id: 'list_webhooks',
    method: 'GET',
    path: '/api/external/webhooks',
    tag,
    summary: 'List the webhook subscriptions the caller may manage, newest first.',
    description:
      'A credential that sees every project of the workspace lists all of them; any other lists the ones it made.',
    query: ListQuery,
    response: WebhookListResponse,
    run: async (ctx, { query }) => ok(await listWebhooks(ctx, query)),
  }),
  defineOperation({
    id: 'create_webhook',
    method: 'POST',
    path: '/api/external/webhooks',
    tag,
    summary:
      'Subscribe a receiver URL to event types (or ["*"]); the answer holds the signing secret, shown only once.',
    description:
      'The subscription receives events of the projects its creator can see when each event happens, ' +
      'each built for that visibility. At most 25 per workspace.',
    body: CreateWebhookBody,
    errors: ['WEBHOOK_LIMIT_REACHED'],
    requiredFields: ['url', 'events'],
    fieldCodes: webhookFieldCodes,
    response: CreatedWebhookResponse,
    successStatus: 201,
    prepare: (_ctx, { body }) => prepareReceiver(body),
    run: async (ctx, { body, prepared }) => created({ webhook: await createWebhook(ctx, body, prepared) }),
  }),
  defineOperation({
    id: 'get_webhook',
    resource: webhookResource,
    method: 'GET',
    path: '/api/external/webhooks/{webhookId}',
    tag,
    summary: 'One webhook subscription.',
    params: WebhookIdParams,
    response: WebhookResponse,
    run: async (ctx, { params }) => ok({ webhook: await getWebhook(ctx, params.webhookId) }),
  }),
  defineOperation({
    id: 'update_webhook',
    resource: webhookResource,
    method: 'PATCH',
    path: '/api/external/webhooks/{webhookId}',
    tag,
    summary: "Change a subscription's url, events or active flag.",
    params: WebhookIdParams,
    body: UpdateWebhookBody,
    errors: ['UNSUPPORTED_ACTION'],
    fieldCodes: webhookFieldCodes,
    response: WebhookResponse,
    prepare: (_ctx, { body }) => prepareReceiver(body),
    run: async (ctx, { params, body, prepared }) =>
      ok({ webhook: await updateWebhookById(ctx, params.webhookId, body, prepared) }),
  }),
  defineOperation({
    id: 'delete_webhook',
    resource: webhookResource,
    method: 'DELETE',
    path: '/api/external/webhooks/{webhookId}',
    tag,
    summary: 'Delete a subscription with its pending deliveries and delivery log.',
    params: WebhookIdParams,
    successStatus: 204,
    run: async (ctx, { params }) => {
      await removeWebhook(ctx, params.webhookId);
      return noContent();
    },
  }),
  defineOperation({
    id: 'list_webhook_deliveries',
    method: 'GET',
    path: '/api/external/webhooks/{webhookId}/deliveries',
    tag,
    summary: 'Delivery attempts of a subscription, newest first: status, response code, duration, error.',
    params: WebhookIdParams,
    query: ListQuery,
    response: DeliveryListResponse,
    run: async (ctx, { params, query }) => ok(await listDeliveries(ctx, params.webhookId, query)),
  }),
  defineOperation({
    id: 'ping_webhook',
    method: 'POST',
    path: '/api/external/webhooks/{webhookId}/ping',
    tag,
    summary:
      'Send a signed webhook.ping event ({ data: { webhook } }) to this subscription only, whatever its events and even while inactive.',
    description:
      'Goes through the delivery queue like any event: signed, logged in the delivery log and retried on failure. ' +
      'Answers where to find the attempt in the log. ' +
      'The ping is not in the change feed and reaches no other subscription.',
    params: WebhookIdParams,
    response: QueuedDeliverySchema,
    successStatus: 202,
    run: async (ctx, { params }) => accepted(await pingWebhook(ctx, params.webhookId)),
  }),
  defineOperation({
    id: 'redeliver_webhook_delivery',
    method: 'POST',
    path: '/api/external/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
    tag,
    summary:
      'Send the event of a delivery record again, now: same webhook-id and body, a new timestamp and signature, a new attempt in the log.',
    description:
      'Goes to the subscription as it is now (its URL and secrets), even while it is inactive. ' +
      'An event whose attempts had ended gets this one attempt; ' +
      'one waiting for a retry is sent now and keeps its remaining retries. ' +
      '409 WEBHOOK_DELIVERY_IN_PROGRESS while an attempt of it is under way.',
    params: DeliveryIdParams,
    errors: ['WEBHOOK_DELIVERY_NOT_FOUND', 'WEBHOOK_DELIVERY_IN_PROGRESS'],
    response: QueuedDeliverySchema,
    successStatus: 202,
    run: async (ctx, { params }) => accepted(await redeliver(ctx, params.webhookId, params.deliveryId)),
  }),
  defineOperation({
    id: 'rotate_webhook_secret',
    method: 'POST',
    path: '/api/external/webhooks/{webhookId}/rotate-secret',
    tag,
    summary:
      'Replace the signing secret; the answer holds the new one, shown only once. Both sign during the overlap (default 24 h).',
    description:
      'Until previousSecretExpiresAt every delivery carries two signatures in webhook-signature (new, then replaced), ' +
      'so a receiver holding either secret verifies; then only the new one signs. ' +
      'Rotating again during an overlap drops the secret replaced before.',
    params: WebhookIdParams,
    body: RotateSecretBody,
    response: RotatedSecretSchema,
    successStatus: 200,
    mcpHints: { destructive: true },
    run: async (ctx, { params, body }) => ok(await rotateSecret(ctx, params.webhookId, body.overlapSeconds)),
  }),
];
