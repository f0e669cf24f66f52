import type { Ctx } from '../../db/context.js';
import type { CommentRow } from '../../db/tables/issues.js';

/** What a comment hangs on: an issue or a container milestone (one table serves both). */
export type CommentOwner = { kind: 'issue'; id: string } | { kind: 'milestone'; id: string };

const ownerColumn = (owner: CommentOwner) => (owner.kind === 'issue' ? 'issue_id' : 'milestone_id');

const selectOwnComments = (ctx: Ctx, owner: CommentOwner) =>
  ctx.db
    .selectFrom('comments')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where(ownerColumn(owner), '=', owner.id);

/** Oldest first, replies in the same flat list (parentCommentId threads them). */
export const listCommentRows = (ctx: Ctx, owner: CommentOwner) =>
  selectOwnComments(ctx, owner).orderBy('created_at').orderBy('id').execute();

export const findCommentOf = (ctx: Ctx, owner: CommentOwner, commentId: string) =>
  selectOwnComments(ctx, owner).where('id', '=', commentId).executeTakeFirst();

export async function insertCommentRow(ctx: Ctx, row: CommentRow): Promise<void> {
  await ctx.db.insertInto('comments').values(row).execute();
}

export async function hasReplies(ctx: Ctx, commentId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('comments')
    .select('id')
    .where('parent_comment_id', '=', commentId)
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

export async function deleteCommentRow(ctx: Ctx, commentId: string): Promise<void> {
  await ctx.db
    .deleteFrom('comments')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', commentId)
    .execute();
}

/** Keeps a deleted comment's place in its thread without its text. */
export async function markTombstone(ctx: Ctx, commentId: string, now: string): Promise<void> {
  await ctx.db
    .updateTable('comments')
    .set({ deleted: 1, body: null, updated_at: now })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', commentId)
    .execute();
}

export async function deleteCommentsOf(ctx: Ctx, owner: CommentOwner): Promise<void> {
  await ctx.db
    .deleteFrom('comments')
    .where('workspace_id', '=', ctx.workspace.id)
    .where(ownerColumn(owner), '=', owner.id)
    .execute();
}
