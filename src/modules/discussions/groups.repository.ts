import type { Ctx } from '../../db/context.js';
import { batches } from '../../db/batches.js';
import { paginate } from '../../db/paginate.js';
import type { DiscussionGroupRow } from '../../db/tables/discussions.js';
import { whereGroupVisible } from '../../db/access.js';

const selectVisibleGroups = (ctx: Ctx) =>
  whereGroupVisible(
    ctx,
    ctx.db.selectFrom('discussion_groups as g').selectAll('g').where('g.workspace_id', '=', ctx.workspace.id),
    'g.id',
  );

export const findVisibleGroup = (ctx: Ctx, groupId: string): Promise<DiscussionGroupRow | undefined> =>
  selectVisibleGroups(ctx).where('g.id', '=', groupId).executeTakeFirst();

export function listVisibleGroups(ctx: Ctx, page: { limit?: number; cursor?: string }) {
  return paginate(ctx, selectVisibleGroups(ctx), {
    scope: 'discussion_groups',
    filters: {},
    ...page,
    orderBy: [
      ['g.created_at', 'text'],
      ['g.id', 'text'],
    ],
    keyOf: (r: DiscussionGroupRow) => [r.created_at, r.id],
  });
}

/** Member ids of several groups in one query. */
export async function listMemberIds(ctx: Ctx, groupIds: string[]): Promise<Map<string, string[]>> {
  const byGroup = new Map<string, string[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return byGroup;
  const rows = await ctx.db
    .selectFrom('discussion_group_members')
    .select(['group_id', 'member_id'])
    .where('workspace_id', '=', ctx.workspace.id)
    .where('group_id', 'in', groupIds)
    .execute();
  for (const row of rows) byGroup.get(row.group_id)?.push(row.member_id);
  return byGroup;
}

export async function insertGroup(ctx: Ctx, row: DiscussionGroupRow): Promise<void> {
  await ctx.db.insertInto('discussion_groups').values(row).execute();
}

export async function updateGroup(ctx: Ctx, groupId: string, changes: Partial<DiscussionGroupRow>): Promise<void> {
  await ctx.db
    .updateTable('discussion_groups')
    .set(changes)
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', groupId)
    .execute();
}

export async function replaceMembers(ctx: Ctx, groupId: string, memberIds: string[]): Promise<void> {
  await ctx.db
    .deleteFrom('discussion_group_members')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('group_id', '=', groupId)
    .execute();
  const rows = memberIds.map((memberId) => ({
    workspace_id: ctx.workspace.id,
    group_id: groupId,
    member_id: memberId,
  }));
  for (const batch of batches(rows, 3)) await ctx.db.insertInto('discussion_group_members').values(batch).execute();
}
