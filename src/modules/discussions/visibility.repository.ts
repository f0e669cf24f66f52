import { sql, type SelectQueryBuilder } from 'kysely';
import type { Ctx } from '../../db/context.js';

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
