import { sql } from 'kysely';
import type { Ctx } from '../../db/context.js';
import type { MilestoneRow } from '../../db/schema.js';
import { whereProjectVisible } from '../../db/access.js';
import { paginate } from '../../db/paginate.js';
import { containsText } from '../../db/text-search.js';

export interface MilestoneFilter {
  projectId?: string;
  teamId?: string;
  containerId?: string;
  ownerId?: string;
  status?: string;
  q?: string;
}

const selectMilestones = (ctx: Ctx) =>
  whereProjectVisible(
    ctx,
    ctx.db.selectFrom('milestones as m').selectAll('m').where('m.workspace_id', '=', ctx.workspace.id),
    'm.project_id',
  );

/** Only milestones of projects the caller can see exist for it. */
export const findVisibleMilestone = (ctx: Ctx, milestoneId: string): Promise<MilestoneRow | undefined> =>
  selectMilestones(ctx).where('m.id', '=', milestoneId).executeTakeFirst();

/** Ordered by `order`, then creation, ascending. */
export function listVisibleMilestones(ctx: Ctx, filter: MilestoneFilter, page: { limit?: number; cursor?: string }) {
  let query = selectMilestones(ctx);
  if (filter.projectId) query = query.where('m.project_id', '=', filter.projectId);
  if (filter.teamId) {
    const teamId = filter.teamId;
    query = query.where('m.project_id', 'in', (eb) =>
      eb.selectFrom('projects').select('projects.id').where('projects.team_id', '=', teamId),
    );
  }
  if (filter.containerId) query = query.where('m.container_id', '=', filter.containerId);
  if (filter.ownerId) query = query.where('m.owner_id', '=', filter.ownerId);
  if (filter.status) query = query.where('m.status', '=', filter.status);
  if (filter.q) query = query.where(containsText(ctx.dialect, 'm.title', filter.q));
  return paginate(ctx, query, {
    scope: 'milestones',
    filters: { ...filter },
    ...page,
    textSearch: Boolean(filter.q),
    direction: 'asc',
    orderBy: [
      ['m.order_index', 'integer'],
      ['m.created_at', 'text'],
      ['m.id', 'text'],
    ],
    keyOf: (r: MilestoneRow) => [r.order_index, r.created_at, r.id],
  });
}

/** The order a new milestone takes to come last in its container (0 in an empty one). */
export async function nextOrderIndex(ctx: Ctx, containerId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('milestones')
    .select((eb) => eb.fn.max('order_index').as('last'))
    .where('workspace_id', '=', ctx.workspace.id)
    .where('container_id', '=', containerId)
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
}

export async function insertMilestone(ctx: Ctx, row: MilestoneRow): Promise<void> {
  await ctx.db.insertInto('milestones').values(row).execute();
}

export async function updateMilestone(ctx: Ctx, milestoneId: string, changes: Partial<MilestoneRow>): Promise<void> {
  await ctx.db
    .updateTable('milestones')
    .set({ ...changes, version: sql`version + 1` })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', milestoneId)
    .execute();
}

export async function deleteMilestone(ctx: Ctx, milestoneId: string): Promise<void> {
  await ctx.db
    .deleteFrom('milestones')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', milestoneId)
    .execute();
}

/**
 * Takes issues off a milestone: all of them (the milestone is going away), or those
 * outside `keepContainerId` (the milestone moved there, and an issue may only carry a
 * milestone of its own container).
 */
export async function detachIssues(ctx: Ctx, milestoneId: string, keepContainerId?: string): Promise<void> {
  let query = ctx.db
    .updateTable('issues')
    .set({ milestone_id: null, updated_at: ctx.now, version: sql`version + 1` })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('milestone_id', '=', milestoneId);
  if (keepContainerId)
    query = query.where((eb) => eb.or([eb('container_id', 'is', null), eb('container_id', '!=', keepContainerId)]));
  await query.execute();
}
