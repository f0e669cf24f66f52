import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Ctx } from '../../db/context.js';
import { projectAbsentOrVisible } from '../../db/access.js';
import { fetchLimit } from '../../db/paginate.js';
import { positionOf } from '../../events/event-log.js';
import type { EventType } from '../../events/outbox.js';

/** One event of the log as the feed reads it. */
export interface LoggedEvent {
  seq: number;
  projectId: string | null;
  payload: string;
  audience: string | null;
}

/** The ids of the discussion groups the caller can see, as a sub-select. */
export type VisibleGroups = SelectQueryBuilder<any, any, { id: string }>;

/**
 * Events of no discussion group, or of one the caller can see. A topic event names its
 * group in its audience (`groups`, events/audience.ts), so the group is read from the
 * stored JSON; the change feed then leaves hidden groups' events out in SQL, as it does
 * hidden projects' ones, and neither its cursor nor `hasMore` moves for them.
 */
function groupAbsentOrVisible(
  ctx: Ctx,
  eb: ExpressionBuilder<any, any>,
  visibleGroups: VisibleGroups,
): Expression<SqlBool> {
  const group =
    ctx.dialect === 'postgres'
      ? sql<string | null>`(audience::jsonb #>> '{groups,0}')`
      : sql<string | null>`json_extract(audience, '$.groups[0]')`;
  return eb.or([eb(group, 'is', null), eb(group, 'in', visibleGroups)]);
}

/**
 * The caller's workspace's events after `after`, in log order, of the given types (all
 * when none) and of projects and discussion groups the caller can see (workspace-level
 * ones too). These filters are SQL, so a page is never emptied by what the caller cannot see; reads the
 * (workspace_id, seq) index as a range.
 */
export async function listEventsAfter(
  ctx: Ctx,
  {
    after,
    types,
    limit,
    visibleGroups,
  }: { after: number; types: EventType[]; limit: number; visibleGroups: VisibleGroups },
): Promise<LoggedEvent[]> {
  let query = ctx.db
    .selectFrom('outbox_events')
    .select(['seq', 'project_id', 'payload', 'audience'])
    .where('workspace_id', '=', ctx.workspace.id)
    .where('seq', '>', after)
    .where((eb) => projectAbsentOrVisible(ctx, eb, 'project_id'))
    .where((eb) => groupAbsentOrVisible(ctx, eb, visibleGroups));
  if (types.length) query = query.where('type', 'in', types);
  const rows = await query.orderBy('seq').limit(fetchLimit(limit)).execute();
  return rows.slice(0, limit).map((row) => ({
    seq: positionOf(row.seq),
    projectId: row.project_id,
    payload: row.payload,
    audience: row.audience,
  }));
}

/** The highest pruned position of each project of the workspace ('' for workspace-level events). */
export async function listPrunedPositions(ctx: Ctx): Promise<Array<{ projectKey: string; seq: number }>> {
  const rows = await ctx.db
    .selectFrom('outbox_pruned')
    .select(['project_key', 'seq'])
    .where('workspace_id', '=', ctx.workspace.id)
    .execute();
  return rows.map((row) => ({ projectKey: row.project_key, seq: positionOf(row.seq) }));
}
