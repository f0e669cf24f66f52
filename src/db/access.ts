import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Ctx } from './context.js';

/**
 * The one project-visibility rule for SQL reads: OAuth users and "*" tokens see every
 * project of the workspace; other tokens see the projects granted to them. It is a
 * set-based sub-select, so lists stay one query however many rows they scan.
 */
const grantedTo = (tokenId: unknown) => sql`(select project_id from token_project_grants where token_id = ${tokenId})`;
const grantedProjectIds = (ctx: Ctx) => grantedTo(ctx.access.tokenId);

export function whereProjectVisible<QB extends SelectQueryBuilder<any, any, any>>(
  ctx: Ctx,
  query: QB,
  projectColumn: string,
): QB {
  return whereProjectVisibleTo(query, projectColumn, visibilityShape(ctx), ctx.access.tokenId);
}

/** Which rule of whereProjectVisible applies: every project, or those granted to a token (a query template's shape). */
export type VisibilityShape = 'all' | 'granted';

export const visibilityShape = (ctx: Ctx): VisibilityShape => (ctx.access.all ? 'all' : 'granted');

/** The rule of whereProjectVisible given its inputs, for query templates (`tokenId` is then a slot). */
export function whereProjectVisibleTo<QB extends SelectQueryBuilder<any, any, any>>(
  query: QB,
  projectColumn: string,
  visibility: VisibilityShape,
  tokenId: unknown,
): QB {
  if (visibility === 'all') return query;
  return query.where(sql.ref(projectColumn), 'in', grantedTo(tokenId)) as QB;
}

/** For records whose project is optional: no project, or a project the caller can see. */
export function projectAbsentOrVisible(
  ctx: Ctx,
  eb: ExpressionBuilder<any, any>,
  projectColumn: string,
): Expression<SqlBool> {
  if (ctx.access.all) return eb.lit(true);
  return eb.or([eb(sql.ref(projectColumn), 'is', null), eb(sql.ref(projectColumn), 'in', grantedProjectIds(ctx))]);
}

/**
 * A meeting with a project is visible only with access to that project; one without a
 * project is visible to every credential of the workspace. Usable from any query that
 * joins `meetings as m`.
 */
export const meetingVisible = (ctx: Ctx, eb: ExpressionBuilder<any, any>): Expression<SqlBool> =>
  projectAbsentOrVisible(ctx, eb, 'm.project_id');

/**
 * The one discussion-visibility filter, applied by every group and topic read (writes
 * load through those reads first). A group is visible when it is API-visible, in the
 * caller's workspace, and the caller owns it, is a member of it, or it is open to the
 * whole workspace. It is a set-based sub-select on the group id column, so lists stay one
 * query however many rows they scan, and a private, foreign or unknown group simply
 * has no rows.
 */
export function whereGroupVisible<QB extends SelectQueryBuilder<any, any, any>>(
  ctx: Ctx,
  query: QB,
  groupColumn: string,
): QB {
  const caller = ctx.principal.id;
  const visibleGroupIds = ctx.db
    .selectFrom('discussion_groups as vg')
    .select('vg.id')
    .where('vg.workspace_id', '=', ctx.workspace.id)
    .where('vg.api_visibility', '=', 'visible')
    .where((eb) =>
      eb.or([
        eb('vg.visibility', '=', 'workspace'),
        eb('vg.owner_id', '=', caller),
        eb.exists(
          eb
            .selectFrom('discussion_group_members as vm')
            .select('vm.group_id')
            .whereRef('vm.group_id', '=', 'vg.id')
            .where('vm.member_id', '=', caller),
        ),
      ]),
    );
  return query.where(sql.ref(groupColumn), 'in', visibleGroupIds) as QB;
}
