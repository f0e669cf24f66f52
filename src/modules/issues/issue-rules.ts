import type { Ctx } from '../../db/context.js';
import { ApiError, type ErrorCode } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { nonBlank } from '../../core/values.js';
import type { StatusRow } from '../../db/schema.js';
import { workflowStatusIds, type ProjectWithDefaultStatus, type ProjectWithTeam } from '../projects/index.js';
import { normaliseTags, sameTags } from '../tags/index.js';
import { agentCanAccessProject, resolveActiveIdentityInTeam, resolveIdentity } from '../users/index.js';
import { PRIORITIES, type Priority } from './issues.presenter.js';
import { findContainer, findStatusById, findStatusesByKey, findVisibleMilestone } from './issues.repository.js';

/**
 * The field rules an issue must satisfy in its project, shared by create and update so
 * both answer the same codes for the same mistakes.
 */

export const TITLE_MAX = LIMITS.title;

/** What an issue shows of its status. */
export type IssueStatus = Pick<StatusRow, 'id' | 'key' | 'category'>;

/**
 * An issue's title, or the title of a record that can become an issue (a topic, a sub-task)
 * and so follows the same rule. `missing` is the code for a blank title: a sub-task answers
 * its own.
 */
export function parseIssueTitle(value: unknown, missing: ErrorCode = 'TITLE_REQUIRED'): string {
  const title = nonBlank(value);
  if (!title) throw new ApiError(missing, { field: 'title' });
  if (title.length > TITLE_MAX)
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'title' },
      { message: `title must be at most ${TITLE_MAX} characters.` },
    );
  return title;
}

export function parsePriority(value: unknown): Priority {
  if (!PRIORITIES.includes(value as Priority)) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'priority', allowed: PRIORITIES },
      { message: `priority must be one of ${PRIORITIES.join(', ')}.` },
    );
  }
  return value as Priority;
}

/** `tags` and its legacy name `labels`; undefined when neither was sent. */
export function parseTagFields(input: { tags?: unknown; labels?: unknown }): string[] | undefined {
  const tags = input.tags !== undefined ? normaliseTags(input.tags, 'tags') : undefined;
  const labels = input.labels !== undefined ? normaliseTags(input.labels, 'labels') : undefined;
  if (tags && labels && !sameTags(tags, labels))
    throw new ApiError('TAG_FIELD_CONFLICT', { field: 'labels', tags, labels });
  return tags ?? labels;
}

/** `issueContainerId` and its alias `epicId`; undefined when neither was sent, null clears. */
export function parseContainerFields(input: {
  epicId?: string | null;
  issueContainerId?: string | null;
}): string | null | undefined {
  const sentContainer = input.issueContainerId !== undefined;
  const sentEpic = input.epicId !== undefined;
  if (sentContainer && sentEpic && input.issueContainerId !== input.epicId) {
    throw new ApiError('ISSUE_CONTAINER_FIELD_CONFLICT', {
      field: 'epicId',
      epicId: input.epicId,
      issueContainerId: input.issueContainerId,
    });
  }
  if (sentContainer) return input.issueContainerId ?? null;
  return sentEpic ? (input.epicId ?? null) : undefined;
}

export interface StatusRef {
  statusId?: string;
  statusKey?: string;
}

/** An empty statusId or statusKey is a reference too: it answers STATUS_NOT_FOUND rather than being skipped. */
export const sendsStatus = (ref: StatusRef): boolean => ref.statusId !== undefined || ref.statusKey !== undefined;

/** A status the project allows: of the project's team and, when it has one, in its workflow. */
export async function checkStatusAllowed<S extends Pick<StatusRow, 'id' | 'key' | 'team_id'>>(
  ctx: Ctx,
  status: S,
  project: ProjectWithTeam,
): Promise<S> {
  const details = { statusId: status.id, statusKey: status.key, projectId: project.id };
  if (status.team_id !== project.team_id) throw new ApiError('STATUS_INVALID_FOR_PROJECT', details);
  const allowed = await workflowStatusIds(ctx, project);
  if (allowed && !allowed.has(status.id)) throw new ApiError('STATUS_INVALID_FOR_PROJECT_WORKFLOW', details);
  return status;
}

/**
 * Resolves statusId / statusKey for a project: STATUS_NOT_FOUND when nothing in the
 * workspace matches, STATUS_INVALID_FOR_PROJECT when it belongs to another team,
 * STATUS_INVALID_FOR_PROJECT_WORKFLOW when the project's workflow leaves it out.
 */
