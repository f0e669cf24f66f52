import type { Ctx } from '../../db/context.js';
import type { AgendaItemRow, AgendaOwnerRow } from '../../db/tables/meetings.js';
import type { ExternalOwner } from '../users/index.js';

export async function listOwnerRows(ctx: Ctx, itemIds: string[]): Promise<AgendaOwnerRow[]> {
  if (itemIds.length === 0) return [];
  return ctx.db
    .selectFrom('agenda_owners')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('agenda_item_id', 'in', itemIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export const findOwnerRow = (ctx: Ctx, itemId: string, ownerId: string) =>
  ctx.db
    .selectFrom('agenda_owners')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('agenda_item_id', '=', itemId)
    .where('id', '=', ownerId)
    .executeTakeFirst();

export async function insertOwnerRow(ctx: Ctx, row: AgendaOwnerRow): Promise<void> {
  await ctx.db.insertInto('agenda_owners').values(row).execute();
}

export async function deleteOwnerRow(ctx: Ctx, ownerId: string): Promise<void> {
  await ctx.db
    .deleteFrom('agenda_owners')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', ownerId)
    .execute();
}

export async function deleteOwnersOfItems(ctx: Ctx, itemIds: string[]): Promise<void> {
  if (itemIds.length === 0) return;
  await ctx.db
    .deleteFrom('agenda_owners')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('agenda_item_id', 'in', itemIds)
    .execute();
}

/** The ids of the agenda items with an owner copied from the preset, as a subquery. */
export const itemsOwnedFromPreset = (ctx: Ctx, presetId: string) =>
  ctx.db
    .selectFrom('agenda_owners')
    .select('agenda_item_id')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('preset_id', '=', presetId);

/** The agenda items with an owner copied from the preset (in every project: presets are the workspace's). */
export const listItemsOwnedFromPreset = (ctx: Ctx, presetId: string): Promise<AgendaItemRow[]> =>
  ctx.db
    .selectFrom('agenda_items')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', 'in', itemsOwnedFromPreset(ctx, presetId))
    .orderBy('id')
    .execute();

/** Clears `preset_id` of the owners copied from the preset; their names and emails stay as copied. */
export async function detachOwnersFromPreset(ctx: Ctx, presetId: string): Promise<void> {
  await ctx.db
    .updateTable('agenda_owners')
    .set({ preset_id: null, updated_at: ctx.now })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('preset_id', '=', presetId)
    .execute();
}

/** Distinct external owners on agenda items of the meetings of one project. */
export async function listExternalOwnersOfProject(ctx: Ctx, projectId: string): Promise<ExternalOwner[]> {
  const rows = await ctx.db
    .selectFrom('agenda_owners as o')
    .innerJoin('agenda_items as i', 'i.id', 'o.agenda_item_id')
    .innerJoin('meetings as m', 'm.id', 'i.meeting_id')
    .select(['o.preset_id', 'o.external_name', 'o.external_email'])
    .distinct()
    .where('o.workspace_id', '=', ctx.workspace.id)
    .where('o.kind', '=', 'external')
    .where('m.project_id', '=', projectId)
    .orderBy('o.external_name')
    .orderBy('o.external_email')
    .execute();
  return rows.map((r) => ({ presetId: r.preset_id, externalName: r.external_name, externalEmail: r.external_email }));
}
