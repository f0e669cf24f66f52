import type { Ctx } from '../../db/context.js';
import { singleQuery } from '../../db/compiled-query.js';

export const listUserRows = (ctx: Ctx) =>
  ctx.db
    .selectFrom('users')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const listMemberships = (ctx: Ctx) =>
  ctx.db
    .selectFrom('team_members')
    .select(['user_id', 'team_id'])
    .where('workspace_id', '=', ctx.workspace.id)
    .execute();

export const listTokenRows = (ctx: Ctx) =>
  ctx.db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'active', 'expires_at', 'all_projects'])
    .where('workspace_id', '=', ctx.workspace.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findUser = (ctx: Ctx, userId: string) =>
  ctx.db
    .selectFrom('users')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', userId)
    .executeTakeFirst();

/**
 * A member with whether they belong to the team (0/1 on SQLite, a boolean on PostgreSQL): an
 * update's or a sub-task's assignee check reads it (a create reads the same with its project).
 */
const userWithTeamMembership = singleQuery((db, slots: { workspaceId: string; userId: string; teamId: string }) =>
  db
    .selectFrom('users')
    .select((eb) => [
      'users.id',
      eb
        .exists(
          eb
            .selectFrom('team_members')
            .select('user_id')
            .where('team_id', '=', slots.teamId)
            .whereRef('user_id', '=', 'users.id'),
        )
        .as('in_team'),
    ])
    .where('workspace_id', '=', slots.workspaceId)
    .where('id', '=', slots.userId),
);

export const findUserWithTeamMembership = (ctx: Ctx, userId: string, teamId: string) =>
  userWithTeamMembership.first(ctx, { workspaceId: ctx.workspace.id, userId, teamId });

export const findTokenByName = (ctx: Ctx, name: string) =>
  ctx.db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'active', 'expires_at', 'all_projects'])
    .where('workspace_id', '=', ctx.workspace.id)
    .where('name', '=', name)
    .executeTakeFirst();

/** Users of many ids, in one query. */
export const findUsers = (ctx: Ctx, userIds: string[]) =>
  userIds.length === 0
    ? Promise.resolve([])
    : ctx.db
        .selectFrom('users')
        .selectAll()
        .where('workspace_id', '=', ctx.workspace.id)
        .where('id', 'in', userIds)
        .execute();

/** Tokens of many names, in one query. */
export const findTokensByNames = (ctx: Ctx, names: string[]) =>
  names.length === 0
    ? Promise.resolve([])
    : ctx.db
        .selectFrom('api_tokens')
        .select(['id', 'name', 'active', 'expires_at', 'all_projects'])
        .where('workspace_id', '=', ctx.workspace.id)
        .where('name', 'in', names)
        .execute();

export async function tokenHasProject(ctx: Ctx, tokenId: string, projectId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('token_project_grants')
    .select('project_id')
    .where('token_id', '=', tokenId)
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return Boolean(row);
}
