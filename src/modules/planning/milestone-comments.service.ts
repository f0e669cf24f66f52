import type { Ctx } from '../../db/context.js';
import { recordEvent } from '../../events/outbox.js';
import { insertComment, listComments, type CommentInput, type CommentView } from '../issues/index.js';
import { recordMilestoneCommented } from './milestone-activity.service.js';
import { requireVisibleMilestone } from './milestones.service.js';

/**
 * Milestone comments share the issue comments' table and rules (non-empty body, threaded
 * replies within the same milestone); they cannot be deleted, as no route does it.
 */
export async function addMilestoneComment(ctx: Ctx, milestoneId: string, input: CommentInput): Promise<CommentView> {
  const milestone = await requireVisibleMilestone(ctx, milestoneId);
  const comment = await insertComment(ctx, { kind: 'milestone', id: milestone.id }, input);
  await recordMilestoneCommented(ctx, milestone.id, comment.commentId);
  await recordEvent(
    ctx,
    'milestone.comment.created',
    {
      comment,
      milestone: { milestoneId: milestone.id, issueContainerId: milestone.container_id, title: milestone.title },
    },
    milestone.project_id,
  );
  return comment;
}

/** Oldest first. */
export async function listMilestoneComments(ctx: Ctx, milestoneId: string) {
  const milestone = await requireVisibleMilestone(ctx, milestoneId);
  return { comments: await listComments(ctx, { kind: 'milestone', id: milestone.id }) };
}
