import type { Ctx } from '../../db/context.js';
import type { AgendaGroupRow } from '../../db/tables/meetings.js';

export const listGroupRows = (ctx: Ctx, meetingId: string): Promise<AgendaGroupRow[]> =>
  ctx.db
    .selectFrom('agenda_groups')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('meeting_id', '=', meetingId)
    .orderBy('position')
    .orderBy('id')
    .execute();

export const findGroupRow = (ctx: Ctx, meetingId: string, groupId: string): Promise<AgendaGroupRow | undefined> =>
  ctx.db
    .selectFrom('agenda_groups')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('meeting_id', '=', meetingId)
    .where('id', '=', groupId)
    .executeTakeFirst();

export async function insertGroupRow(ctx: Ctx, row: AgendaGroupRow): Promise<void> {
  await ctx.db.insertInto('agenda_groups').values(row).execute();
}

export async function updateGroupRow(ctx: Ctx, groupId: string, changes: Partial<AgendaGroupRow>): Promise<void> {
  await ctx.db
    .updateTable('agenda_groups')
    .set(changes)
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', groupId)
    .execute();
}

export async function deleteGroupRow(ctx: Ctx, groupId: string): Promise<void> {
  await ctx.db
    .deleteFrom('agenda_groups')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', groupId)
    .execute();
}
