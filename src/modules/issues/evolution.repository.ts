import type { Ctx } from '../../db/context.js';
import type { IssueEvolutionRow } from '../../db/tables/issues.js';

export async function insertEvolution(ctx: Ctx, row: IssueEvolutionRow): Promise<void> {
  await ctx.db.insertInto('issue_evolutions').values(row).execute();
}

/** Oldest first: the order the title changed in. */
export const listEvolutionRows = (ctx: Ctx, issueId: string) =>
  ctx.db
    .selectFrom('issue_evolutions')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('issue_id', '=', issueId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
