import { Type } from '@sinclair/typebox';
import { created, defineOperation, noContent, ok, type Operation } from '../../operations/define.js';
import { PathParam } from '../../operations/schema-helpers.js';
import { CommentListResponse, CommentResponse, CreateCommentBody, commentFieldCodes } from './comments.schemas.js';
import { addIssueComment, deleteIssueComment, listIssueComments } from './comments.service.js';
import { IssueIdParams } from './issues.schemas.js';

const tag = 'Issues';
const mcpAliases = { issueKey: 'issueId' };

export const commentOperations: Operation[] = [
  defineOperation({
    id: 'list_comments',
    method: 'GET',
    path: '/api/external/issues/{issueId}/comments',
    tag,
    mcpAliases,
    summary: "The issue's comments, oldest first; replies carry parentCommentId.",
    params: IssueIdParams,
    response: CommentListResponse,
    run: async (ctx, { params }) => ok(await listIssueComments(ctx, params.issueId)),
  }),
  defineOperation({
    id: 'add_comment',
    method: 'POST',
    path: '/api/external/issues/{issueId}/comments',
    tag,
    mcpAliases,
    summary: 'Comment on an issue, or reply to one of its comments with parentCommentId.',
    params: IssueIdParams,
    body: CreateCommentBody,
    errors: ['COMMENT_PARENT_NOT_FOUND'],
    requiredFields: ['body'],
    fieldCodes: commentFieldCodes,
    response: CommentResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) => created({ comment: await addIssueComment(ctx, params.issueId, body) }),
  }),
  defineOperation({
    id: 'delete_comment',
    method: 'DELETE',
    path: '/api/external/issues/{issueId}/comments/{commentId}',
    tag,
    mcpAliases,
    summary: 'Delete a comment; only its author may. A comment with replies stays as a tombstone.',
    params: Type.Object({ issueId: PathParam('issueId or issueKey.'), commentId: PathParam() }),
    errors: ['COMMENT_DELETE_FORBIDDEN'],
    successStatus: 204,
    run: async (ctx, { params }) => {
      await deleteIssueComment(ctx, params.issueId, params.commentId);
      return noContent();
    },
  }),
];
