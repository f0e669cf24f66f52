import type { Ctx, ProjectAccess } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import { recordEvent, type EventType } from '../../events/outbox.js';
import { presentIssue, type IssueView } from './issues.presenter.js';
import { findVisibleIssueById, type IssueRecord } from './issues.repository.js';
import { sourceVisibility } from './issue-sources.js';
import { schedulingBlockers } from './links.presenter.js';
import { listLinksOfIssues, type LinkWithTarget } from './links.repository.js';

/**
 * Issue events are built for the widest audience and narrowed for each subscriber at
 * fan-out (CONTRACT.md §6 Webhooks): the event carries the issue as a reader of every
 * project sees it, and marks each link to another project's issue, so a subscriber whose
 * creator cannot see that project gets the issue without that link. Whoever the actor is,
 * a subscriber that sees everything gets every link.
 */

const EVERY_PROJECT: ProjectAccess = { all: true, tokenId: null, granted: new Set() };

/**
 * Reads the issue as just written, records the event for it and answers the caller's view;
 * one read of the issue and its links serves both. `type` may depend on the new state.
 */
export async function recordIssueEvent(
  ctx: Ctx,
  type: EventType | ((view: IssueView) => EventType),
  issueId: string,
): Promise<IssueView> {
  const issue = await findVisibleIssueById(ctx, issueId);
  if (!issue) throw new ApiError('ISSUE_NOT_FOUND', { issueId });
  return recordEventOfIssue(ctx, type, issue, await listLinksOfIssues(ctx, [issue.id]));
}

/** `issue.created` for an issue just inserted: its row is the one the insert returned, and it has no links yet. */
export const recordIssueCreated = (ctx: Ctx, issue: IssueRecord): Promise<IssueView> =>
  recordEventOfIssue(ctx, 'issue.created', issue, []);

async function recordEventOfIssue(
  ctx: Ctx,
  type: EventType | ((view: IssueView) => EventType),
  issue: IssueRecord,
  links: LinkWithTarget[],
): Promise<IssueView> {
  const sourceVisible = await sourceVisibility(ctx, [issue]);
  // The source record (agenda item, topic, sub-task) is named only when the actor can see it,
  // so no subscriber learns of one through an actor with wider sight.
  const everything = presentIssue(issue, links, EVERY_PROJECT, sourceVisible);
  const hidden = links.flatMap((link, index) =>
    link.target_project_id === issue.project_id
      ? []
      : [{ path: ['issue', 'links', index], projectId: link.target_project_id }],
  );
  // earliestStartDate is recomputed per subscriber from the blockers it may see.
  const blockers = schedulingBlockers(links);
  const schedule = blockers.some((b) => b.projectId !== issue.project_id)
    ? { path: ['issue', 'earliestStartDate'], blockers }
    : undefined;
  const view = presentIssue(issue, links, ctx.access, sourceVisible);
  await recordEvent(ctx, typeof type === 'function' ? type(view) : type, { issue: everything }, issue.project_id, {
    hidden,
    schedule,
  });
  return view;
}

/** A link event concerns the link's target too: only subscribers who may see its project receive it. */
export const linkAudience = (ownProjectId: string, targetProjectId: string) =>
  targetProjectId === ownProjectId ? undefined : { requires: [targetProjectId] };
