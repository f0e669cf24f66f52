import type { Ctx } from '../../db/context.js';

export const listTeamRows = (ctx: Ctx) =>
  ctx.db
    .selectFrom('teams')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findTeamById = (ctx: Ctx, teamId: string) =>
  ctx.db
    .selectFrom('teams')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', teamId)
    .executeTakeFirst();

export const findTeamByKey = (ctx: Ctx, teamKey: string) =>
  ctx.db
    .selectFrom('teams')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('key', '=', teamKey.toUpperCase())
    .executeTakeFirst();

/** Teams by (upper-case) key, in one query. */
export const findTeamsByKeys = (ctx: Ctx, teamKeys: string[]) =>
  teamKeys.length === 0
    ? Promise.resolve([])
    : ctx.db
        .selectFrom('teams')
        .selectAll()
        .where('workspace_id', '=', ctx.workspace.id)
        .where('key', 'in', teamKeys)
        .execute();

export const findDefaultTeam = (ctx: Ctx) =>
  ctx.db
    .selectFrom('teams')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .orderBy('is_default', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();

export const listStatusRows = (ctx: Ctx, teamId: string) =>
  ctx.db
    .selectFrom('statuses')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('team_id', '=', teamId)
    .orderBy('position')
    .orderBy('id')
    .execute();
