import type { ProjectWithTeam } from './projects.repository.js';

export const presentProject = (p: ProjectWithTeam) => ({
  projectId: p.id,
  projectKey: p.key,
  name: p.name,
  description: p.description,
  teamId: p.team_id,
  teamKey: p.team_key,
  ownerId: p.owner_id,
  startDate: p.start_date,
  endDate: p.end_date,
  subtasksEnabled: p.subtasks_enabled === 1,
  issueContainersEnabled: p.issue_containers_enabled === 1,
  createdAt: p.created_at,
  updatedAt: p.updated_at,
  version: p.version,
});

export type ProjectView = ReturnType<typeof presentProject>;
