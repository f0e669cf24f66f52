import { forgetCachedCredentials } from '../auth/index.js';
import { sql, type Kysely } from 'kysely';
import { queryTemplate } from '../../db/compiled-query.js';
import type { Ctx } from '../../db/context.js';
import type { DB, ProjectRow } from '../../db/schema.js';
import { visibilityShape, whereProjectVisible, whereProjectVisibleTo, type VisibilityShape } from '../../db/access.js';
import { paginateInOrder } from '../../db/list-page.js';
import type { ListOrder } from '../../core/list-order.js';

/** Project columns plus its team's key: everything the presenter needs in one row. */
export type ProjectWithTeam = ProjectRow & { team_key: string };

/** The status a new issue of the project takes when none is named (see withCreateContext). */
export interface DefaultStatus {
  default_status_id: string | null;
  default_status_key: string | null;
  default_status_category: string | null;
}

const projectsWithTeamKey = (db: Kysely<DB>, workspaceId: string) =>
  db
    .selectFrom('projects')
    .innerJoin('teams', 'teams.id', 'projects.team_id')
    .selectAll('projects')
    .select('teams.key as team_key')
    .where('projects.workspace_id', '=', workspaceId);

const selectProjects = (ctx: Ctx) =>
  whereProjectVisible(ctx, projectsWithTeamKey(ctx.db, ctx.workspace.id), 'projects.id');

/**
 * What a create reads of a user it names (its assignee) together with the project: the
 * user's id when they are a member of the workspace, and whether they belong to the
 * project's team (0/1 on SQLite, a boolean on PostgreSQL). Both null when no user is named.
 */
export interface TeamCandidateColumns {
  candidate_user_id: string | null;
  candidate_in_team: number | boolean | null;
}

/**
 * The lookup of one project (by id or key) as creating an issue needs it, in one read: the
 * project with its default status, the first `unstarted` status (by position) among those the
 * project allows (its workflow, else every status of its team), else the first allowed one;
 * and what TeamCandidateColumns says of `candidateId` (null names no one).
 */
const withCreateContext = (projects: ReturnType<typeof projectsWithTeamKey>, candidateId: string | null) =>
  projects
    .leftJoin('statuses as default_status', (join) =>
      join.on((eb) =>
        eb(
          'default_status.id',
          '=',
          eb
            .selectFrom('statuses as s')
            .select('s.id')
            .whereRef('s.workspace_id', '=', 'projects.workspace_id')
            .whereRef('s.team_id', '=', 'projects.team_id')
            .where((inner) =>
              inner.or([
                inner('projects.has_workflow', '=', 0),
                inner(
                  's.id',
                  'in',
                  inner.selectFrom('project_statuses').select('status_id').whereRef('project_id', '=', 'projects.id'),
                ),
              ]),
            )
            .orderBy(sql`case when s.category = 'unstarted' then 0 else 1 end`)
            .orderBy('s.position')
            .orderBy('s.id')
            .limit(1),
        ),
      ),
    )
    .select((eb) => [
      'default_status.id as default_status_id',
      'default_status.key as default_status_key',
      'default_status.category as default_status_category',
      eb
        .selectFrom('users as candidate')
        .select('candidate.id')
        .whereRef('candidate.workspace_id', '=', 'projects.workspace_id')
        .where('candidate.id', '=', candidateId)
        .as('candidate_user_id'),
      eb
        .exists(
          eb
            .selectFrom('team_members as candidate_membership')
            .select('candidate_membership.user_id')
            .whereRef('candidate_membership.team_id', '=', 'projects.team_id')
            .where('candidate_membership.user_id', '=', candidateId),
        )
        .as('candidate_in_team'),
    ]);

/** A project as a create's lookup answers it (withCreateContext). */
export type ProjectForCreate = ProjectWithTeam & DefaultStatus & TeamCandidateColumns;

/** One visible project by id as a create reads it: compiled once per shape (every create reads it). */
const projectById = queryTemplate(
  (
    db,
    slots: { workspaceId: string; tokenId: string | null; projectId: string; candidateId: string | null },
    visibility: VisibilityShape,
  ) => {
    const projects = projectsWithTeamKey(db, slots.workspaceId);
    const visible = whereProjectVisibleTo(projects, 'projects.id', visibility, slots.tokenId);
    return withCreateContext(visible, slots.candidateId).where('projects.id', '=', slots.projectId);
  },
);

