import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { hasOwn } from '../../core/values.js';
import type { SubtaskRow } from '../../db/tables/planning.js';
import type { EventType } from '../../events/outbox.js';
import { plain, recordWriteEvent } from '../../events/resource-event.js';
import {
  checkAssignee,
  parseIssueTitle,
  touchIssuesMadeFrom,
  issueRef,
  requireVisibleIssue,
  type IssueRecord,
  applyScheduleChange,
  scheduleFromInput,
  sendsSchedule,
  type ScheduleInput,
} from '../issues/index.js';
import { requireVisibleProject, type ProjectWithTeam } from '../projects/index.js';
import { deleteLinksTouching, listLinksOfSubtasks } from './subtask-links.repository.js';
import { touchSubtasksBlockedBy, touchSubtasksLinkedTo } from './subtask-touch.js';
import { presentSubtask, type SubtaskView } from './subtasks.presenter.js';
import {
  deleteSubtask,
  findSubtaskOfParent,
  insertSubtask,
  listSubtasksOfParent,
  nextPosition,
  updateSubtask,
} from './subtasks.repository.js';
import type { SubtaskStatus } from './subtasks.schemas.js';
import { visibleIdsOf } from '../visibility/index.js';

export interface SubtaskInput extends ScheduleInput {
  title?: unknown;
  status?: SubtaskStatus;
  assigneeId?: unknown;
}

/** What a sub-task write works on: the parent issue and its project. */
export interface SubtaskWriteScope {
  parent: IssueRecord;
  project: ProjectWithTeam;
}

async function requireSubtask(ctx: Ctx, parent: IssueRecord, subtaskId: string): Promise<SubtaskRow> {
  const subtask = await findSubtaskOfParent(ctx, parent.id, subtaskId);
  if (!subtask) throw new ApiError('SUBTASK_NOT_FOUND', { subtaskId, issueId: parent.id });
  return subtask;
}

/** Sub-task writes need sub-tasks enabled on both the project and the parent issue; reads do not. */
async function requireSubtasksEnabled(ctx: Ctx, parent: IssueRecord): Promise<ProjectWithTeam> {
  const project = await requireVisibleProject(ctx, parent.project_id);
  if (project.subtasks_enabled !== 1 || parent.subtasks_enabled !== 1) {
    throw new ApiError('SUBTASK_DISABLED', { issueId: parent.id, projectId: project.id });
  }
  return project;
}

/** The parent of a create: visible (else ISSUE_NOT_FOUND) and open to sub-task writes. */
async function openParentForWrite(ctx: Ctx, issueId: string): Promise<SubtaskWriteScope> {
  const parent = await requireVisibleIssue(ctx, issueId);
  return { parent, project: await requireSubtasksEnabled(ctx, parent) };
}

/** The sub-task of a write on an existing one; SUBTASK_NOT_FOUND is answered before SUBTASK_DISABLED. */
export async function openSubtaskForWrite(
  ctx: Ctx,
  issueId: string,
  subtaskId: string,
): Promise<SubtaskWriteScope & { subtask: SubtaskRow }> {
  const parent = await requireVisibleIssue(ctx, issueId);
  const subtask = await requireSubtask(ctx, parent, subtaskId);
  return { parent, subtask, project: await requireSubtasksEnabled(ctx, parent) };
}

/** Presents sub-tasks of one parent with their links, loaded in one query. */
async function presentSubtasks(ctx: Ctx, parent: IssueRecord, rows: SubtaskRow[]): Promise<SubtaskView[]> {
  const [links, visibleIssues] = await Promise.all([
    listLinksOfSubtasks(
      ctx,
      rows.map((r) => r.id),
    ),
    visibleIdsOf(
      ctx,
      'issue',
      rows.flatMap((r) => (r.migrated_issue_id ? [r.migrated_issue_id] : [])),
    ),
  ]);
  return rows.map((row) => presentSubtask(row, parent, links, visibleIssues));
}

export async function subtaskView(ctx: Ctx, parent: IssueRecord, subtaskId: string): Promise<SubtaskView> {
  const [view] = await presentSubtasks(ctx, parent, [await requireSubtask(ctx, parent, subtaskId)]);
  return view;
}

/**
 * The sub-task as read before a write and as it is now, presented together (one read of
 * the links serves both): for a write that changes no link.
 */
export async function subtaskViewsAround(
  ctx: Ctx,
  parent: IssueRecord,
  before: SubtaskRow,
): Promise<{ before: SubtaskView; after: SubtaskView }> {
  const [was, now] = await presentSubtasks(ctx, parent, [before, await requireSubtask(ctx, parent, before.id)]);
  return { before: was, after: now };
}

/**
 * Every sub-task event carries the sub-task and a reference to its parent issue; one about
 * a write to an existing sub-task, given its view before, also `changes`. Sub-tasks name
 * only records of their parent's project, so every subscriber of the event sees them whole.
 */
