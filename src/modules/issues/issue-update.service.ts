import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import type { IssueRow } from '../../db/schema.js';
import type { IssueEvolutionRow } from '../../db/tables/issues.js';
import type { EventType } from '../../events/outbox.js';
import { requireVisibleProject, resolveProjectRef, type ProjectWithTeam } from '../projects/index.js';
import { replaceTagUsages } from '../tags/index.js';
import { getTeamById, resolveTeamRef } from '../teams/index.js';
import { recordTitleChange, titleChangeRow } from './evolution.service.js';
import {
  checkAssignee,
  checkContainer,
  checkMilestone,
  checkReporter,
  checkStatusAllowed,
  parseContainerFields,
  parseIssueTitle,
  parsePriority,
  parseTagFields,
  resolveStatusForProject,
  sendsStatus,
} from './issue-rules.js';
import { isTransitionListed, updateIssueRow, type IssueRecord } from './issues.repository.js';
import { recordIssueEvent } from './issue-events.js';
import { touchIssuesBlockedBy } from './issue-touch.js';
import { requireVisibleIssue, type CreateIssueInput, type IssueView, type ProjectLookups } from './issues.service.js';
import { applyScheduleChange, sendsSchedule } from './schedule.js';

export interface UpdateIssueInput extends CreateIssueInput {
  archived?: unknown;
}

const PATCHABLE: Array<keyof UpdateIssueInput> = [
  'title',
  'description',
  'projectId',
  'projectKey',
  'teamId',
  'teamKey',
  'statusId',
  'statusKey',
  'assigneeId',
  'reporterId',
  'priority',
  'tags',
  'labels',
  'startDate',
  'dueDate',
  'durationDays',
  'epicId',
  'issueContainerId',
  'milestoneId',
  'subtasksEnabled',
  'archived',
];

/**
 * The project the issue ends up in: the one named by projectId / projectKey (a move), else
 * its own; a team sent without a project must be the issue's own team.
 */
async function targetProject(
  ctx: Ctx,
  issue: IssueRecord,
  input: UpdateIssueInput,
  lookups: ProjectLookups | undefined,
): Promise<ProjectWithTeam> {
  const named = await resolveProjectRef(ctx, input);
  if (named) return named;
  const team = await resolveTeamRef(ctx, input);
  if (team && team.id !== issue.team_id)
    throw new ApiError('PROJECT_TEAM_MISMATCH', { projectId: issue.project_id, teamKey: team.key });
  return lookups ? lookups.visible(ctx, issue.project_id) : requireVisibleProject(ctx, issue.project_id);
}

/** Inside one team, a team with transition rules allows only the listed moves. */
async function checkTransition(ctx: Ctx, issue: IssueRecord, toStatusId: string, toStatusKey: string): Promise<void> {
  const team = await getTeamById(ctx, issue.team_id);
  if (team?.has_transition_rules === 1 && !(await isTransitionListed(ctx, issue.status_id, toStatusId))) {
    throw new ApiError('WORKFLOW_TRANSITION_BLOCKED', {
      issueId: issue.id,
      fromStatusKey: issue.status_key,
      toStatusKey,
    });
  }
}

/** The status after the update: a sent one (moves inside a team obey its rules), else the current one, which must suit a new project. */
async function nextStatusId(
  ctx: Ctx,
  issue: IssueRecord,
  project: ProjectWithTeam,
  input: UpdateIssueInput,
): Promise<string> {
  if (sendsStatus(input)) {
    const status = await resolveStatusForProject(ctx, input, project);
    if (status.id !== issue.status_id && project.team_id === issue.team_id)
      await checkTransition(ctx, issue, status.id, status.key);
    return status.id;
  }
  // The current status always belongs to the issue's current team.
  if (project.id !== issue.project_id)
    await checkStatusAllowed(ctx, { id: issue.status_id, key: issue.status_key, team_id: issue.team_id }, project);
  return issue.status_id;
}

function archiveChange(issue: IssueRecord, value: unknown, now: string): Pick<IssueRow, 'archived' | 'archived_at'> {
  if (typeof value !== 'boolean') throw new ApiError('INVALID_ARCHIVE_STATE', { field: 'archived', archived: value });
  if (!value) return { archived: 0, archived_at: null };
  return { archived: 1, archived_at: issue.archived === 1 ? issue.archived_at : now };
}

