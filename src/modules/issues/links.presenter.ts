import { dayAfterLatest } from '../../core/values.js';
import type { LinkWithTarget } from './links.repository.js';

export const LINK_TYPES = ['blocks', 'blocked_by', 'related'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export const INVERSE_LINK_TYPE: Record<LinkType, LinkType> = {
  blocks: 'blocked_by',
  blocked_by: 'blocks',
  related: 'related',
};

/** The status category in which an issue no longer blocks anything. */
export const COMPLETED = 'completed';

/**
 * Whether a dependency no longer holds: a `blocked_by` link is satisfied once the blocker
 * is completed, a `blocks` link once this issue is; `related` links have no such state.
 */
export function isSatisfied(link: LinkWithTarget, ownStatusCategory: string): boolean | null {
  if (link.type === 'blocked_by') return link.target_status_category === COMPLETED;
  if (link.type === 'blocks') return ownStatusCategory === COMPLETED;
  return null;
}

export const presentLink = (link: LinkWithTarget, ownStatusCategory: string) => ({
  linkId: link.id,
  type: link.type as LinkType,
  targetIssueId: link.target_issue_id,
  targetIssueKey: link.target_key,
  isSatisfied: isSatisfied(link, ownStatusCategory),
});

export type LinkView = ReturnType<typeof presentLink>;

/** The unsatisfied blockers that have a due date: what `earliestStartDate` is made of. */
export const schedulingBlockers = (links: LinkWithTarget[]) =>
  links.flatMap((link) =>
    link.type === 'blocked_by' && link.target_status_category !== COMPLETED && link.target_due_date
      ? [{ projectId: link.target_project_id, dueDate: link.target_due_date }]
      : [],
  );

/** The day after the latest due date among unsatisfied blockers that have one, or null. */
export const earliestStartDate = (links: LinkWithTarget[]): string | null =>
  dayAfterLatest(schedulingBlockers(links).map((blocker) => blocker.dueDate));
