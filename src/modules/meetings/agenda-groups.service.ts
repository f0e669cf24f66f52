import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { LIMITS } from '../../core/limits.js';
import { hasOwn, nonBlank } from '../../core/values.js';
import type { AgendaGroupRow } from '../../db/tables/meetings.js';
import { storeItemOrder } from './agenda-order.js';
import { presentAgendaGroup, type AgendaGroupView } from './agenda-groups.presenter.js';
import {
  deleteGroupRow,
  findGroupRow,
  insertGroupRow,
  listGroupRows,
  updateGroupRow,
} from './agenda-groups.repository.js';
import { listItemsInGroup } from './agenda-items.repository.js';
import { requireVisibleMeeting } from './meeting-access.js';
import { storeOrder } from './positions.repository.js';
import { rowsInGivenOrder } from './given-order.js';

export interface AgendaGroupInput {
  name?: unknown;
  description?: string | null;
}

/** A group of this meeting, or AGENDA_GROUP_NOT_FOUND (also for another meeting's group). */
export async function requireAgendaGroup(ctx: Ctx, meetingId: string, groupId: unknown): Promise<AgendaGroupRow> {
  const group = typeof groupId === 'string' ? await findGroupRow(ctx, meetingId, groupId) : undefined;
  if (!group)
    throw new ApiError('AGENDA_GROUP_NOT_FOUND', { field: 'agendaGroupId', agendaGroupId: groupId ?? null, meetingId });
  return group;
}

function validName(value: unknown): string {
  const name = nonBlank(value);
  if (!name) throw new ApiError('NAME_REQUIRED', { field: 'name' });
  return name;
}

export async function listAgendaGroups(ctx: Ctx, meetingId: string): Promise<AgendaGroupView[]> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  return (await listGroupRows(ctx, meeting.id)).map(presentAgendaGroup);
}

export async function createAgendaGroup(
  ctx: Ctx,
  meetingId: string,
  input: AgendaGroupInput,
): Promise<AgendaGroupView> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  const name = validName(input.name);
  const groups = await listGroupRows(ctx, meeting.id);
  // A reorder must name every group, and reorder lists are bounded, so the groups are too.
  if (groups.length >= LIMITS.ordered)
    throw new ApiError('AGENDA_GROUP_LIMIT_REACHED', { meetingId: meeting.id, max: LIMITS.ordered });
  const row: AgendaGroupRow = {
    id: newId('agp', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    meeting_id: meeting.id,
    name,
    description: input.description ?? null,
    position: groups.length,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await insertGroupRow(ctx, row);
  return presentAgendaGroup(row);
}

export async function updateAgendaGroup(
  ctx: Ctx,
  meetingId: string,
  groupId: string,
  input: AgendaGroupInput,
): Promise<AgendaGroupView> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  const group = await requireAgendaGroup(ctx, meeting.id, groupId);
  if (!hasOwn(input, 'name') && !hasOwn(input, 'description')) {
    throw new ApiError(
      'UNSUPPORTED_ACTION',
      { agendaGroupId: groupId },
      { message: 'The update names no field to change.' },
    );
  }
  const changes: Partial<AgendaGroupRow> = { updated_at: ctx.now };
  if (hasOwn(input, 'name')) changes.name = validName(input.name);
  if (hasOwn(input, 'description')) changes.description = input.description ?? null;
  await updateGroupRow(ctx, group.id, changes);
  return presentAgendaGroup({ ...group, ...changes });
}

/** Deletes the group; its items stay in the meeting, after the ungrouped ones, in their order. */
export async function deleteAgendaGroup(ctx: Ctx, meetingId: string, groupId: string): Promise<void> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  const group = await requireAgendaGroup(ctx, meeting.id, groupId);
  const [ungrouped, released] = await Promise.all([
    listItemsInGroup(ctx, meeting.id, null),
    listItemsInGroup(ctx, meeting.id, group.id),
  ]);
  await storeItemOrder(ctx, [...ungrouped, ...released], null);
  await deleteGroupRow(ctx, group.id);
  await storeOrder(ctx, 'agenda_groups', await listGroupRows(ctx, meeting.id));
}

/** A new group order: the complete list of the meeting's groups, each once. Items keep their places inside groups. */
export async function reorderAgendaGroups(
  ctx: Ctx,
  meetingId: string,
  input: { agendaGroupIds?: unknown },
): Promise<AgendaGroupView[]> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  const groups = await listGroupRows(ctx, meeting.id);
  const ordered = rowsInGivenOrder(groups, input.agendaGroupIds);
  if (!ordered) {
    throw new ApiError('INVALID_AGENDA_GROUP_ORDER', {
      field: 'agendaGroupIds',
      expectedAgendaGroupIds: groups.map((g) => g.id),
    });
  }
  return (await storeOrder(ctx, 'agenda_groups', ordered)).map(presentAgendaGroup);
}
