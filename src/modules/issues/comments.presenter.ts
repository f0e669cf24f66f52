import type { CommentRow } from '../../db/tables/issues.js';

/** Comment row → public JSON; names its owner as `issueId` or `milestoneId`. */
export const presentComment = (c: CommentRow) => ({
  commentId: c.id,
  ...(c.issue_id !== null ? { issueId: c.issue_id } : { milestoneId: c.milestone_id as string }),
  parentCommentId: c.parent_comment_id,
  body: c.body,
  authorId: c.author_id,
  authorApiTokenName: c.author_token_name,
  deleted: c.deleted === 1,
  createdAt: c.created_at,
  updatedAt: c.updated_at,
});

export type CommentView = ReturnType<typeof presentComment>;
