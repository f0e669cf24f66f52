import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/errors.js';
import { NonBlank, Nullable, Ref, Text } from '../../operations/schema-helpers.js';

export const CommentSchema = Type.Object({
  commentId: Type.String(),
  issueId: Type.Optional(Type.String()),
  milestoneId: Type.Optional(Type.String()),
  parentCommentId: Nullable(Type.String()),
  body: Nullable(Type.String({ description: 'null once a comment with replies was deleted (a tombstone).' })),
  authorId: Type.String(),
  authorApiTokenName: Nullable(
    Type.String({ description: "The token's name when a workspace token wrote it; null for a human." }),
  ),
  deleted: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const CreateCommentBody = Type.Partial(
  Type.Object({
    body: NonBlank(Text('Required, non-empty (COMMENT_BODY_REQUIRED); at most 65,536 characters.')),
    parentCommentId: Nullable(Ref('A comment of the same record, for a threaded reply.')),
  }),
);
export const commentFieldCodes: Record<string, ErrorCode> = { body: 'COMMENT_BODY_REQUIRED' };

export const CommentResponse = Type.Object({ comment: CommentSchema });
export const CommentListResponse = Type.Object({ comments: Type.Array(CommentSchema) });
