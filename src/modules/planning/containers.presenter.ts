import type { ContainerWithProject, IssueCounts } from './containers.repository.js';

/** `epicId` is the legacy name of the same id. */
export const presentContainer = (c: ContainerWithProject, counts: IssueCounts) => ({
  issueContainerId: c.id,
  epicId: c.id,
  name: c.name,
  projectId: c.project_id,
  projectKey: c.project_key,
  startDate: c.start_date,
  dueDate: c.due_date,
  issueCount: counts.issueCount,
  openIssueCount: counts.openIssueCount,
  archived: c.archived === 1,
  createdAt: c.created_at,
  updatedAt: c.updated_at,
});

export type ContainerView = ReturnType<typeof presentContainer>;
