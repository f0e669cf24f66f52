import { canSeeProject } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { hasOwn, isCalendarDate, nonBlank } from '../../core/values.js';
import type { AgendaItemRow } from '../../db/tables/meetings.js';
import { requireVisibleProject } from '../projects/index.js';
import { parseTagFields, touchIssuesMadeFrom } from '../issues/index.js';
import { removeTagUsages, replaceTagUsages } from '../tags/index.js';
import { requireAgendaGroup } from './agenda-groups.service.js';
import { listGroupRows } from './agenda-groups.repository.js';
import { arrangeAgenda, insertAt, storeItemOrder } from './agenda-order.js';
import type { AgendaItemView } from './agenda-items.presenter.js';
import { presentAgendaItemRow, presentAgendaItems, recordAgendaItemWrite } from './agenda-item-events.js';
import {
  deleteItemRows,
  insertItemRow,
  listItemRows,
  listItemsInGroup,
  updateItemRow,
} from './agenda-items.repository.js';
import { defaultAgendaStatus, requireAgendaStatus } from './agenda-statuses.service.js';
import { removeAttachmentsOfItems } from './item-attachments.service.js';
import { requireAgendaItem, requireVisibleMeeting } from './meeting-access.js';
import type { MeetingWithKeys } from './meetings.repository.js';
import { deleteOwnersOfItems } from './owners.repository.js';
import { removeWorkLinksOfRecords } from '../work-links/index.js';

export interface AgendaItemInput {
  title?: unknown;
  description?: string | null;
  notes?: string | null;
  agendaGroupId?: string | null;
  statusId?: unknown;
  tags?: unknown;
  labels?: unknown;
  sourceProjectId?: string | null;
  checkInDate?: unknown;
  position?: number;
}

export type { AgendaItemView } from './agenda-items.presenter.js';

function validTitle(value: unknown): string {
  const title = nonBlank(value);
  if (!title) throw new ApiError('AGENDA_ITEM_TITLE_REQUIRED', { field: 'title' });
  return title;
}

function validCheckInDate(value: unknown): string | null {
  if (value === null) return null;
  if (!isCalendarDate(value))
    throw new ApiError(
      'INVALID_MEETING_TIME',
      { field: 'checkInDate', value },
      { message: 'checkInDate must be a YYYY-MM-DD calendar date.' },
    );
  return value;
}

async function validGroupId(ctx: Ctx, meetingId: string, value: unknown): Promise<string | null> {
  return value === null ? null : (await requireAgendaGroup(ctx, meetingId, value)).id;
}

/**
 * The tag rule, as for discussion topics: an explicit sourceProjectId wins (null keeps the
 * tags agenda-only, a project must be accessible); a write that sets tags without it takes
 * the meeting's project, unless `current` is hidden from the caller; any other write keeps
 * `current`.
 */
async function sourceProjectFor(
  ctx: Ctx,
  meeting: MeetingWithKeys,
  input: AgendaItemInput,
  tagsWritten: boolean,
  current: string | null,
): Promise<string | null> {
  if (hasOwn(input, 'sourceProjectId')) {
    return input.sourceProjectId === null || input.sourceProjectId === undefined
      ? null
      : (await requireVisibleProject(ctx, input.sourceProjectId)).id;
  }
  // A source project the caller cannot see is kept: it cannot know what it would replace.
  const hiddenCurrent = current !== null && !canSeeProject(ctx.access, current);
  return tagsWritten && !hiddenCurrent ? meeting.project_id : current;
}

export async function listAgendaItems(ctx: Ctx, meetingId: string): Promise<AgendaItemView[]> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  const [groups, items] = await Promise.all([listGroupRows(ctx, meeting.id), listItemRows(ctx, meeting.id)]);
  return presentAgendaItems(ctx, arrangeAgenda(groups, items));
}

export async function getAgendaItem(ctx: Ctx, meetingId: string, itemId: string): Promise<AgendaItemView> {
  const { item } = await requireAgendaItem(ctx, meetingId, itemId);
  return presentAgendaItemRow(ctx, item);
}

export async function createAgendaItem(ctx: Ctx, meetingId: string, input: AgendaItemInput): Promise<AgendaItemView> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  const title = validTitle(input.title);
  const groupId = hasOwn(input, 'agendaGroupId') ? await validGroupId(ctx, meeting.id, input.agendaGroupId) : null;
  const status = hasOwn(input, 'statusId')
    ? await requireAgendaStatus(ctx, input.statusId)
    : await defaultAgendaStatus(ctx);
  const tags = parseTagFields(input) ?? [];
  // A new item writes its tag set (even an empty one), so it takes the meeting's project unless told otherwise.
  const sourceProjectId = await sourceProjectFor(ctx, meeting, input, true, null);
  const checkInDate = hasOwn(input, 'checkInDate') ? validCheckInDate(input.checkInDate) : null;
  const siblings = await listItemsInGroup(ctx, meeting.id, groupId);
  const row: AgendaItemRow = {
    id: newId('agi', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    meeting_id: meeting.id,
    group_id: groupId,
    title,
    description: input.description ?? null,
    notes: input.notes ?? null,
    status_id: status.id,
    tags: JSON.stringify(tags),
    source_project_id: sourceProjectId,
    check_in_date: checkInDate,
    converted: 0,
    converted_issue_id: null,
    task_issue_ids: '[]',
    position: siblings.length,
    created_by: ctx.principal.id,
    created_at: ctx.now,
    updated_at: ctx.now,
    version: 1,
  };
  await insertItemRow(ctx, row);
  await replaceTagUsages(ctx, 'agenda_item', row.id, tags, sourceProjectId);
  return recordAgendaItemWrite(ctx, 'agenda_item.created', meeting, row);
}

