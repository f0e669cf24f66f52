import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { nonBlank, ownValue } from '../../core/values.js';
import { createIssue, getIssueView, createIssueLink } from '../issues/index.js';
import { workflowStatusIds, type ProjectWithTeam } from '../projects/index.js';
import { listStatuses } from '../teams/index.js';
import { updateSubtask } from './subtasks.repository.js';
import { openSubtaskForWrite, recordSubtaskEvent, subtaskViewsAround } from './subtasks.service.js';

export interface PromoteInput {
  statusMapping?: unknown;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The project status the sub-task's current status maps to. Only that one entry is
 * needed; it may name a statusKey or a statusId, which must be a status of the project's
 * team that the project's workflow allows. Anything else is SUBTASK_STATUS_MAPPING_REQUIRED.
 */
async function mappedStatusId(
  ctx: Ctx,
  project: ProjectWithTeam,
  subtaskStatus: string,
  mapping: unknown,
): Promise<string> {
  const field = `statusMapping.${subtaskStatus}`;
  const wanted = nonBlank(isPlainObject(mapping) ? ownValue(mapping, subtaskStatus) : undefined);
  if (!wanted) throw new ApiError('SUBTASK_STATUS_MAPPING_REQUIRED', { field, subtaskStatus });
  const [{ statuses }, allowed] = await Promise.all([
    listStatuses(ctx, { teamId: project.team_id }),
    workflowStatusIds(ctx, project),
  ]);
  const status = statuses.find((s) => s.statusId === wanted || s.statusKey === wanted.toLowerCase());
  if (!status || (allowed && !allowed.has(status.statusId))) {
    throw new ApiError('SUBTASK_STATUS_MAPPING_REQUIRED', {
      field,
      subtaskStatus,
      statusKey: wanted,
      projectId: project.id,
    });
  }
  return status.statusId;
}

/**
 * Turns a sub-task into a mainline issue in one transaction: the issue takes the
 * sub-task's title, assignee, schedule and reporter, the parent's project and container,
 * and the mapped status; it is linked `related` to the parent, and the sub-task stays
 * listed, marked migrated. A second promotion is UNSUPPORTED_ACTION.
 */
export async function promoteSubtask(ctx: Ctx, issueId: string, subtaskId: string, input: PromoteInput) {
  const { parent, project, subtask } = await openSubtaskForWrite(ctx, issueId, subtaskId);
  if (subtask.migrated === 1) {
    throw new ApiError(
      'UNSUPPORTED_ACTION',
      { subtaskId, migratedIssueId: subtask.migrated_issue_id },
      { message: 'The sub-task was already promoted to an issue.' },
    );
  }
  const statusId = await mappedStatusId(ctx, project, subtask.status, input.statusMapping);
  const promoted = await createIssue(
    ctx,
    {
      title: subtask.title,
      projectId: project.id,
      statusId,
      assigneeId: subtask.assignee_id,
      reporterId: subtask.reporter_id,
      startDate: subtask.start_date,
      dueDate: subtask.due_date,
      durationDays: subtask.duration_days,
      issueContainerId: parent.container_id,
    },
    { source: { type: 'subtask', id: subtask.id } },
  );
  await createIssueLink(ctx, promoted.issueId, { type: 'related', targetIssueId: parent.id });
  await updateSubtask(ctx, subtask.id, { migrated: 1, migrated_issue_id: promoted.issueId, updated_at: ctx.now });
  const { before, after: view } = await subtaskViewsAround(ctx, parent, subtask);
  await recordSubtaskEvent(ctx, 'subtask.promoted', view, parent, before);
  // Read again so the answer shows the link made after the issue was created.
  return { issue: await getIssueView(ctx, promoted.issueId), subtask: view };
}
