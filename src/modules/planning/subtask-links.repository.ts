import type { Ctx } from '../../db/context.js';
import type { SubtaskLinkRow } from '../../db/tables/planning.js';

/** A link side plus the target's status, for `isSatisfied`. */
export type SubtaskLinkWithTarget = SubtaskLinkRow & { target_status: string };

/** Every link side of the given sub-tasks in one query, oldest first. */
export async function listLinksOfSubtasks(ctx: Ctx, subtaskIds: string[]): Promise<SubtaskLinkWithTarget[]> {
  if (subtaskIds.length === 0) return [];
  return ctx.db
    .selectFrom('subtask_links as l')
    .innerJoin('subtasks as t', 't.id', 'l.target_subtask_id')
    .selectAll('l')
    .select('t.status as target_status')
    .where('l.workspace_id', '=', ctx.workspace.id)
    .where('l.subtask_id', 'in', subtaskIds)
    .orderBy('l.created_at')
    .orderBy('l.id')
    .execute();
}

export const findLinkSide = (ctx: Ctx, subtaskId: string, targetSubtaskId: string, type: string) =>
  ctx.db
    .selectFrom('subtask_links')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('subtask_id', '=', subtaskId)
    .where('target_subtask_id', '=', targetSubtaskId)
    .where('type', '=', type)
    .executeTakeFirst();

export const findLinkOfSubtask = (ctx: Ctx, subtaskId: string, linkId: string) =>
  ctx.db
    .selectFrom('subtask_links')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('subtask_id', '=', subtaskId)
    .where('id', '=', linkId)
    .executeTakeFirst();

/** Sides that already exist are kept as they are (one side per sub-task, target and type). */
export async function insertLinkSides(ctx: Ctx, rows: SubtaskLinkRow[]): Promise<void> {
  await ctx.db
    .insertInto('subtask_links')
    .values(rows)
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function deleteLinkSide(
  ctx: Ctx,
  subtaskId: string,
  targetSubtaskId: string,
  type: string,
): Promise<void> {
  await ctx.db
    .deleteFrom('subtask_links')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('subtask_id', '=', subtaskId)
    .where('target_subtask_id', '=', targetSubtaskId)
    .where('type', '=', type)
    .execute();
}

/** Both sides of every link a sub-task takes part in (it is being deleted). */
export async function deleteLinksTouching(ctx: Ctx, subtaskId: string): Promise<void> {
  await ctx.db
    .deleteFrom('subtask_links')
    .where('workspace_id', '=', ctx.workspace.id)
    .where((eb) => eb.or([eb('subtask_id', '=', subtaskId), eb('target_subtask_id', '=', subtaskId)]))
    .execute();
}
