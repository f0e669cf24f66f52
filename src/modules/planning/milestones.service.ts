import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { hasOwn, nonBlank } from '../../core/values.js';
import type { MilestoneRow } from '../../db/schema.js';
import { recordEvent } from '../../events/outbox.js';
import { plain, recordWriteEvent } from '../../events/resource-event.js';
import { removeCommentsOf, parseTagFields, scheduleFromInput } from '../issues/index.js';
import { resolveProjectScope, scopeFilter, type ProjectScopeQuery } from '../projects/index.js';
import { ownerIdFrom } from '../users/index.js';
import { requireVisibleContainer, type ContainerWithProject } from './containers.service.js';
import {
  forgetMilestoneActivity,
  listMilestoneActivity,
  recordMilestoneChanges,
  recordMilestoneCreated,
} from './milestone-activity.service.js';
import { presentMilestone, type MilestoneView } from './milestones.presenter.js';
import {
  deleteMilestone,
  detachIssues,
  findVisibleMilestone,
  insertMilestone,
  listVisibleMilestones,
  nextOrderIndex,
  updateMilestone,
} from './milestones.repository.js';
import type { MilestoneStatus } from './milestones.schemas.js';

/** A milestone of a project the caller can see, else ISSUE_CONTAINER_MILESTONE_NOT_FOUND. */
export async function requireVisibleMilestone(ctx: Ctx, milestoneId: string): Promise<MilestoneRow> {
  const milestone = await findVisibleMilestone(ctx, milestoneId);
  if (!milestone) throw new ApiError('ISSUE_CONTAINER_MILESTONE_NOT_FOUND', { milestoneId });
  return milestone;
}

export interface MilestoneInput {
  title?: unknown;
  issueContainerId?: unknown;
  epicId?: unknown;
  ownerId?: unknown;
  status?: MilestoneStatus;
  startDate?: unknown;
  dueDate?: unknown;
  order?: number;
  tags?: unknown;
  labels?: unknown;
}

function validTitle(value: unknown): string {
  const title = nonBlank(value);
  if (!title) throw new ApiError('TITLE_REQUIRED', { field: 'title' });
  return title;
}

/**
 * Which of issueContainerId and its alias epicId a request uses, and its value; undefined
 * when it sends neither. Both sent and different: ISSUE_CONTAINER_FIELD_CONFLICT.
 */
function containerRefOf(input: Pick<MilestoneInput, 'issueContainerId' | 'epicId'>) {
  const hasId = hasOwn(input, 'issueContainerId');
  const hasEpic = hasOwn(input, 'epicId');
  if (!hasId && !hasEpic) return undefined;
  if (hasId && hasEpic && input.issueContainerId !== input.epicId) {
    throw new ApiError('ISSUE_CONTAINER_FIELD_CONFLICT', {
      field: 'epicId',
      issueContainerId: input.issueContainerId,
      epicId: input.epicId,
    });
  }
  const field = hasId ? 'issueContainerId' : 'epicId';
  return { field, value: input[field] };
}

/**
 * The container id a write names; undefined when it names none. Null or blank is
 * ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE: a milestone cannot leave its container.
 */
function writtenContainerId(input: MilestoneInput): string | undefined {
  const ref = containerRefOf(input);
  if (!ref) return undefined;
  const id = nonBlank(ref.value);
  if (!id) throw new ApiError('ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE', { field: ref.field });
  return id;
}

/** A container the milestone can live in: visible, and in a project that uses containers. */
async function usableContainer(ctx: Ctx, containerId: string): Promise<ContainerWithProject> {
  const container = await requireVisibleContainer(ctx, containerId);
  if (container.issue_containers_enabled !== 1) {
    throw new ApiError('ISSUE_CONTAINER_DISABLED', { issueContainerId: containerId, projectId: container.project_id });
  }
  return container;
}

/**
 * A milestone's window: YYYY-MM-DD dates, due on or after start (INVALID_SCHEDULE), by the
 * same rules as issue schedules; milestones have no duration.
 */
function windowOf(startDate: unknown, dueDate: unknown): { start_date: string | null; due_date: string | null } {
  const schedule = scheduleFromInput({ startDate, dueDate });
  return { start_date: schedule.startDate, due_date: schedule.dueDate };
}

async function reload(ctx: Ctx, milestoneId: string): Promise<MilestoneView> {
  return presentMilestone(await requireVisibleMilestone(ctx, milestoneId));
}

export async function createMilestone(ctx: Ctx, input: MilestoneInput): Promise<MilestoneView> {
  const title = validTitle(input.title);
  const containerId = writtenContainerId(input);
  if (!containerId) throw new ApiError('ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE', { field: 'issueContainerId' });
  const container = await usableContainer(ctx, containerId);
  const dates = windowOf(input.startDate, input.dueDate);
  const id = newId('ms', ctx.nowMs);
  await insertMilestone(ctx, {
    id,
    workspace_id: ctx.workspace.id,
    project_id: container.project_id,
    container_id: container.id,
    title,
    owner_id: hasOwn(input, 'ownerId') ? await ownerIdFrom(ctx, input.ownerId) : null,
    status: input.status ?? 'planned',
    ...dates,
    order_index: input.order ?? (await nextOrderIndex(ctx, container.id)),
    tags: JSON.stringify(parseTagFields(input) ?? []),
    created_by: ctx.principal.id,
    created_at: ctx.now,
    updated_at: ctx.now,
    version: 1,
  });
  await recordMilestoneCreated(ctx, id);
  const milestone = await reload(ctx, id);
  await recordEvent(ctx, 'milestone.created', { milestone }, milestone.projectId);
  return milestone;
}

