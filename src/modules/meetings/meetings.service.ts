import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { archivedFilter, parseListOrder, type ListOrderQuery } from '../../core/list-order.js';
import { newId } from '../../core/ids.js';
import { LIMITS } from '../../core/limits.js';
import { hasOwn, nonBlank, normaliseDatetime } from '../../core/values.js';
import type { MeetingRow } from '../../db/tables/meetings.js';
import { resolveProjectRef, type ProjectWithTeam } from '../projects/index.js';
import { resolveTeamRef } from '../teams/index.js';
import { deleteAgendaOfMeeting } from './agenda-items.service.js';
import type { MeetingView } from './meetings.presenter.js';
import { presentMeetings, recordMeetingWrite } from './meeting-events.js';
import { requireVisibleMeeting } from './meeting-access.js';
import { deleteMeetingRows, insertMeeting, listVisibleMeetings, updateMeeting } from './meetings.repository.js';
import { removeWorkLinksOwnedBy } from '../work-links/index.js';

async function reload(ctx: Ctx, meetingId: string): Promise<MeetingView> {
  const [view] = await presentMeetings(ctx, [await requireVisibleMeeting(ctx, meetingId)]);
  return view;
}

export interface MeetingInput {
  title?: unknown;
  description?: string | null;
  type?: string;
  recurrenceType?: string;
  startsAt?: unknown;
  endsAt?: unknown;
  teamId?: string | null;
  teamKey?: string | null;
  projectId?: string | null;
  projectKey?: string | null;
  archived?: unknown;
}

function validTitle(value: unknown): string {
  const title = nonBlank(value);
  if (!title) throw new ApiError('MEETING_TITLE_REQUIRED', { field: 'title' });
  return title;
}

function validType(value: unknown): string {
  const type = nonBlank(value);
  if (!type || type.length > LIMITS.meetingType)
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'type' },
      { message: 'type must be a string of 1–50 characters.' },
    );
  return type;
}

function validDatetime(value: unknown, field: 'startsAt' | 'endsAt'): string | null {
  if (value === null) return null;
  const normalised = normaliseDatetime(value);
  if (!normalised)
    throw new ApiError(
      'INVALID_MEETING_TIME',
      { field, value },
      { message: `${field} must be an ISO 8601 datetime with an offset.` },
    );
  return normalised;
}

function validArchived(value: unknown): number {
  if (typeof value !== 'boolean') throw new ApiError('INVALID_ARCHIVE_STATE', { field: 'archived', value });
  return value ? 1 : 0;
}

/** The schedule after a write: end after start, and a recurring meeting needs a start. */
function checkSchedule(startsAt: string | null, endsAt: string | null, recurrenceType: string): void {
  if (startsAt && endsAt && Date.parse(endsAt) <= Date.parse(startsAt)) {
    throw new ApiError(
      'INVALID_MEETING_TIME',
      { field: 'endsAt', startsAt, endsAt },
      { message: 'endsAt must be after startsAt.' },
    );
  }
  if (recurrenceType !== 'none' && !startsAt)
    throw new ApiError('RECURRENCE_START_REQUIRED', { field: 'startsAt', recurrenceType });
}

/**
 * Team and project after a write. A project decides the team (a given team must match);
 * without a project the team is the one given, or none. Clearing the project keeps the team.
 */
async function placement(ctx: Ctx, input: MeetingInput, current: Pick<MeetingRow, 'team_id' | 'project_id'>) {
  // Null or absent means "no project"; any string, even "", is a reference that must resolve.
  if (typeof input.projectId === 'string' || typeof input.projectKey === 'string') {
    const project = (await resolveProjectRef(ctx, input)) as ProjectWithTeam;
    return { team_id: project.team_id, project_id: project.id };
  }
  const projectId = hasOwn(input, 'projectId') || hasOwn(input, 'projectKey') ? null : current.project_id;
  if (!hasOwn(input, 'teamId') && !hasOwn(input, 'teamKey')) return { team_id: current.team_id, project_id: projectId };
  const teamId = (await resolveTeamRef(ctx, input))?.id ?? null;
  if (projectId && teamId !== current.team_id) {
    throw new ApiError(
      'PROJECT_TEAM_MISMATCH',
      { projectId, teamId },
      { message: "The meeting's project belongs to another team; change or clear the project too." },
    );
  }
  return { team_id: teamId, project_id: projectId };
}

