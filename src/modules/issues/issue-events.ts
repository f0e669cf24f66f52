import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { recordEvents, type EventType, type WriteEvent } from '../../events/outbox.js';
import { writeEvent, type Presented, type ScopedPart } from '../../events/resource-event.js';
import { EVERY_PROJECT, ownProjectFields } from '../visibility/index.js';
import { presentIssue, type IssueView } from './issues.presenter.js';
import { findVisibleIssueById, findVisibleIssuesByIdsOrKeys, type IssueRecord } from './issues.repository.js';
import { sourceVisibility, type SourceVisibility } from './issue-sources.js';
import { schedulingBlockers } from './links.presenter.js';
import { linksByIssue, listLinksOfIssues, type LinkWithTarget } from './links.repository.js';

/**
 * Issue events are built for the widest audience and narrowed for each subscriber at
 * fan-out (docs/events.md, "Who receives what"): the event carries the issue as a reader of every
 * project sees it, and marks each link to another project's issue, so a subscriber whose
 * creator cannot see that project gets the issue without that link. Whoever the actor is,
 * a subscriber that sees everything gets every link.
 */

/** Fields that name records of the issue's project: an earlier project's are not shown to whoever cannot see it. */
const PROJECT_FIELDS = ['projectId', 'projectKey', 'issueContainerId', 'epicId', 'milestoneId'];

function issueParts(view: IssueView, issue: IssueRecord, links: LinkWithTarget[]): ScopedPart[] {
  return [
    ...ownProjectFields(view, PROJECT_FIELDS, issue.project_id),
    ...links.map((link, index): ScopedPart => ({
      path: ['links', index],
      scope: { projectId: link.target_project_id },
      show: 'omit',
    })),
  ];
}

/**
 * Reads the issue as just written, records the event for it and answers the caller's view;
 * one read of the issue and its links serves both. `type` may depend on the new state.
 * `before` is the issue as read before the write: the event then carries `changes`
 * (the write changes no link, so the links read now present both sides).
 */
export async function recordIssueEvent(
  ctx: Ctx,
  type: EventType | ((view: IssueView) => EventType),
  issueId: string,
  before?: IssueRecord,
): Promise<IssueView> {
  const issue = await findVisibleIssueById(ctx, issueId);
  if (!issue) throw new ApiError('ISSUE_NOT_FOUND', { issueId });
  return recordEventOfIssue(ctx, type, issue, await listLinksOfIssues(ctx, [issue.id]), before);
}

/**
 * `issue.created` for issues just inserted, in this order (outbox.ts, appendEvents): each row
 * is the one its insert returned, and none has links yet. Answers the caller's views.
 */
export async function recordIssuesCreated(ctx: Ctx, issues: IssueRecord[]): Promise<IssueView[]> {
  const sourceVisible = await sourceVisibility(ctx, issues);
  const written = issues.map((issue) => issueEvent(ctx, 'issue.created', issue, [], sourceVisible));
  await recordEvents(
    ctx,
    written.map(({ event }) => event),
  );
  return written.map(({ view }) => view);
}

/**
 * The events of a bulk's updates, in item order, each carrying `changes` from the issue as
 * read before its write: the issues and their links are read once, as the bulk leaves them,
 * and the events go in one statement. Answers the caller's views in the same order.
 */
export async function recordIssuesUpdated(
  ctx: Ctx,
  befores: IssueRecord[],
  typeOf: (before: IssueRecord) => (view: IssueView) => EventType,
): Promise<IssueView[]> {
  const ids = befores.map((before) => before.id);
  const written = new Map((await findVisibleIssuesByIdsOrKeys(ctx, ids, [])).map((issue) => [issue.id, issue]));
  const issues = ids.map((issueId) => {
    const issue = written.get(issueId);
    if (!issue) throw new ApiError('ISSUE_NOT_FOUND', { issueId });
    return issue;
  });
  const [links, sourceVisible] = await Promise.all([listLinksOfIssues(ctx, ids), sourceVisibility(ctx, issues)]);
  const byIssue = linksByIssue(links);
  const events = issues.map((issue, index) =>
    issueEvent(ctx, typeOf(befores[index]), issue, byIssue.get(issue.id) ?? [], sourceVisible, befores[index]),
  );
  await recordEvents(
    ctx,
    events.map(({ event }) => event),
  );
  return events.map(({ view }) => view);
}

async function recordEventOfIssue(
  ctx: Ctx,
  type: EventType | ((view: IssueView) => EventType),
  issue: IssueRecord,
  links: LinkWithTarget[],
  before?: IssueRecord,
): Promise<IssueView> {
  const { view, event } = issueEvent(ctx, type, issue, links, await sourceVisibility(ctx, [issue]), before);
  await recordEvents(ctx, [event]);
  return view;
}

/** The caller's view of an issue and the event of its write. */
function issueEvent(
  ctx: Ctx,
  type: EventType | ((view: IssueView) => EventType),
  issue: IssueRecord,
  links: LinkWithTarget[],
  sourceVisible: SourceVisibility,
  before?: IssueRecord,
): { view: IssueView; event: WriteEvent } {
  // The source record (agenda item, topic, sub-task) is named only when the actor can see it,
  // so no subscriber learns of one through an actor with wider sight.
  const widest = (record: IssueRecord): Presented => {
    const view = presentIssue(record, links, EVERY_PROJECT, sourceVisible);
    return { view, parts: issueParts(view, record, links) };
  };
  // earliestStartDate is recomputed per subscriber from the blockers it may see. A write
  // to the issue itself never moves it (its blockers are other issues), so it is never
  // among the changes.
  const blockers = schedulingBlockers(links);
  const schedule = blockers.some((b) => b.projectId !== issue.project_id)
    ? { path: ['issue', 'earliestStartDate'], blockers }
    : undefined;
  const view = presentIssue(issue, links, ctx.access, sourceVisible);
  const event = writeEvent(
    typeof type === 'function' ? type(view) : type,
    'issue',
    issue.project_id,
    { after: widest(issue), before: before && widest(before) },
    { audience: { schedule } },
  );
  return { view, event };
}

/** A link event concerns the link's target too: only subscribers who may see its project receive it. */
export const linkAudience = (ownProjectId: string, targetProjectId: string) =>
  targetProjectId === ownProjectId ? undefined : { requires: [targetProjectId] };
