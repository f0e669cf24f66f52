import { sql } from 'kysely';
import type { Ctx } from '../../db/context.js';
import type { IssueContainerRow } from '../../db/schema.js';
import { whereProjectVisible } from '../../db/access.js';
import { paginate } from '../../db/paginate.js';
import { containsText } from '../../db/text-search.js';

/** A container with what its presenter needs from the project. */
export type ContainerWithProject = IssueContainerRow & { project_key: string; issue_containers_enabled: number };

export interface IssueCounts {
  issueCount: number;
  openIssueCount: number;
}

export interface ContainerFilter {
  projectId?: string;
  teamId?: string;
  q?: string;
  archived: boolean;
}

const selectContainers = (ctx: Ctx) =>
  whereProjectVisible(
    ctx,
    ctx.db
      .selectFrom('issue_containers as c')
      .innerJoin('projects as p', 'p.id', 'c.project_id')
      .selectAll('c')
      .select(['p.key as project_key', 'p.issue_containers_enabled'])
      .where('c.workspace_id', '=', ctx.workspace.id),
    'c.project_id',
  );

/** Only containers of projects the caller can see exist for it. */
export const findVisibleContainer = (ctx: Ctx, containerId: string): Promise<ContainerWithProject | undefined> =>
  selectContainers(ctx).where('c.id', '=', containerId).executeTakeFirst();

export function listVisibleContainers(ctx: Ctx, filter: ContainerFilter, page: { limit?: number; cursor?: string }) {
  let query = selectContainers(ctx).where('c.archived', '=', filter.archived ? 1 : 0);
  if (filter.projectId) query = query.where('c.project_id', '=', filter.projectId);
  if (filter.teamId) query = query.where('p.team_id', '=', filter.teamId);
  if (filter.q) query = query.where(containsText(ctx.dialect, 'c.name', filter.q));
  return paginate(ctx, query, {
    scope: 'issue-containers',
    filters: { ...filter },
    ...page,
    orderBy: [
      ['c.created_at', 'text'],
      ['c.id', 'text'],
    ],
    keyOf: (r: ContainerWithProject) => [r.created_at, r.id],
    textSearch: Boolean(filter.q),
  });
}

/**
 * Active-issue counts of a page of containers in one grouped query; "open" leaves out
 * issues whose status is in a completed or canceled category. Only issues the caller can
 * see are counted: a container's issues are in its own project today, but a count must not
 * rest on that to tell nothing about other projects.
 */
export async function countIssuesByContainer(ctx: Ctx, containerIds: string[]): Promise<Map<string, IssueCounts>> {
  if (containerIds.length === 0) return new Map();
  const query = ctx.db
    .selectFrom('issues as i')
    .innerJoin('statuses as s', 's.id', 'i.status_id')
    .select([
      'i.container_id',
      sql<number | string>`count(*)`.as('issue_count'),
      sql<number | string>`sum(case when s.category in ('completed', 'canceled') then 0 else 1 end)`.as('open_count'),
    ])
    .where('i.workspace_id', '=', ctx.workspace.id)
    .where('i.archived', '=', 0)
    .where('i.container_id', 'in', containerIds)
    .groupBy('i.container_id');
  const rows = await whereProjectVisible(ctx, query, 'i.project_id').execute();
  return new Map(
    rows.map((r) => [
      r.container_id as string,
      { issueCount: Number(r.issue_count), openIssueCount: Number(r.open_count) },
    ]),
  );
}