export async function createMeeting(ctx: Ctx, input: MeetingInput): Promise<MeetingView> {
  const title = validTitle(input.title);
  const startsAt = hasOwn(input, 'startsAt') ? validDatetime(input.startsAt, 'startsAt') : null;
  const endsAt = hasOwn(input, 'endsAt') ? validDatetime(input.endsAt, 'endsAt') : null;
  const recurrenceType = input.recurrenceType ?? 'none';
  checkSchedule(startsAt, endsAt, recurrenceType);
  const where = await placement(ctx, input, { team_id: null, project_id: null });
  const id = newId('mtg', ctx.nowMs);
  await insertMeeting(ctx, {
    id,
    workspace_id: ctx.workspace.id,
    title,
    description: input.description ?? null,
    type: hasOwn(input, 'type') ? validType(input.type) : 'meeting',
    recurrence_type: recurrenceType,
    starts_at: startsAt,
    ends_at: endsAt,
    ...where,
    archived: hasOwn(input, 'archived') ? validArchived(input.archived) : 0,
    created_by: ctx.principal.id,
    created_at: ctx.now,
    updated_at: ctx.now,
    version: 1,
  });
  return recordMeetingWrite(ctx, 'meeting.created', await requireVisibleMeeting(ctx, id));
}

const PATCHABLE = [
  'title',
  'description',
  'type',
  'recurrenceType',
  'startsAt',
  'endsAt',
  'teamId',
  'teamKey',
  'projectId',
  'projectKey',
  'archived',
] as const;

export async function updateMeetingById(ctx: Ctx, meetingId: string, input: MeetingInput): Promise<MeetingView> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  if (!PATCHABLE.some((field) => hasOwn(input, field)))
    throw new ApiError('UNSUPPORTED_ACTION', { meetingId }, { message: 'The update names no field to change.' });
  const changes: Partial<MeetingRow> = {};
  if (hasOwn(input, 'title')) changes.title = validTitle(input.title);
  if (hasOwn(input, 'description')) changes.description = input.description ?? null;
  if (hasOwn(input, 'type')) changes.type = validType(input.type);
  if (hasOwn(input, 'archived')) changes.archived = validArchived(input.archived);
  const startsAt = hasOwn(input, 'startsAt') ? validDatetime(input.startsAt, 'startsAt') : meeting.starts_at;
  const endsAt = hasOwn(input, 'endsAt') ? validDatetime(input.endsAt, 'endsAt') : meeting.ends_at;
  const recurrenceType = input.recurrenceType ?? meeting.recurrence_type;
  checkSchedule(startsAt, endsAt, recurrenceType);
  Object.assign(
    changes,
    { starts_at: startsAt, ends_at: endsAt, recurrence_type: recurrenceType },
    await placement(ctx, input, meeting),
  );
  await updateMeeting(ctx, meeting.id, { ...changes, updated_at: ctx.now });
  return recordMeetingWrite(ctx, 'meeting.updated', await requireVisibleMeeting(ctx, meeting.id), { row: meeting });
}

export async function getMeeting(ctx: Ctx, meetingId: string): Promise<MeetingView> {
  return reload(ctx, meetingId);
}

export interface MeetingListQuery extends ListOrderQuery {
  teamId?: string;
  teamKey?: string;
  projectId?: string;
  projectKey?: string;
  type?: string;
  recurrenceType?: string;
  archived?: boolean;
  view?: string;
  q?: string;
  limit?: number;
  cursor?: string;
}

/** `archived` and its older name `view`; either asking for archived meetings wins. */
function archivedAsked(query: MeetingListQuery): boolean | undefined {
  if (query.archived === true || query.view === 'archived') return true;
  if (query.archived === false || query.view === 'active') return false;
  return undefined;
}

export async function listMeetings(ctx: Ctx, query: MeetingListQuery) {
  const project = await resolveProjectRef(ctx, query);
  const team = project ? undefined : await resolveTeamRef(ctx, query);
  const order = parseListOrder(query);
  const { rows, pageInfo } = await listVisibleMeetings(
    ctx,
    {
      teamId: project?.team_id ?? team?.id,
      projectId: project?.id,
      type: query.type,
      recurrenceType: query.recurrenceType,
      archived: archivedFilter(order, archivedAsked(query)),
      q: nonBlank(query.q),
    },
    order,
    query,
  );
  return { meetings: await presentMeetings(ctx, rows), pageInfo };
}

/** Deletes the meeting and its whole agenda; issues made from it stay. */
export async function deleteMeeting(ctx: Ctx, meetingId: string): Promise<void> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  await deleteAgendaOfMeeting(ctx, meeting.id);
  await removeWorkLinksOwnedBy(ctx, 'meeting', [meeting.id]);
  await deleteMeetingRows(ctx, meeting.id);
}
