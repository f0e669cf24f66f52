import type { Ctx } from '../core/context.js';
import { newId } from '../core/ids.js';
import { serialiseAudience, type EventAudience } from './audience.js';
import { nextPosition } from './event-log.js';

/** Webhook event types (CONTRACT.md §4). */
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
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Records an event in the outbox through the caller's transaction (`ctx.db`), so it
 * commits or rolls back with the change it describes, at the next position of the
 * workspace's log (event-log.ts). Delivery happens after commit.
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
  const id = newId('evt', ctx.nowMs);
  const payload = {
    id,
    type,
    createdAt: ctx.now,
    workspaceId: ctx.workspace.id,
    actor: { kind: ctx.principal.kind, id: ctx.principal.id },
    data,
  };
  await ctx.db
    .insertInto('outbox_events')
    .values({
      id,
      workspace_id: ctx.workspace.id,
      seq: nextPosition(ctx.workspace.id),
      type,
      project_id: projectId,
      payload: JSON.stringify(payload),
      audience: serialiseAudience(audience),
      created_at: ctx.now,
    })
    .execute();
}
