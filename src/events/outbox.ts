import type { Kysely } from 'kysely';
import type { Ctx } from '../db/context.js';
import { newId } from '../core/ids.js';
import { traceparentOf, type RequestTrace } from '../core/trace-context.js';
import { singleQuery } from '../db/compiled-query.js';
import type { DialectName } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { serialiseAudience, type EventAudience } from './audience.js';
import { nextPosition } from './event-log.js';

/** Webhook event types (docs/events.md, "Types"). */
export const EVENT_TYPES = [
  'project.created',
  'project.updated',
  'issue.created',
  'issue.updated',
  'issue.archived',
  'issue.restored',
  'issue.comment.created',
  'issue.comment.deleted',
  'issue.link.created',
  'issue.link.deleted',
  'subtask.created',
  'subtask.updated',
  'subtask.deleted',
  'subtask.promoted',
  'milestone.created',
  'milestone.updated',
  'milestone.deleted',
  'milestone.comment.created',
  'meeting.created',
  'meeting.updated',
  'agenda_item.created',
  'agenda_item.updated',
  'agenda_item.converted',
  'discussion_topic.created',
  'discussion_topic.updated',
  'discussion_topic.converted',
  'webhook.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Sent only by POST /webhooks/{webhookId}/ping, to that one subscription whatever its
 * `events`. It is not recorded in the log, so no subscription asks for it and the change
 * feed does not list it.
 */
export const PING_EVENT_TYPE = 'webhook.ping';

/** Every event type a receiver can get. */
export const DELIVERED_EVENT_TYPES = [...EVENT_TYPES, PING_EVENT_TYPE] as const;

export type DeliveredEventType = (typeof DELIVERED_EVENT_TYPES)[number];

/** Who made the change: a credential, or the server itself (deactivating a failing subscription). */
export type EventActor = { kind: 'api_token' | 'user' | 'system'; id: string };

export const SYSTEM_ACTOR: EventActor = { kind: 'system', id: 'wsx' };

/** Where and when an event happens, and by whom; `trace`: the caller's trace its deliveries continue. */
export interface EventOrigin {
  workspaceId: string;
  actor: EventActor;
  nowMs: number;
  now: string;
  trace?: RequestTrace;
}

export const originOf = (ctx: Ctx): EventOrigin => ({
  workspaceId: ctx.workspace.id,
  actor: { kind: ctx.principal.kind, id: ctx.principal.id },
  nowMs: ctx.nowMs,
  now: ctx.now,
  trace: ctx.trace,
});

/** The body every receiver gets (docs/events.md); its `id` is also the `webhook-id`. */
export const newEnvelope = (type: DeliveredEventType, origin: EventOrigin, data: Record<string, unknown>) => ({
  id: newId('evt', origin.nowMs),
  type,
  createdAt: origin.now,
  workspaceId: origin.workspaceId,
  actor: origin.actor,
  data,
});

/**
 * Records an event in the outbox through `store.db`, a write transaction that holds the
 * workspace's write order (db/write-clock.ts), at the next position of the workspace's log
 * (event-log.ts). Delivery happens after commit.
 */
export async function appendEvent(
  store: { db: Kysely<DB>; dialect: DialectName },
  origin: EventOrigin,
  event: { type: EventType; data: Record<string, unknown>; projectId: string | null; audience?: EventAudience },
): Promise<void> {
  const payload = newEnvelope(event.type, origin, event.data);
  await outboxInsert.rows(store, {
    id: payload.id,
    workspaceId: origin.workspaceId,
    type: event.type,
    projectId: event.projectId,
    payload: JSON.stringify(payload),
    audience: serialiseAudience(event.audience),
    traceparent: traceparentOf(origin.trace),
    createdAt: origin.now,
  });
}

/** Every write records an event: its insert is compiled once. */
const outboxInsert = singleQuery(
  (
    db,
    slots: {
      id: string;
      workspaceId: string;
      type: string;
      projectId: string | null;
      payload: string;
      audience: string | null;
      traceparent: string | null;
      createdAt: string;
    },
  ) =>
    db.insertInto('outbox_events').values({
      id: slots.id,
      workspace_id: slots.workspaceId,
      seq: nextPosition(slots.workspaceId),
      type: slots.type,
      project_id: slots.projectId,
      payload: slots.payload,
      audience: slots.audience,
      traceparent: slots.traceparent,
      created_at: slots.createdAt,
    }),
);

/**
 * Records an event through the caller's transaction (`ctx.db`), so it commits or rolls
 * back with the change it describes.
 * `projectId` lets delivery honour the subscriber's project visibility; `audience` names
 * the parts of `data` that concern other projects (see audience.ts), so `data` can be
 * built as a reader of every project sees it and narrowed for each subscriber.
 */
export async function recordEvent(
  ctx: Ctx,
  type: EventType,
  data: Record<string, unknown>,
  projectId: string | null,
  audience?: EventAudience,
): Promise<void> {
  await appendEvent(ctx, originOf(ctx), { type, data, projectId, audience });
}
