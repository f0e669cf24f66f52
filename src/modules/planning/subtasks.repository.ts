import { sql } from 'kysely';
import type { Ctx } from '../../db/context.js';
import type { SubtaskRow } from '../../db/tables/planning.js';

export const findSubtaskOfParent = (
  ctx: Ctx,
  parentIssueId: string,
  subtaskId: string,
): Promise<SubtaskRow | undefined> =>
  ctx.db
    .selectFrom('subtasks')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('parent_issue_id', '=', parentIssueId)
    .where('id', '=', subtaskId)
    .executeTakeFirst();

/** A sub-task anywhere in the workspace; callers check its parent's visibility. */
export const findSubtaskInWorkspace = (ctx: Ctx, subtaskId: string): Promise<SubtaskRow | undefined> =>
  ctx.db
    .selectFrom('subtasks')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', subtaskId)
    .executeTakeFirst();

export const listSubtasksOfParent = (ctx: Ctx, parentIssueId: string): Promise<SubtaskRow[]> =>
  ctx.db
    .selectFrom('subtasks')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('parent_issue_id', '=', parentIssueId)
    .orderBy('position')
    .orderBy('id')
    .execute();

/** The position a new sub-task takes to come last under its parent (0 for the first). */
export async function nextPosition(ctx: Ctx, parentIssueId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('subtasks')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('workspace_id', '=', ctx.workspace.id)
    .where('parent_issue_id', '=', parentIssueId)
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
}

export async function insertSubtask(ctx: Ctx, row: SubtaskRow): Promise<void> {
  await ctx.db.insertInto('subtasks').values(row).execute();
}

export async function updateSubtask(ctx: Ctx, subtaskId: string, changes: Partial<SubtaskRow>): Promise<void> {
  await ctx.db
    .updateTable('subtasks')
    .set({ ...changes, version: sql`version + 1` })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', subtaskId)
    .execute();
}

export async function deleteSubtask(ctx: Ctx, subtaskId: string): Promise<void> {
  await ctx.db
    .deleteFrom('subtasks')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', subtaskId)
    .execute();
}