const PATCHABLE = [
  'title',
  'description',
  'notes',
  'agendaGroupId',
  'statusId',
  'tags',
  'labels',
  'sourceProjectId',
  'checkInDate',
  'position',
] as const;

/** Moves the item to `groupId` at `position` (its end when omitted) and closes the gap it left. */
async function placeItem(
  ctx: Ctx,
  meeting: MeetingWithKeys,
  item: AgendaItemRow,
  groupId: string | null,
  position: number | undefined,
): Promise<void> {
  const siblings = (await listItemsInGroup(ctx, meeting.id, groupId)).filter((i) => i.id !== item.id);
  await storeItemOrder(ctx, insertAt(siblings, item, position), groupId);
  if (groupId !== item.group_id)
    await storeItemOrder(ctx, await listItemsInGroup(ctx, meeting.id, item.group_id), item.group_id);
}

export async function updateAgendaItem(
  ctx: Ctx,
  meetingId: string,
  itemId: string,
  input: AgendaItemInput,
): Promise<AgendaItemView> {
  const { meeting, item } = await requireAgendaItem(ctx, meetingId, itemId);
  if (!PATCHABLE.some((field) => hasOwn(input, field)))
    throw new ApiError(
      'UNSUPPORTED_ACTION',
      { agendaItemId: itemId },
      { message: 'The update names no field to change.' },
    );
  const changes: Partial<AgendaItemRow> = {};
  if (hasOwn(input, 'title')) changes.title = validTitle(input.title);
  if (hasOwn(input, 'description')) changes.description = input.description ?? null;
  if (hasOwn(input, 'notes')) changes.notes = input.notes ?? null;
  if (hasOwn(input, 'statusId')) changes.status_id = (await requireAgendaStatus(ctx, input.statusId)).id;
  if (hasOwn(input, 'checkInDate')) changes.check_in_date = validCheckInDate(input.checkInDate);
  const tags = parseTagFields(input);
  if (tags !== undefined) changes.tags = JSON.stringify(tags);
  const sourceProjectId = await sourceProjectFor(ctx, meeting, input, tags !== undefined, item.source_project_id);
  if (sourceProjectId !== item.source_project_id) changes.source_project_id = sourceProjectId;
  const groupId = hasOwn(input, 'agendaGroupId')
    ? await validGroupId(ctx, meeting.id, input.agendaGroupId)
    : item.group_id;
  if (groupId !== item.group_id || input.position !== undefined)
    await placeItem(ctx, meeting, item, groupId, input.position);

  await updateItemRow(ctx, item.id, { ...changes, updated_at: ctx.now });
  const updated = await requireAgendaItem(ctx, meeting.id, item.id);
  if (changes.tags !== undefined || hasOwn(changes, 'source_project_id')) {
    await replaceTagUsages(
      ctx,
      'agenda_item',
      item.id,
      JSON.parse(updated.item.tags) as string[],
      updated.item.source_project_id,
    );
  }
  return recordAgendaItemWrite(ctx, 'agenda_item.updated', meeting, updated.item, { row: item });
}

/**
 * Removes everything hanging off these items (owners, links both ways, attachments, tag
 * usage); issues made from them keep their source, which reads null once they are gone.
 */
async function removeItemDependants(ctx: Ctx, itemIds: string[]): Promise<void> {
  await deleteOwnersOfItems(ctx, itemIds);
  await removeWorkLinksOfRecords(ctx, 'agenda_item', itemIds);
  await touchIssuesMadeFrom(ctx, 'agenda_item', itemIds);
  await removeAttachmentsOfItems(ctx, itemIds);
  await removeTagUsages(ctx, 'agenda_item', itemIds);
}

export async function deleteAgendaItem(ctx: Ctx, meetingId: string, itemId: string): Promise<void> {
  const { meeting, item } = await requireAgendaItem(ctx, meetingId, itemId);
  await removeItemDependants(ctx, [item.id]);
  await deleteItemRows(ctx, [item.id]);
  await storeItemOrder(ctx, await listItemsInGroup(ctx, meeting.id, item.group_id), item.group_id);
}

/** The item dependants of a meeting being deleted; the meeting removes its own rows. */
export async function deleteAgendaOfMeeting(ctx: Ctx, meetingId: string): Promise<void> {
  await removeItemDependants(
    ctx,
    (await listItemRows(ctx, meetingId)).map((i) => i.id),
  );
}
