import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { nonBlank } from '../../core/values.js';
import type { CommentRow } from '../../db/tables/issues.js';
import { recordEvent } from '../../events/outbox.js';
import { issueRef } from './issues.presenter.js';
import { requireVisibleIssue } from './issues.service.js';
import { presentComment, type CommentView } from './comments.presenter.js';
import {
  deleteCommentRow,
  deleteCommentsOf,
  findCommentOf,
  hasReplies,
  insertCommentRow,
  listCommentRows,
  markTombstone,
  type CommentOwner,
} from './comments.repository.js';

export type { CommentOwner } from './comments.repository.js';
export type { CommentView } from './comments.presenter.js';

export interface CommentInput {
  body?: unknown;
  parentCommentId?: string | null;
}

/**
 * Adds a comment to any owner (issue or milestone) after checking the body and that the
 * parent is a comment of the same owner. The caller has checked the owner's visibility and
 * records its own event.
 */
export async function insertComment(ctx: Ctx, owner: CommentOwner, input: CommentInput): Promise<CommentView> {
  if (!nonBlank(input.body)) throw new ApiError('COMMENT_BODY_REQUIRED', { field: 'body' });
  const parentId = input.parentCommentId ?? null;
  if (parentId !== null && !(await findCommentOf(ctx, owner, parentId))) {
    throw new ApiError('COMMENT_PARENT_NOT_FOUND', { parentCommentId: parentId });
  }
  const row: CommentRow = {
    id: newId('cmt', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    issue_id: owner.kind === 'issue' ? owner.id : null,
    milestone_id: owner.kind === 'milestone' ? owner.id : null,
    parent_comment_id: parentId,
    body: input.body as string,
    author_id: ctx.principal.id,
    author_token_name: ctx.principal.kind === 'api_token' ? ctx.principal.tokenName : null,
    deleted: 0,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await insertCommentRow(ctx, row);
  return presentComment(row);
}

/** An owner's comments, oldest first. */
export async function listComments(ctx: Ctx, owner: CommentOwner): Promise<CommentView[]> {
  return (await listCommentRows(ctx, owner)).map(presentComment);
}

/** POST …/issues/{issueId}/comments (also used to publish meeting notes). */
/** Removes every comment of an owner that is itself being deleted (a milestone). */
export const removeCommentsOf = deleteCommentsOf;

export async function addIssueComment(ctx: Ctx, issueIdOrKey: string, input: CommentInput): Promise<CommentView> {
  const issue = await requireVisibleIssue(ctx, issueIdOrKey);
  const comment = await insertComment(ctx, { kind: 'issue', id: issue.id }, input);
  await recordEvent(ctx, 'issue.comment.created', { comment, issue: issueRef(issue) }, issue.project_id);
  return comment;
}

export async function listIssueComments(ctx: Ctx, issueIdOrKey: string) {
  const issue = await requireVisibleIssue(ctx, issueIdOrKey);
  return { comments: await listComments(ctx, { kind: 'issue', id: issue.id }) };
}

/**
 * Only the authoring identity (same user, or same token name) may delete. A comment with
 * replies stays as a tombstone so the thread keeps its shape; otherwise it is removed.
 */
export async function deleteIssueComment(ctx: Ctx, issueIdOrKey: string, commentId: string): Promise<void> {
  const issue = await requireVisibleIssue(ctx, issueIdOrKey);
  const comment = await findCommentOf(ctx, { kind: 'issue', id: issue.id }, commentId);
  if (!comment || comment.deleted === 1) throw new ApiError('COMMENT_NOT_FOUND', { commentId });
  if (comment.author_id !== ctx.principal.id)
    throw new ApiError('COMMENT_DELETE_FORBIDDEN', { commentId, authorId: comment.author_id });
  if (await hasReplies(ctx, comment.id)) await markTombstone(ctx, comment.id, ctx.now);
  else await deleteCommentRow(ctx, comment.id);
  const deleted = presentComment({ ...comment, body: null, deleted: 1, updated_at: ctx.now });
  await recordEvent(ctx, 'issue.comment.deleted', { comment: deleted, issue: issueRef(issue) }, issue.project_id);
}
