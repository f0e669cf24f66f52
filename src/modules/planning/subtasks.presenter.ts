import type { SubtaskRow } from '../../db/tables/planning.js';
import type { LinkType } from '../issues/index.js';
import type { SubtaskLinkWithTarget } from './subtask-links.repository.js';
import type { SubtaskStatus } from './subtasks.schemas.js';

/** What a sub-task takes from its parent issue: project and container are always the parent's. */
export interface ParentContext {
  id: string;
  project_id: string;
  container_id: string | null;
}

/**
 * A dependency no longer holds once the blocker is done: `blocked_by` looks at the target,
 * `blocks` at this sub-task; `related` links have no such state.
 */
function isSatisfied(link: SubtaskLinkWithTarget, ownStatus: string): boolean | null {
  if (link.type === 'blocked_by') return link.target_status === 'done';
  if (link.type === 'blocks') return ownStatus === 'done';
  return null;
}

export const presentSubtaskLink = (link: SubtaskLinkWithTarget, ownStatus: string) => ({
  linkId: link.id,
  type: link.type as LinkType,
  targetSubtaskId: link.target_subtask_id,
  isSatisfied: isSatisfied(link, ownStatus),
});

/**
 * `visibleIssueIds` holds the issues the caller can see among those sub-tasks became: one
 * moved to a project outside the caller's grants reads as `migratedIssueId: null`.
 */
export const presentSubtask = (
  s: SubtaskRow,
  parent: ParentContext,
  links: SubtaskLinkWithTarget[],
  visibleIssueIds: ReadonlySet<string>,
) => ({
  subtaskId: s.id,
  parentIssueId: s.parent_issue_id,
  title: s.title,
  status: s.status as SubtaskStatus,
  assigneeId: s.assignee_id,
  reporterId: s.reporter_id,
  projectId: parent.project_id,
  epicId: parent.container_id,
  issueContainerId: parent.container_id,
  startDate: s.start_date,
  dueDate: s.due_date,
  durationDays: s.duration_days === null ? null : Number(s.duration_days),
  links: links.filter((link) => link.subtask_id === s.id).map((link) => presentSubtaskLink(link, s.status)),
  migrated: s.migrated === 1,
  migratedIssueId: s.migrated_issue_id && visibleIssueIds.has(s.migrated_issue_id) ? s.migrated_issue_id : null,
  position: Number(s.position),
  createdAt: s.created_at,
  updatedAt: s.updated_at,
  version: s.version,
});

export type SubtaskView = ReturnType<typeof presentSubtask>;
