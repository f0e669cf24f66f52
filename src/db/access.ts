import { sql, type SelectQueryBuilder } from 'kysely';
import type { Ctx } from '../core/context.js';

/**
 * The one project-visibility filter for SQL reads: OAuth users and "*" tokens see every
 * project of the workspace; other tokens see the projects granted to them. It is a
 * set-based sub-select, so lists stay one query however many rows they scan.
 */
export function whereProjectVisible<QB extends SelectQueryBuilder<any, any, any>>(ctx: Ctx, query: QB, projectColumn: string): QB {
  if (ctx.access.all) return query;
  return query.where(
    sql.ref(projectColumn),
    'in',
    sql`(select project_id from token_project_grants where token_id = ${ctx.access.tokenId})`,
  ) as QB;
}
