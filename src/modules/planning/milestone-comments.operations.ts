import { CommentListResponse, CommentResponse, CreateCommentBody, commentFieldCodes } from '../issues/index.js';
import { created, defineOperation, ok, type Operation } from '../../operations/define.js';
import { addMilestoneComment, listMilestoneComments } from './milestone-comments.service.js';
import { MilestoneIdParams } from './milestones.schemas.js';

const tag = 'Milestones';

export const milestoneCommentOperations: Operation[] = [
  defineOperation({
    id: 'list_milestone_comments',
    method: 'GET',
    path: '/api/external/issue-container-milestones/{milestoneId}/comments',
    tag,
    summary: 'The comments of a milestone, oldest first (threaded by parentCommentId).',
    params: MilestoneIdParams,
    response: CommentListResponse,
    run: async (ctx, { params }) => ok(await listMilestoneComments(ctx, params.milestoneId)),
  }),
  defineOperation({
    id: 'add_milestone_comment',
    method: 'POST',
    path: '/api/external/issue-container-milestones/{milestoneId}/comments',
    tag,
    summary: 'Comment on a milestone; parentCommentId makes a threaded reply.',
    params: MilestoneIdParams,
    body: CreateCommentBody,
    requiredFields: ['body'],
    errors: ['COMMENT_PARENT_NOT_FOUND'],
    fieldCodes: commentFieldCodes,
    response: CommentResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) =>
      created({ comment: await addMilestoneComment(ctx, params.milestoneId, body) }),
  }),
];
