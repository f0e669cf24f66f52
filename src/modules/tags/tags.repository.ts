import { sql } from 'kysely';
import type { Ctx } from '../../db/context.js';
import type { TagUsageRow } from '../../db/schema.js';
import { whereProjectVisible } from '../../db/access.js';
import { batches } from '../../db/batches.js';

export interface UsageCount {
  entity_type: TagUsageRow['entity_type'];
  name: string;
  project_id: string | null;
  count: number;
}

export const listManagedTags = (ctx: Ctx) =>
  ctx.db.selectFrom('tags').selectAll().where('workspace_id', '=', ctx.workspace.id).orderBy('name_lower').execute();

export async function deleteUsages(
  ctx: Ctx,
  entityType: TagUsageRow['entity_type'],
  entityIds: string[],
): Promise<void> {
  if (entityIds.length === 0) return;
  await ctx.db
    .deleteFrom('tag_usages')
    .where('entity_type', '=', entityType)
    .where('entity_id', 'in', entityIds)
    .execute();
}

export async function insertUsages(ctx: Ctx, rows: TagUsageRow[]): Promise<void> {
  for (const batch of batches(rows, 6)) await ctx.db.insertInto('tag_usages').values(batch).execute();
}

/** Usage of tags on issues the caller can see, grouped by (tag, project). */
export async function countIssueTagUsage(ctx: Ctx): Promise<UsageCount[]> {
  let query = ctx.db
    .selectFrom('tag_usages as u')
    .innerJoin('issues as i', 'i.id', 'u.entity_id')
    .select(['u.entity_type', sql<string>`min(u.name)`.as('name'), 'u.project_id', sql<number>`count(*)`.as('count')])
    .where('u.workspace_id', '=', ctx.workspace.id)
    .where('u.entity_type', '=', 'issue')
    .groupBy(['u.entity_type', 'u.name_lower', 'u.project_id']);
  query = whereProjectVisible(ctx, query, 'u.project_id');
  const rows = await query.execute();
  return rows.map((r) => ({ ...r, count: Number(r.count) }));
}
