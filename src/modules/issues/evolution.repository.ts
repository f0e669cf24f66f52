import { batches } from '../../db/batches.js';
import type { Ctx } from '../../db/context.js';
import type { IssueEvolutionRow } from '../../db/tables/issues.js';

/** Title changes in as few statements as the bound on variables allows (a bulk's, together). */
export async function insertEvolutions(ctx: Ctx, rows: IssueEvolutionRow[]): Promise<void> {
  if (rows.length === 0) return;
  // A bound variable for each column a row sets.
  for (const batch of batches(rows, Object.keys(rows[0]).length))
    await ctx.db.insertInto('issue_evolutions').values(batch).execute();
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
