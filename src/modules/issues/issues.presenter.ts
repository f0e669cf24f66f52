import { canSeeProject, type ProjectAccess } from '../../core/context.js';
import type { IssueRecord } from './issues.repository.js';
import { earliestStartDate, presentLink } from './links.presenter.js';
import type { LinkWithTarget } from './links.repository.js';

export const PRIORITIES = ['none', 'low', 'medium', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const SOURCE_TYPES = ['agenda_item', 'discussion_topic', 'subtask'] as const;
export type IssueSource = { type: (typeof SOURCE_TYPES)[number]; id: string };

/**
 * Issue row → public JSON. `links` are the issue's own link sides; a link whose target the
 * caller cannot see is left out (it would name an issue that does not exist for the
 * caller), and `earliestStartDate` counts only the blockers the caller can see, so it never
 * reveals a hidden issue's due date. `source` is null when `sourceVisible` says the caller
 * cannot see it.
 */
export function presentIssue(
  issue: IssueRecord,
  links: LinkWithTarget[],
  access: ProjectAccess,
  sourceVisible: (kind: IssueSource['type'], id: string) => boolean,
) {
  const tags = JSON.parse(issue.tags) as string[];
  const visibleLinks = links.filter((link) => canSeeProject(access, link.target_project_id));
  return {
    issueId: issue.id,
    issueKey: issue.issue_key,
    title: issue.title,
    description: issue.description,
    projectId: issue.project_id,
    projectKey: issue.project_key,
    teamId: issue.team_id,
    teamKey: issue.team_key,
    statusId: issue.status_id,
    statusKey: issue.status_key,
    assigneeId: issue.assignee_id,
    reporterId: issue.reporter_id,
    priority: issue.priority as Priority,
    startDate: issue.start_date,
    dueDate: issue.due_date,
    durationDays: issue.duration_days === null ? null : Number(issue.duration_days),
    tags,
    labels: tags,
    archived: issue.archived === 1,
    archivedAt: issue.archived_at,
    epicId: issue.container_id,
    issueContainerId: issue.container_id,
    milestoneId: issue.milestone_id,
    subtasksEnabled: issue.subtasks_enabled === 1,
    links: visibleLinks.map((link) => presentLink(link, issue.status_category)),
    source:
      issue.source_type && issue.source_id && sourceVisible(issue.source_type as IssueSource['type'], issue.source_id)
        ? ({ type: issue.source_type, id: issue.source_id } as IssueSource)
        : null,
    createdBy: issue.created_by,
    earliestStartDate: earliestStartDate(visibleLinks),
    createdAt: issue.created_at,
    updatedAt: issue.updated_at,
    version: issue.version,
  };
}

export type IssueView = ReturnType<typeof presentIssue>;

/** The short reference comment, link and sub-task events carry in `data.issue`. */
export const issueRef = (issue: Pick<IssueRecord, 'id' | 'issue_key'>) => ({
  issueId: issue.id,
  issueKey: issue.issue_key,
});
