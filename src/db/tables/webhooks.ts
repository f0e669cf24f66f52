import type { Versioned } from './versioned.js';

/** Row types of the webhooks area's own tables (see migration 0006_webhooks). */

/** Who made a subscription: its project visibility is the creator's (file-made ones see all). */
export type WebhookCreatorKind = 'api_token' | 'user' | 'workspace_file';

export interface WebhookRow {
  /** Concurrency version: bumped by every update (see tables/versioned.ts). */
  version: number;
  id: string;
  workspace_id: string;
  url: string;
  /** JSON array of event types, or ["*"]. */
  events: string;
  /** The whsec_ signing secret; kept in clear because every delivery is signed with it. */
  secret: string;
  active: number;
  creator_kind: WebhookCreatorKind;
  /** The creator's identity id (api-token:<name> or usr_…); null for the workspace file. */
  creator_id: string | null;
  creator_token_id: string | null;
  /**
   * The token that set the receiver URL now in effect; null when a human (OAuth) or the
   * workspace file set it. Delivery uses the URL only while that setter may still manage
   * the subscription (migration 0007_webhook_trust).
   */
  url_set_by_token_id: string | null;
  /** The secret a rotation replaced: it still signs, beside `secret`, until its expiry (0016_webhook_rotation). */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** When the running streak of deliveries whose last attempt failed began; null after a success. */
  failing_since: string | null;
  /** Why and when the server deactivated the subscription (`consecutive_failures`); null otherwise. */
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

export type WebhookJobState = 'pending' | 'sending' | 'succeeded' | 'failed';

/** One event to send to one subscription, with its retry schedule. */
export interface WebhookJobRow {
  /** `<webhookId>:<eventId>`: one job per subscription and event, whoever fans out. */
  id: string;
  workspace_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  state: WebhookJobState;
  /** Attempts started so far. */
  attempts: number;
  /** When the job may next be claimed: the next attempt, or the lease end of a sending job; null once finished. */
  due_at: string | null;
  /** This subscriber's payload when it differs from the outbox payload (parts its creator may not see left out); else null. */
  body: string | null;
  /** The dispatcher process that last claimed the job (see events/holder.ts); null before the first claim. */
  holder_id: string | null;
  holder_host: string | null;
  holder_pid: number | null;
  /** 1 for a ping or a redelivery a client asked for: sent even while the subscription is inactive. */
  requested: number;
  /** The last attempt this job may make, set by a redelivery; null: WSX_WEBHOOK_MAX_ATTEMPTS. */
  attempt_limit: number | null;
  /**
   * What every attempt sends as `traceparent` (W3C Trace Context): the outbox event's, or a
   * ping's own; null sends none (migration 0028_trace_context).
   */
  traceparent: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One delivery attempt (the delivery log). */
export interface WebhookDeliveryRow {
  id: string;
  workspace_id: string;
  webhook_id: string;
  job_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: DeliveryStatus;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: string;
}

/** The columns this area adds to the core outbox table. */
export interface OutboxDispatchColumns {
  /** When the dispatcher turned the event into delivery jobs; null while it waits. */
  dispatched_at: string | null;
  /** JSON EventAudience (events/audience.ts): parts of the event that depend on other projects; null when none. */
  audience: string | null;
  /**
   * The `traceparent` the event's deliveries send: the span of the request whose write
   * recorded it, under the caller's trace; null when that request continued none.
   */
  traceparent: string | null;
}

export interface WebhooksTables {
  webhooks: Versioned<WebhookRow>;
  webhook_jobs: WebhookJobRow;
  webhook_deliveries: WebhookDeliveryRow;
  outbox_events: OutboxDispatchColumns;
}
