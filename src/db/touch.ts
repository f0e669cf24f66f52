import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Ctx } from './context.js';

/** The versioned tables whose records a write elsewhere can change as presented. */
export type TouchedTable = 'issues' | 'meetings' | 'agenda_items' | 'discussion_topics' | 'subtasks';

/**
 * Marks records as changed when a write to another record changed what their GET shows (a
 * link to them dropped, a key or status they present): `updated_at` takes the write's
 * instant and `version` moves on, as an update of their own would, so a client syncing by
 * `updatedAt` or holding an ETag sees the change. Set-based: one statement however many
 * records the write reaches. Rows of the caller's workspace only.
 */
export async function touchRows(
  ctx: Ctx,
  table: TouchedTable,
  which: (eb: ExpressionBuilder<any, any>) => Expression<SqlBool>,
): Promise<void> {
  // Typed as issues: every touched table has the three columns this statement sets and reads.
  await ctx.db
    .updateTable(table as 'issues')
    .set({ updated_at: ctx.now, version: sql`version + 1` })
    .where('workspace_id', '=', ctx.workspace.id)
    .where((eb) => which(eb as ExpressionBuilder<any, any>))
    .execute();
}
