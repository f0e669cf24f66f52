import type { WebhookDeliveryRow, WebhookRow } from '../../db/tables/webhooks.js';

/** Why the server deactivated a subscription (docs/webhooks.md, Auto-disable). */
export type DisabledReason = 'consecutive_failures';

export const presentWebhook = (w: WebhookRow) => ({
  webhookId: w.id,
  url: w.url,
  events: JSON.parse(w.events) as string[],
  active: w.active === 1,
  disabledReason: w.disabled_reason as DisabledReason | null,
  disabledAt: w.disabled_at,
  createdAt: w.created_at,
  updatedAt: w.updated_at,
  version: w.version,
});

export type WebhookView = ReturnType<typeof presentWebhook>;

export const presentDelivery = (d: WebhookDeliveryRow) => ({
  deliveryId: d.id,
  eventId: d.event_id,
  eventType: d.event_type,
  attempt: d.attempt,
  status: d.status,
  responseStatus: d.response_status,
  durationMs: d.duration_ms,
  error: d.error,
  createdAt: d.created_at,
});
