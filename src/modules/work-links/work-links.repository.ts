import type { Ctx } from '../../db/context.js';
import { whereProjectVisible } from '../../db/access.js';
import { batches } from '../../db/batches.js';
import { touchRows, WORK_LINK_OWNER_TABLES } from '../../db/touch.js';
import type { DB } from '../../db/schema.js';
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

/** The links one owner holds, whole rows; a lookup of one of them narrows it further. */
const linksOfOwner = (ctx: Ctx, ownerType: OwnerType, ownerId: string) =>
  ctx.db
    .selectFrom('work_links')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId);

export const findLinkRow = (ctx: Ctx, ownerType: OwnerType, ownerId: string, linkId: string) =>
  linksOfOwner(ctx, ownerType, ownerId).where('id', '=', linkId).executeTakeFirst();

export const findLinkToTarget = (
  ctx: Ctx,
  ownerType: OwnerType,
  ownerId: string,
  targetType: TargetType,
  targetId: string,
) =>
  linksOfOwner(ctx, ownerType, ownerId)
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

/** Where a target kind keeps its key, and the column naming the project that decides who sees it. */
interface KeyedTable<T extends keyof DB> {
  table: T;
  key: keyof DB[T] & string;
  projectColumn: keyof DB[T] & string;
}

/** The target kinds that have a key; a project decides for itself who sees it. */
const TARGET_KEYS: { issue: KeyedTable<'issues'>; project: KeyedTable<'projects'> } = {
  issue: { table: 'issues', key: 'issue_key', projectColumn: 'project_id' },
  project: { table: 'projects', key: 'key', projectColumn: 'id' },
};

/** targetId → issueKey or projectKey, for the given targets of one kind that the caller can see. */
export async function visibleTargetKeys(
  ctx: Ctx,
  type: keyof typeof TARGET_KEYS,
  targetIds: string[],
): Promise<Map<string, string>> {
  if (targetIds.length === 0) return new Map();
  const { table, key, projectColumn } = TARGET_KEYS[type];
  const column = (name: string) => ctx.db.dynamic.ref(`${table}.${name}`);
  const query = ctx.db
    .selectFrom(table)
    .select([column('id'), column(key)])
    .where(column('workspace_id'), '=', ctx.workspace.id)
    .where(column('id'), 'in', targetIds);
  // The columns are named at run time, so Kysely cannot type the rows: they hold the two selected.
  const rows: Array<Record<string, string>> = await whereProjectVisible(
    ctx,
    query,
    `${table}.${projectColumn}`,
  ).execute();
  return new Map(rows.map((row) => [row.id, row[key]]));
}
