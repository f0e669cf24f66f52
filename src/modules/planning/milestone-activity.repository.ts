import type { Ctx } from '../../db/context.js';
import type { MilestoneActivityRow } from '../../db/tables/planning.js';

export async function insertActivity(ctx: Ctx, rows: MilestoneActivityRow[]): Promise<void> {
  if (rows.length === 0) return;
  await ctx.db.insertInto('milestone_activity').values(rows).execute();
}

/** Oldest first; ids are time-sorted, so they order entries written in one request. */
export const listActivityRows = (ctx: Ctx, milestoneId: string): Promise<MilestoneActivityRow[]> =>
  ctx.db
    .selectFrom('milestone_activity')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('milestone_id', '=', milestoneId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export async function deleteActivity(ctx: Ctx, milestoneId: string): Promise<void> {
  await ctx.db
    .deleteFrom('milestone_activity')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('milestone_id', '=', milestoneId)
    .execute();
}