export async function resolveStatusForProject(ctx: Ctx, ref: StatusRef, project: ProjectWithTeam): Promise<StatusRow> {
  if (ref.statusId !== undefined) {
    const status = await findStatusById(ctx, ref.statusId);
    if (!status) throw new ApiError('STATUS_NOT_FOUND', { statusId: ref.statusId });
    if (ref.statusKey !== undefined && ref.statusKey.toLowerCase() !== status.key) {
      throw new ApiError(
        'VALIDATION_FAILED',
        { field: 'statusKey', statusId: ref.statusId, statusKey: ref.statusKey },
        { message: 'statusId and statusKey name different statuses.' },
      );
    }
    return checkStatusAllowed(ctx, status, project);
  }
  const matches = await findStatusesByKey(ctx, ref.statusKey as string);
  if (matches.length === 0) throw new ApiError('STATUS_NOT_FOUND', { statusKey: ref.statusKey });
  return checkStatusAllowed(ctx, matches.find((s) => s.team_id === project.team_id) ?? matches[0], project);
}

/** The status a new issue takes when none is named, as the project lookup found it. */
export function defaultStatus(project: ProjectWithDefaultStatus): IssueStatus {
  const { default_status_id: id, default_status_key: key, default_status_category: category } = project;
  if (id === null || key === null || category === null)
    throw new ApiError(
      'STATUS_NOT_FOUND',
      { projectId: project.id },
      { message: "The project's team has no status an issue could take." },
    );
  return { id, key, category };
}

/**
 * An assignee that may hold work in the project: a member of the project's team, or an
 * active automation agent with access to the project. null unassigns. A project whose lookup
 * read the assignee (`teamCandidate`) spares the read.
 */
export async function checkAssignee(
  ctx: Ctx,
  assigneeId: unknown,
  project: ProjectWithTeam & Pick<ProjectWithDefaultStatus, 'teamCandidate'>,
): Promise<string | null> {
  if (assigneeId === null) return null;
  const found =
    typeof assigneeId === 'string'
      ? await resolveActiveIdentityInTeam(ctx, assigneeId, project.team_id, project.teamCandidate)
      : undefined;
  const details = { field: 'assigneeId', assigneeId, projectId: project.id };
  if (!found) throw new ApiError('ASSIGNEE_NOT_IN_WORKSPACE', details);
  const { identity, inTeam } = found;
  if (identity.kind === 'automation') {
    if (!(await agentCanAccessProject(ctx, identity, project.id)))
      throw new ApiError('ASSIGNEE_NOT_IN_PROJECT', details);
  } else if (!inTeam) {
    throw new ApiError('ASSIGNEE_NOT_IN_PROJECT_TEAM', { ...details, teamKey: project.team_key });
  }
  return identity.id;
}

/** A reporter is a human member of the workspace; null clears. */
export async function checkReporter(ctx: Ctx, reporterId: unknown): Promise<string | null> {
  if (reporterId === null) return null;
  const identity = typeof reporterId === 'string' ? await resolveIdentity(ctx, reporterId) : undefined;
  if (identity?.kind !== 'human') throw new ApiError('REPORTER_NOT_IN_WORKSPACE', { field: 'reporterId', reporterId });
  return identity.id;
}

/** A container of the project (which must have containers enabled); null clears. */
export async function checkContainer(
  ctx: Ctx,
  containerId: string | null,
  project: ProjectWithTeam,
): Promise<string | null> {
  if (containerId === null) return null;
  if (project.issue_containers_enabled !== 1)
    throw new ApiError('ISSUE_CONTAINER_DISABLED', { field: 'issueContainerId', projectId: project.id });
  const container = await findContainer(ctx, containerId);
  if (container?.project_id !== project.id)
    throw new ApiError('ISSUE_CONTAINER_NOT_FOUND', { issueContainerId: containerId, projectId: project.id });
  return container.id;
}

/** A visible milestone of the issue's own container; null clears. */
export async function checkMilestone(
  ctx: Ctx,
  milestoneId: string | null,
  containerId: string | null,
): Promise<string | null> {
  if (milestoneId === null) return null;
  const milestone = await findVisibleMilestone(ctx, milestoneId);
  if (!milestone) throw new ApiError('ISSUE_CONTAINER_MILESTONE_NOT_FOUND', { milestoneId });
  if (milestone.container_id !== containerId) {
    throw new ApiError(
      'ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE',
      { milestoneId, issueContainerId: containerId },
      {
        message: "The issue must be in the milestone's container.",
      },
    );
  }
  return milestone.id;
}
