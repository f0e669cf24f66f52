import { titleOrDescriptionMatch } from '../../db/text-search.js';
import { sql } from 'kysely';
import { batches } from '../../db/batches.js';
import type { Ctx } from '../../db/context.js';
import { meetingVisible } from '../../db/access.js';
import { paginateInOrder } from '../../db/list-page.js';
import type { ListOrder } from '../../core/list-order.js';
import type { MeetingRow } from '../../db/tables/meetings.js';

/** Meeting columns plus its team's and project's keys: everything the presenter needs. */
export type MeetingWithKeys = MeetingRow & { team_key: string | null; project_key: string | null };

const selectWorkspaceMeetings = (ctx: Ctx) =>
  ctx.db
    .selectFrom('meetings as m')
    .leftJoin('teams as t', 't.id', 'm.team_id')
    .leftJoin('projects as p', 'p.id', 'm.project_id')
    .selectAll('m')
    .select(['t.key as team_key', 'p.key as project_key'])
    .where('m.workspace_id', '=', ctx.workspace.id);

const selectMeetings = (ctx: Ctx) => selectWorkspaceMeetings(ctx).where((eb) => meetingVisible(ctx, eb));

export const findVisibleMeeting = (ctx: Ctx, meetingId: string): Promise<MeetingWithKeys | undefined> =>
  selectMeetings(ctx).where('m.id', '=', meetingId).executeTakeFirst();

/**
 * Meetings of the workspace, whether or not the caller sees their project: for a write to a
 * workspace setting (a preset deleted) that changes agenda items in every project.
 */
export async function listWorkspaceMeetings(ctx: Ctx, meetingIds: string[]): Promise<MeetingWithKeys[]> {
  const found: MeetingWithKeys[] = [];
  for (const batch of batches(meetingIds, 1))
    found.push(...(await selectWorkspaceMeetings(ctx).where('m.id', 'in', batch).execute()));
  return found;
}

export interface MeetingFilter {
  teamId?: string;
  projectId?: string;
  type?: string;
  recurrenceType?: string;
  /** Undefined lists archived and active meetings (a sync). */
  archived?: boolean;
  q?: string;
}

export async function listVisibleMeetings(
  ctx: Ctx,
  filter: MeetingFilter,
  order: ListOrder,
  page: { limit?: number; cursor?: string },
) {
  let query = selectMeetings(ctx);
  if (filter.archived !== undefined) query = query.where('m.archived', '=', filter.archived ? 1 : 0);
  if (filter.teamId) query = query.where('m.team_id', '=', filter.teamId);
  if (filter.projectId) query = query.where('m.project_id', '=', filter.projectId);
  if (filter.type) query = query.where('m.type', '=', filter.type);
  if (filter.recurrenceType) query = query.where('m.recurrence_type', '=', filter.recurrenceType);
  const match = filter.q ? await titleOrDescriptionMatch(ctx, 'meetings', 'm', filter.q) : undefined;
  return paginateInOrder(ctx, query, 'm', order, {
    scope: 'meetings',
    filters: { ...filter },
    limit: page.limit,
    cursor: page.cursor,
    textSearch: Boolean(filter.q),
    search: match && { where: (rows) => rows.where(match.where), window: match.window },
  });
}

export async function insertMeeting(ctx: Ctx, row: MeetingRow): Promise<void> {
  await ctx.db.insertInto('meetings').values(row).execute();
}

export async function updateMeeting(ctx: Ctx, meetingId: string, changes: Partial<MeetingRow>): Promise<void> {
  await ctx.db
    .updateTable('meetings')
    .set({ ...changes, version: sql`version + 1` })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', meetingId)
    .execute();
}

/** Deletes the meeting with its groups and items; the items' own dependants go first (see the service). */
export async function deleteMeetingRows(ctx: Ctx, meetingId: string): Promise<void> {
  await ctx.db
    .deleteFrom('agenda_items')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('meeting_id', '=', meetingId)
    .execute();
  await ctx.db
    .deleteFrom('agenda_groups')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('meeting_id', '=', meetingId)
    .execute();
  await ctx.db
    .deleteFrom('meetings')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', meetingId)
    .execute();
}
