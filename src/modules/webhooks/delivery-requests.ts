import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { traceparentOf } from '../../core/trace-context.js';
import { insertJobs } from '../../events/dispatch.repository.js';
import { newJob } from '../../events/jobs.js';
import { newEnvelope, originOf, PING_EVENT_TYPE } from '../../events/outbox.js';
import { presentWebhook } from './webhooks.presenter.js';
import { findDelivery, findJobWithPayload, requeueJob } from './webhooks.repository.js';
import { requireWebhook } from './webhooks.service.js';

/**
 * Deliveries a client asks for: a ping and a redelivery. Both go through the delivery
 * queue like any event (signed, logged, retried per the job's rules) and are sent even
 * while the subscription is inactive: they test the receiver, for instance before
 * re-activating a subscription the server deactivated.
 */

/** Where to find a requested attempt in the delivery log. */
export interface QueuedDelivery {
  webhookId: string;
  eventId: string;
  eventType: string;
  attempt: number;
}

/**
 * Queues a `webhook.ping` for this subscription only, whatever its `events`. The ping is
 * not recorded in the event log (no other subscription and no change feed sees it): its
 * payload lives on its delivery job.
 */
export async function pingWebhook(ctx: Ctx, webhookId: string): Promise<QueuedDelivery> {
  const webhook = await requireWebhook(ctx, webhookId);
  const event = newEnvelope(PING_EVENT_TYPE, originOf(ctx), { webhook: presentWebhook(webhook) });
  await insertJobs(ctx.db, [
    newJob({
      webhookId,
      workspaceId: ctx.workspace.id,
      eventId: event.id,
      eventType: event.type,
      body: JSON.stringify(event),
      requested: true,
      traceparent: traceparentOf(ctx.trace),
      now: ctx.now,
    }),
  ]);
  return { webhookId, eventId: event.id, eventType: event.type, attempt: 1 };
}

/**
 * One more attempt, now, of the event of a delivery record: the same job, so the same
 * `webhook-id` and body, signed afresh, to the subscription's current URL. A finished job
 * gets exactly that one attempt; one waiting for a retry is sent now and keeps its
 * remaining retries.
 */
export async function redeliver(ctx: Ctx, webhookId: string, deliveryId: string): Promise<QueuedDelivery> {
  await requireWebhook(ctx, webhookId);
  const delivery = await findDelivery(ctx, webhookId, deliveryId);
  const job = delivery && (await findJobWithPayload(ctx.db, delivery.job_id));
  if (!job || !job.has_payload) {
    throw new ApiError(
      'WEBHOOK_DELIVERY_NOT_FOUND',
      { webhookId, deliveryId },
      delivery ? { message: 'The event of this delivery is past the retention (WSX_RETENTION_DAYS).' } : {},
    );
  }
  const inProgress = () => new ApiError('WEBHOOK_DELIVERY_IN_PROGRESS', { webhookId, deliveryId });
  if (job.state === 'sending') throw inProgress();
  const finished = job.state === 'succeeded' || job.state === 'failed';
  const attemptLimit = finished ? job.attempts + 1 : job.attempt_limit;
  if (!(await requeueJob(ctx.db, job.id, attemptLimit, ctx.now))) throw inProgress();
  return { webhookId, eventId: job.event_id, eventType: job.event_type, attempt: job.attempts + 1 };
}
