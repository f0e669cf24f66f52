import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Ctx } from './context.js';
import type { WorkLinkRow } from './tables/meetings.js';

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

/** The table of each kind of record that owns work links. */
export const WORK_LINK_OWNER_TABLES: Record<WorkLinkRow['owner_type'], TouchedTable> = {
  meeting: 'meetings',
  agenda_item: 'agenda_items',
  discussion_topic: 'discussion_topics',
};

/**
 * The owners of links to these targets, whose links are about to go (the targets are
 * deleted) or show a new targetKey (a project's key changed); one statement per owner type.
 */
export async function touchOwnersOfLinksTo(
  ctx: Ctx,
  targetType: WorkLinkRow['target_type'],
  targetIds: string[],
): Promise<void> {
  if (targetIds.length === 0) return;
  for (const [ownerType, table] of Object.entries(WORK_LINK_OWNER_TABLES)) {
    await touchRows(ctx, table, (eb) =>
      eb(
        'id',
        'in',
        eb
          .selectFrom('work_links')
          .select('owner_id')
          .where('workspace_id', '=', ctx.workspace.id)
          .where('owner_type', '=', ownerType)
          .where('target_type', '=', targetType)
          .where('target_id', 'in', targetIds),
      ),
    );
  }
}

/**
 * A project's key shows in the records that refer to it: its issues' and meetings'
 * `projectKey`, and the `targetKey` of work links to it (on meetings, agenda items and
 * topics). When the key changes, so do they. Here, below the areas, because it reaches the
 * rows of several (issues, meetings, work links) and is only SQL.
 */
export async function touchReferrersOfProjectKey(ctx: Ctx, projectId: string): Promise<void> {
  await touchRows(ctx, 'issues', (eb) => eb('project_id', '=', projectId));
  await touchRows(ctx, 'meetings', (eb) => eb('project_id', '=', projectId));
  await touchOwnersOfLinksTo(ctx, 'project', [projectId]);
}