/**
 * Visible projects only: a project outside the caller's grants does not exist for it.
 * `candidateId` is a user whose membership the caller checks next (withCreateContext).
 */
export const findVisibleProject = (
  ctx: Ctx,
  projectId: string,
  candidateId: string | null = null,
): Promise<ProjectForCreate | undefined> =>
  projectById.first(ctx, visibilityShape(ctx), {
    workspaceId: ctx.workspace.id,
    tokenId: ctx.access.tokenId,
    projectId,
    candidateId,
  });

export const findVisibleProjectsByKey = (
  ctx: Ctx,
  projectKey: string,
  teamId?: string,
  candidateId: string | null = null,
): Promise<ProjectForCreate[]> => {
  let query = withCreateContext(selectProjects(ctx), candidateId).where('projects.key', '=', projectKey.toUpperCase());
  if (teamId) query = query.where('projects.team_id', '=', teamId);
  return query.execute();
};

/** Visible projects with one of these ids or (upper-case) keys, in any team, in one query. */
export function findVisibleProjectsByIdsOrKeys(ctx: Ctx, ids: string[], keys: string[]): Promise<ProjectWithTeam[]> {
  if (ids.length === 0 && keys.length === 0) return Promise.resolve([]);
  return selectProjects(ctx)
    .where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb('projects.id', 'in', ids)] : []),
        ...(keys.length > 0 ? [eb('projects.key', 'in', keys)] : []),
      ]),
    )
    .execute();
}

export async function isKeyTaken(ctx: Ctx, teamId: string, key: string, exceptProjectId?: string): Promise<boolean> {
  let query = ctx.db.selectFrom('projects').select('id').where('team_id', '=', teamId).where('key', '=', key);
  if (exceptProjectId) query = query.where('id', '!=', exceptProjectId);
  return Boolean(await query.executeTakeFirst());
}

export async function listKeysWithPrefix(ctx: Ctx, teamId: string, prefix: string): Promise<Set<string>> {
  const rows = await ctx.db
    .selectFrom('projects')
    .select('key')
    .where('team_id', '=', teamId)
    .where('key', 'like', `${prefix}%`)
    .execute();
  return new Set(rows.map((r) => r.key));
}

export function listVisibleProjects(
  ctx: Ctx,
  filter: { teamId?: string },
  order: ListOrder,
  page: { limit?: number; cursor?: string },
) {
  let query = selectProjects(ctx);
  if (filter.teamId) query = query.where('projects.team_id', '=', filter.teamId);
  return paginateInOrder(ctx, query, 'projects', order, {
    scope: 'projects',
    filters: filter,
    limit: page.limit,
    cursor: page.cursor,
  });
}

/**
 * Inserts the project unless its team already uses the key; false when it does. A concurrent
 * create may take the key between our check and this insert: the unique (team_id, key)
 * constraint decides, without aborting the transaction.
 */
export async function insertProjectIfKeyFree(ctx: Ctx, row: ProjectRow): Promise<boolean> {
  const result = await ctx.db
    .insertInto('projects')
    .values(row)
    .onConflict((oc) => oc.columns(['team_id', 'key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function updateProject(ctx: Ctx, projectId: string, changes: Partial<ProjectRow>): Promise<void> {
  await ctx.db
    .updateTable('projects')
    .set({ ...changes, version: sql`version + 1` })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', projectId)
    .execute();
}

export async function grantProjectToToken(ctx: Ctx, tokenId: string, projectId: string): Promise<void> {
  await ctx.db
    .insertInto('token_project_grants')
    .values({ workspace_id: ctx.workspace.id, token_id: tokenId, project_id: projectId })
    .onConflict((oc) => oc.doNothing())
    .execute();
  forgetCachedCredentials();
}

export async function projectHasIssues(ctx: Ctx, projectId: string): Promise<boolean> {
  return Boolean(
    await ctx.db.selectFrom('issues').select('id').where('project_id', '=', projectId).limit(1).executeTakeFirst(),
  );
}

/** A team move drops the project's workflow: its allowed statuses belonged to the old team. */
export async function clearWorkflow(ctx: Ctx, projectId: string): Promise<void> {
  await ctx.db.deleteFrom('project_statuses').where('project_id', '=', projectId).execute();
}

export async function listWorkflowStatusIds(ctx: Ctx, projectId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('project_statuses')
    .select('status_id')
    .where('project_id', '=', projectId)
    .execute();
  return rows.map((r) => r.status_id);
}
