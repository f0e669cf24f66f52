import type { Ctx } from '../../db/context.js';
import { whereProjectVisible } from '../../db/access.js';
import { batches } from '../../db/batches.js';
import { touchRows, WORK_LINK_OWNER_TABLES } from '../../db/touch.js';
import type { WorkLinkRow } from '../../db/tables/meetings.js';

type OwnerType = WorkLinkRow['owner_type'];
type TargetType = WorkLinkRow['target_type'];

export async function listLinkRows(ctx: Ctx, ownerType: OwnerType, ownerIds: string[]): Promise<WorkLinkRow[]> {
  if (ownerIds.length === 0) return [];
  return ctx.db
    .selectFrom('work_links')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('owner_type', '=', ownerType)
    .where('owner_id', 'in', ownerIds)
    .orderBy('owner_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export const findLinkRow = (ctx: Ctx, ownerType: OwnerType, ownerId: string, linkId: string) =>
  ctx.db
    .selectFrom('work_links')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .where('id', '=', linkId)
    .executeTakeFirst();

export const findLinkToTarget = (
  ctx: Ctx,
  ownerType: OwnerType,
  ownerId: string,
  targetType: TargetType,
  targetId: string,
) =>
  ctx.db
    .selectFrom('work_links')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .where('target_type', '=', targetType)
    .where('target_id', '=', targetId)
    .executeTakeFirst();

export async function nextLinkPosition(ctx: Ctx, ownerType: OwnerType, ownerId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('work_links')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('workspace_id', '=', ctx.workspace.id)
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
}

export async function insertLinkRows(ctx: Ctx, rows: WorkLinkRow[]): Promise<void> {
  for (const batch of batches(rows, 8)) await ctx.db.insertInto('work_links').values(batch).execute();
}

export async function deleteLinkRows(ctx: Ctx, linkIds: string[]): Promise<void> {
  if (linkIds.length === 0) return;
  await ctx.db
    .deleteFrom('work_links')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', 'in', linkIds)
    .execute();
}

export async function setLinkPosition(ctx: Ctx, linkId: string, position: number): Promise<void> {
  await ctx.db
    .updateTable('work_links')
    .set({ position })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', linkId)
    .execute();
}

/** Deletes the links owned by (`side` owner) or pointing at (`side` target) these records. */
export async function deleteLinksAt(ctx: Ctx, side: 'owner', type: OwnerType, ids: string[]): Promise<void>;
export async function deleteLinksAt(ctx: Ctx, side: 'target', type: TargetType, ids: string[]): Promise<void>;
export async function deleteLinksAt(
  ctx: Ctx,
  side: 'owner' | 'target',
  type: OwnerType | TargetType,
  ids: string[],
): Promise<void> {
  if (ids.length === 0) return;
  const query = ctx.db.deleteFrom('work_links').where('workspace_id', '=', ctx.workspace.id);
  await (
    side === 'owner'
      ? query.where('owner_type', '=', type as OwnerType).where('owner_id', 'in', ids)
      : query.where('target_type', '=', type as TargetType).where('target_id', 'in', ids)
  ).execute();
}

/** An owner whose links changed: its GET shows them (db/touch.ts). */
export const touchLinkOwner = (ctx: Ctx, ownerType: OwnerType, ownerId: string): Promise<void> =>
  touchRows(ctx, WORK_LINK_OWNER_TABLES[ownerType], (eb) => eb('id', '=', ownerId));

/** issueId → issueKey for the given issues the caller can see. */
export async function visibleIssueKeys(ctx: Ctx, issueIds: string[]): Promise<Map<string, string>> {
  if (issueIds.length === 0) return new Map();
  const query = ctx.db
    .selectFrom('issues')
    .select(['issues.id', 'issues.issue_key'])
    .where('issues.workspace_id', '=', ctx.workspace.id)
    .where('issues.id', 'in', issueIds);
  const rows = await whereProjectVisible(ctx, query, 'issues.project_id').execute();
  return new Map(rows.map((r) => [r.id, r.issue_key]));
}

/** projectId → projectKey for the given projects the caller can see. */
export async function visibleProjectKeys(ctx: Ctx, projectIds: string[]): Promise<Map<string, string>> {
  if (projectIds.length === 0) return new Map();
  const query = ctx.db
    .selectFrom('projects')
    .select(['projects.id', 'projects.key'])
    .where('projects.workspace_id', '=', ctx.workspace.id)
    .where('projects.id', 'in', projectIds);
  const rows = await whereProjectVisible(ctx, query, 'projects.id').execute();
  return new Map(rows.map((r) => [r.id, r.key]));
}