/** An update's event: archiving and restoring have their own, judged on the issue as written. */
export const updateEventOf =
  (before: IssueRecord) =>
  (view: IssueView): EventType => {
    if (view.archived === (before.archived === 1)) return 'issue.updated';
    return view.archived ? 'issue.archived' : 'issue.restored';
  };

/**
 * PATCH /issues/{issueId}. Everything is checked against the project the issue ends up in:
 * on a move, the current status and assignee must be valid there unless the same request
 * sends valid ones, and the old project's container and milestone are cleared. The key
 * never changes. A new title is also kept as an evolution event.
 */
export async function updateIssue(ctx: Ctx, idOrKey: string, input: UpdateIssueInput): Promise<IssueView> {
  const issue = await requireVisibleIssue(ctx, idOrKey);
  await writeIssueUpdate(ctx, issue, input);
  return recordIssueEvent(ctx, updateEventOf(issue), issue.id, issue);
}

/**
 * What the items of one bulk update share: the reads of their projects, and their title
 * changes, inserted together once every item is written (nothing an item checks reads them).
 */
export interface SharedByItems {
  lookups: ProjectLookups;
  titleChanges: IssueEvolutionRow[];
}

/**
 * Checks and writes one update of `issue` (as read in this write), all but its event: the
 * caller records that once the issue is as it leaves it (a bulk, for all its items at once).
 * A bulk passes what its items share; its caller then inserts `titleChanges`.
 */
export async function writeIssueUpdate(
  ctx: Ctx,
  issue: IssueRecord,
  input: UpdateIssueInput,
  shared?: SharedByItems,
): Promise<void> {
  if (!PATCHABLE.some((field) => input[field] !== undefined)) {
    throw new ApiError(
      'UNSUPPORTED_ACTION',
      { issueId: issue.id },
      { message: 'The update names no field to change.' },
    );
  }
  const changes: Partial<IssueRow> = {};
  const title = input.title !== undefined ? parseIssueTitle(input.title) : issue.title;
  if (title !== issue.title) changes.title = title;
  if (input.description !== undefined) changes.description = input.description;

  const project = await targetProject(ctx, issue, input, shared?.lookups);
  const moved = project.id !== issue.project_id;
  if (moved) Object.assign(changes, { project_id: project.id, team_id: project.team_id });
  changes.status_id = await nextStatusId(ctx, issue, project, input);
  if (input.assigneeId !== undefined) changes.assignee_id = await checkAssignee(ctx, input.assigneeId, project);
  else if (moved && issue.assignee_id) await checkAssignee(ctx, issue.assignee_id, project);
  if (input.reporterId !== undefined) changes.reporter_id = await checkReporter(ctx, input.reporterId);
  if (input.priority !== undefined) changes.priority = parsePriority(input.priority);
  if (input.subtasksEnabled !== undefined) changes.subtasks_enabled = input.subtasksEnabled ? 1 : 0;

  const sentContainer = parseContainerFields(input);
  const containerId =
    sentContainer !== undefined ? await checkContainer(ctx, sentContainer, project) : moved ? null : issue.container_id;
  changes.container_id = containerId;
  // A milestone belongs to one container: it goes when the issue leaves that container.
  if (input.milestoneId !== undefined) changes.milestone_id = await checkMilestone(ctx, input.milestoneId, containerId);
  else if (containerId !== issue.container_id) changes.milestone_id = null;

  if (sendsSchedule(input)) {
    const schedule = applyScheduleChange(
      { startDate: issue.start_date, dueDate: issue.due_date, durationDays: issue.duration_days },
      input,
    );
    Object.assign(changes, {
      start_date: schedule.startDate,
      due_date: schedule.dueDate,
      duration_days: schedule.durationDays,
    });
  }
  if (input.archived !== undefined) Object.assign(changes, archiveChange(issue, input.archived, ctx.now));

  const tags = parseTagFields(input);
  if (tags) changes.tags = JSON.stringify(tags);
  if (tags || moved)
    await replaceTagUsages(ctx, 'issue', issue.id, tags ?? (JSON.parse(issue.tags) as string[]), project.id);
  if (changes.title !== undefined) {
    if (shared) shared.titleChanges.push(titleChangeRow(ctx, issue, title, null));
    else await recordTitleChange(ctx, issue, title, null);
  }

  await updateIssueRow(ctx, issue.id, { ...changes, updated_at: ctx.now });
  await touchIssuesBlockedBy(ctx, issue, changes);
}
