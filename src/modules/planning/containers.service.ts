import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { resolveProjectScope, scopeFilter, type ProjectScopeQuery } from '../projects/index.js';
import { presentContainer } from './containers.presenter.js';
import {
  countIssuesByContainer,
  findVisibleContainer,
  listVisibleContainers,
  type ContainerWithProject,
} from './containers.repository.js';

export type { ContainerWithProject } from './containers.repository.js';

/** A container of a project the caller can see, else ISSUE_CONTAINER_NOT_FOUND. */
export async function requireVisibleContainer(ctx: Ctx, containerId: string): Promise<ContainerWithProject> {
  const container = await findVisibleContainer(ctx, containerId);
  if (!container) throw new ApiError('ISSUE_CONTAINER_NOT_FOUND', { issueContainerId: containerId });
  return container;
}

export interface ListContainersInput extends ProjectScopeQuery {
  q?: string;
  archived?: boolean;
  limit?: number;
  cursor?: string;
}

export async function listIssueContainers(ctx: Ctx, input: ListContainersInput) {
  const scope = await resolveProjectScope(ctx, input);
  const { rows, pageInfo } = await listVisibleContainers(
    ctx,
    { ...scopeFilter(scope), q: input.q || undefined, archived: input.archived === true },
    input,
  );
  const counts = await countIssuesByContainer(
    ctx,
    rows.map((r) => r.id),
  );
  const none = { issueCount: 0, openIssueCount: 0 };
  return { issueContainers: rows.map((row) => presentContainer(row, counts.get(row.id) ?? none)), pageInfo };
}
