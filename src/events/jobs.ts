import type { WebhookJobRow } from '../db/tables/webhooks.js';

/** One event to send to one subscription: the delivery queue's unit (see dispatch.repository.ts). */

export const jobIdOf = (webhookId: string, eventId: string): string => `${webhookId}:${eventId}`;

export interface NewJob {
  webhookId: string;
  workspaceId: string;
  eventId: string;
  eventType: string;
  /** This subscriber's payload when it is not the outbox's (a narrowed view, or a ping that has none); else null. */
  body: string | null;
  /** A ping a client asked for: sent even while the subscription is inactive. */
  requested?: boolean;
  /** The `traceparent` its attempts send: the event's, or a ping's request's; null sends none. */
  traceparent: string | null;
  now: string;
}

/** A job due now, never attempted. */
export const newJob = (job: NewJob): WebhookJobRow => ({
  id: jobIdOf(job.webhookId, job.eventId),
  workspace_id: job.workspaceId,
  webhook_id: job.webhookId,
  event_id: job.eventId,
  event_type: job.eventType,
  state: 'pending',
  attempts: 0,
  due_at: job.now,
  body: job.body,
  holder_id: null,
  holder_host: null,
  holder_pid: null,
  requested: job.requested ? 1 : 0,
  attempt_limit: null,
  traceparent: job.traceparent,
  created_at: job.now,
  updated_at: job.now,
});