export async function recordSubtaskEvent(
  ctx: Ctx,
  type: Extract<EventType, `subtask.${string}`>,
  subtask: SubtaskView,
  parent: IssueRecord,
  before?: SubtaskView,
): Promise<void> {
  await recordWriteEvent(
    ctx,
    type,
    'subtask',
    parent.project_id,
    { after: plain(subtask), before: before && plain(before) },
    { data: { issue: issueRef(parent) } },
  );
}

/** A sub-task can become an issue (promotion), so its title follows the issue title rule. */
const validTitle = (value: unknown): string => parseIssueTitle(value, 'SUBTASK_TITLE_REQUIRED');

export async function listSubtasks(ctx: Ctx, issueId: string) {
  const parent = await requireVisibleIssue(ctx, issueId);
  return { subtasks: await presentSubtasks(ctx, parent, await listSubtasksOfParent(ctx, parent.id)) };
}

export async function getSubtask(ctx: Ctx, issueId: string, subtaskId: string): Promise<SubtaskView> {
  return subtaskView(ctx, await requireVisibleIssue(ctx, issueId), subtaskId);
}

/** Reporter, project and container come from the parent issue; new sub-tasks go last. */
export async function createSubtask(ctx: Ctx, issueId: string, input: SubtaskInput): Promise<SubtaskView> {
  const { parent, project } = await openParentForWrite(ctx, issueId);
  const title = validTitle(input.title);
  const assigneeId = input.assigneeId !== undefined ? await checkAssignee(ctx, input.assigneeId, project) : null;
  const schedule = scheduleFromInput(input);
  const id = newId('sub', ctx.nowMs);
  await insertSubtask(ctx, {
    id,
    workspace_id: ctx.workspace.id,
    parent_issue_id: parent.id,
    title,
    status: input.status ?? 'to-do',
    assignee_id: assigneeId,
    reporter_id: parent.reporter_id,
    start_date: schedule.startDate,
    due_date: schedule.dueDate,
    duration_days: schedule.durationDays,
    position: await nextPosition(ctx, parent.id),
    migrated: 0,
    migrated_issue_id: null,
    created_by: ctx.principal.id,
    created_at: ctx.now,
    updated_at: ctx.now,
    version: 1,
  });
  const subtask = await subtaskView(ctx, parent, id);
  await recordSubtaskEvent(ctx, 'subtask.created', subtask, parent);
  return subtask;
}

const PATCHABLE = ['title', 'status', 'assigneeId', 'startDate', 'dueDate', 'durationDays'] as const;

export async function updateSubtaskById(
  ctx: Ctx,
  issueId: string,
  subtaskId: string,
  input: SubtaskInput,
): Promise<SubtaskView> {
  const { parent, project, subtask } = await openSubtaskForWrite(ctx, issueId, subtaskId);
  if (!PATCHABLE.some((field) => hasOwn(input, field))) {
    throw new ApiError('UNSUPPORTED_ACTION', { subtaskId }, { message: 'The update names no field to change.' });
  }
  const changes: Partial<SubtaskRow> = {};
  if (hasOwn(input, 'title')) changes.title = validTitle(input.title);
  if (input.status !== undefined) changes.status = input.status;
  if (hasOwn(input, 'assigneeId')) changes.assignee_id = await checkAssignee(ctx, input.assigneeId, project);
  if (sendsSchedule(input)) {
    const current = { startDate: subtask.start_date, dueDate: subtask.due_date, durationDays: subtask.duration_days };
    const schedule = applyScheduleChange(current, input);
    Object.assign(changes, {
      start_date: schedule.startDate,
      due_date: schedule.dueDate,
      duration_days: schedule.durationDays,
    });
  }
  await updateSubtask(ctx, subtask.id, { ...changes, updated_at: ctx.now });
  await touchSubtasksBlockedBy(ctx, subtask, changes.status);
  const { before, after } = await subtaskViewsAround(ctx, parent, subtask);
  await recordSubtaskEvent(ctx, 'subtask.updated', after, parent, before);
  return after;
}

/** Deleting a sub-task removes both sides of its links, so no sibling points at it. */
export async function deleteSubtaskById(ctx: Ctx, issueId: string, subtaskId: string): Promise<void> {
  const { parent, subtask } = await openSubtaskForWrite(ctx, issueId, subtaskId);
  const view = await subtaskView(ctx, parent, subtask.id);
  await touchSubtasksLinkedTo(ctx, subtask.id);
  await touchIssuesMadeFrom(ctx, 'subtask', [subtask.id]);
  await deleteLinksTouching(ctx, subtask.id);
  await deleteSubtask(ctx, subtask.id);
  await recordSubtaskEvent(ctx, 'subtask.deleted', view, parent);
}
