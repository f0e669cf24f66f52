import { batches } from '../../db/batches.js';
import type { Ctx } from '../../db/context.js';
import type { IssueEvolutionRow } from '../../db/tables/issues.js';

/** Eight bound variables a row: the columns of IssueEvolutionRow. */
const VARIABLES_PER_ROW = 8;

/** Title changes in as few statements as the bound on variables allows (a bulk's, together). */
export async function insertEvolutions(ctx: Ctx, rows: IssueEvolutionRow[]): Promise<void> {
  for (const batch of batches(rows, VARIABLES_PER_ROW))
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
