import { sql, type Kysely } from 'kysely';
import type { Ctx } from '../db/context.js';
import { newId } from '../core/ids.js';
import { traceparentOf, type RequestTrace } from '../core/trace-context.js';
import { batches } from '../db/batches.js';
import { queryTemplate, slotItems } from '../db/compiled-query.js';
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

/** An event as a write records it: what it says, about which project, and who may see which parts. */
export interface WriteEvent {
  type: EventType;
  data: Record<string, unknown>;
  projectId: string | null;
  audience?: EventAudience;
}

/**
 * Records events in the outbox through `store.db`, a write transaction that holds the
 * workspace's write order (db/write-clock.ts), at the next positions of the workspace's log
 * (event-log.ts), in the order given: one statement, or more past MAX_VARIABLES (batches.ts).
 * Delivery happens after commit.
 */
export async function appendEvents(
  store: { db: Kysely<DB>; dialect: DialectName },
  origin: EventOrigin,
  events: readonly WriteEvent[],
): Promise<void> {
  // A row binds its five values, its workspace, trace and instant; the head binds the workspace twice.
  for (const batch of batches([...events], 8, 2)) {
    const payloads = batch.map((event) => newEnvelope(event.type, origin, event.data));
    await outboxInsert.rows(store, batch.length, {
      workspaceId: origin.workspaceId,
      traceparent: traceparentOf(origin.trace),
      createdAt: origin.now,
      ids: payloads.map((payload) => payload.id),
      types: batch.map((event) => event.type),
      projectIds: batch.map((event) => event.projectId),
      payloads: payloads.map((payload) => JSON.stringify(payload)),
      audiences: batch.map((event) => serialiseAudience(event.audience)),
    });
  }
}

export const appendEvent = (store: { db: Kysely<DB>; dialect: DialectName }, origin: EventOrigin, event: WriteEvent) =>
  appendEvents(store, origin, [event]);

/**
 * Every write records events: their insert is compiled once per count of events. The log's
 * head is read once, before any row is inserted (a WITH query sees the log as the statement
 * began), and the k-th row takes the position after it plus k; the unique index on
 * (workspace_id, seq) would refuse a statement that did otherwise.
 */
const outboxInsert = queryTemplate(
  (
    db,
    slots: {
      workspaceId: string;
      traceparent: string | null;
      createdAt: string;
      ids: string[];
      types: string[];
      projectIds: Array<string | null>;
      payloads: string[];
      audiences: Array<string | null>;
    },
    count: number,
  ) => {
    const [ids, types, projectIds, payloads, audiences] = [
      slots.ids,
      slots.types,
      slots.projectIds,
      slots.payloads,
      slots.audiences,
    ].map((list) => slotItems(list as unknown[], count));
    return db
      .with('head', (db) => db.selectNoFrom(nextPosition(slots.workspaceId).as('position')))
      .insertInto('outbox_events')
      .values(
        Array.from({ length: count }, (_, k) => ({
          id: ids[k] as string,
          workspace_id: slots.workspaceId,
          seq: sql<number>`(select position + ${sql.lit(k)} from head)`,
          type: types[k] as string,
          project_id: projectIds[k] as string | null,
          payload: payloads[k] as string,
          audience: audiences[k] as string | null,
          traceparent: slots.traceparent,
          created_at: slots.createdAt,
        })),
      );
  },
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

/** Records several events through the caller's transaction, in this order (appendEvents). */
export const recordEvents = (ctx: Ctx, events: readonly WriteEvent[]): Promise<void> =>
  appendEvents(ctx, originOf(ctx), events);
