import { sql } from 'kysely';
import type { Ctx } from '../../db/context.js';
import type { AgendaItemRow } from '../../db/tables/meetings.js';

export const findItemInMeeting = (ctx: Ctx, meetingId: string, itemId: string): Promise<AgendaItemRow | undefined> =>
  ctx.db
    .selectFrom('agenda_items')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('meeting_id', '=', meetingId)
    .where('id', '=', itemId)
    .executeTakeFirst();

/** Every item of a meeting; the service arranges them in agenda order. */
export const listItemRows = (ctx: Ctx, meetingId: string): Promise<AgendaItemRow[]> =>
  ctx.db
    .selectFrom('agenda_items')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('meeting_id', '=', meetingId)
    .orderBy('position')
    .orderBy('created_at')
    .orderBy('id')
    .execute();

/** The items of one group (or the ungrouped ones, for null), in their order. */
export function listItemsInGroup(ctx: Ctx, meetingId: string, groupId: string | null): Promise<AgendaItemRow[]> {
  let query = ctx.db
    .selectFrom('agenda_items')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('meeting_id', '=', meetingId);
  query = groupId === null ? query.where('group_id', 'is', null) : query.where('group_id', '=', groupId);
  return query.orderBy('position').orderBy('created_at').orderBy('id').execute();
}

export async function insertItemRow(ctx: Ctx, row: AgendaItemRow): Promise<void> {
  await ctx.db.insertInto('agenda_items').values(row).execute();
}

/** Applies the changes and answers the item's new version. */
export async function updateItemRow(ctx: Ctx, itemId: string, changes: Partial<AgendaItemRow>): Promise<number> {
  const row = await ctx.db
    .updateTable('agenda_items')
    .set({ ...changes, version: sql`version + 1` })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', itemId)
    .returning('version')
    .executeTakeFirstOrThrow();
  return row.version;
}

export async function deleteItemRows(ctx: Ctx, itemIds: string[]): Promise<void> {
  if (itemIds.length === 0) return;
  await ctx.db
    .deleteFrom('agenda_items')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', 'in', itemIds)
    .execute();
}