const PATCHABLE = [
  'title',
  'issueContainerId',
  'epicId',
  'ownerId',
  'status',
  'startDate',
  'dueDate',
  'order',
  'tags',
  'labels',
] as const;

/** Builds the row changes of a PATCH, validated against the stored milestone. */
async function changesFor(ctx: Ctx, stored: MilestoneRow, input: MilestoneInput): Promise<Partial<MilestoneRow>> {
  const changes: Partial<MilestoneRow> = {};
  if (hasOwn(input, 'title')) changes.title = validTitle(input.title);
  const containerId = writtenContainerId(input);
  if (containerId && containerId !== stored.container_id) {
    const container = await usableContainer(ctx, containerId);
    // A milestone moves only between containers of its own project.
    if (container.project_id !== stored.project_id) {
      throw new ApiError('ISSUE_CONTAINER_NOT_FOUND', { issueContainerId: containerId, projectId: stored.project_id });
    }
    changes.container_id = container.id;
  }
  if (hasOwn(input, 'ownerId')) changes.owner_id = await ownerIdFrom(ctx, input.ownerId);
  if (input.status !== undefined) changes.status = input.status;
  if (hasOwn(input, 'startDate') || hasOwn(input, 'dueDate')) {
    // The result must hold with the stored date the request leaves as it is.
    Object.assign(
      changes,
      windowOf(
        hasOwn(input, 'startDate') ? input.startDate : stored.start_date,
        hasOwn(input, 'dueDate') ? input.dueDate : stored.due_date,
      ),
    );
  }
  if (input.order !== undefined) changes.order_index = input.order;
  const tags = parseTagFields(input);
  if (tags) changes.tags = JSON.stringify(tags);
  return changes;
}

export async function updateMilestoneById(
  ctx: Ctx,
  milestoneId: string,
  input: MilestoneInput,
): Promise<MilestoneView> {
  const stored = await requireVisibleMilestone(ctx, milestoneId);
  if (!PATCHABLE.some((field) => hasOwn(input, field))) {
    throw new ApiError('UNSUPPORTED_ACTION', { milestoneId }, { message: 'The update names no field to change.' });
  }
  const changes = await changesFor(ctx, stored, input);
  // Issues of the old container leave the milestone first: an issue's milestone must be of
  // its own container (a foreign key on the pair), checked as each statement ends.
  if (changes.container_id) await detachIssues(ctx, milestoneId, changes.container_id);
  await updateMilestone(ctx, milestoneId, { ...changes, updated_at: ctx.now });
  const milestone = await reload(ctx, milestoneId);
  const before = presentMilestone(stored);
  await recordMilestoneChanges(ctx, before, milestone);
  await recordWriteEvent(ctx, 'milestone.updated', 'milestone', milestone.projectId, {
    after: plain(milestone),
    before: plain(before),
  });
  return milestone;
}

export async function deleteMilestoneById(ctx: Ctx, milestoneId: string): Promise<void> {
  const milestone = presentMilestone(await requireVisibleMilestone(ctx, milestoneId));
  await detachIssues(ctx, milestoneId);
  await forgetMilestoneActivity(ctx, milestoneId);
  await removeCommentsOf(ctx, { kind: 'milestone', id: milestoneId });
  await deleteMilestone(ctx, milestoneId);
  await recordEvent(ctx, 'milestone.deleted', { milestone }, milestone.projectId);
}

export async function getMilestone(ctx: Ctx, milestoneId: string) {
  const milestone = presentMilestone(await requireVisibleMilestone(ctx, milestoneId));
  return { ...milestone, activity: await listMilestoneActivity(ctx, milestoneId) };
}

export interface ListMilestonesInput extends ProjectScopeQuery {
  issueContainerId?: string;
  epicId?: string;
  ownerId?: string;
  status?: MilestoneStatus;
  q?: string;
  limit?: number;
  cursor?: string;
}

export async function listMilestones(ctx: Ctx, input: ListMilestonesInput) {
  const scope = await resolveProjectScope(ctx, input);
  const containerId = nonBlank(containerRefOf(input)?.value);
  if (containerId) {
    const container = await requireVisibleContainer(ctx, containerId);
    if (scope.project && container.project_id !== scope.project.id) {
      throw new ApiError('ISSUE_CONTAINER_NOT_FOUND', { issueContainerId: containerId, projectId: scope.project.id });
    }
  }
  const { rows, pageInfo } = await listVisibleMilestones(
    ctx,
    {
      ...scopeFilter(scope),
      containerId,
      ownerId: input.ownerId || undefined,
      status: input.status,
      q: input.q || undefined,
    },
    input,
  );
  return { milestones: rows.map(presentMilestone), pageInfo };
}
