import type { Ctx } from '../../db/context.js';
import type { TeamRow } from '../../db/schema.js';
import { resolveTeamRef } from '../teams/index.js';
import { resolveProjectRef, type ProjectWithTeam } from './projects.service.js';

/**
 * The project and team filters of the issue, container and milestone lists. `project`
 * takes a projectId or a projectKey and `team` a teamId or a teamKey (ids carry their type
 * prefix, which no key can contain); the explicit projectId / projectKey / teamId / teamKey
 * names work too, so a client never has a filter silently ignored.
 */
export interface ProjectScopeQuery {
  project?: string;
  team?: string;
  projectId?: string;
  projectKey?: string;
  teamId?: string;
  teamKey?: string;
}

export interface ProjectScope {
  project?: ProjectWithTeam;
  team?: TeamRow;
}

const isProjectId = (value: string) => value.startsWith('prj_');
const isTeamId = (value: string) => value.startsWith('team_');

/** Unknown or invisible project: PROJECT_NOT_FOUND; unknown team: TEAM_NOT_FOUND. */
export async function resolveProjectScope(ctx: Ctx, query: ProjectScopeQuery): Promise<ProjectScope> {
  const ref = {
    projectId: query.projectId ?? (query.project && isProjectId(query.project) ? query.project : undefined),
    projectKey: query.projectKey ?? (query.project && !isProjectId(query.project) ? query.project : undefined),
    teamId: query.teamId ?? (query.team && isTeamId(query.team) ? query.team : undefined),
    teamKey: query.teamKey ?? (query.team && !isTeamId(query.team) ? query.team : undefined),
  };
  // A project reference checks its team itself; the team alone is resolved only without one.
  const project = await resolveProjectRef(ctx, ref);
  return project ? { project } : { team: await resolveTeamRef(ctx, ref) };
}

/** The SQL filter a scope stands for. */
export const scopeFilter = (scope: ProjectScope) =>
  scope.project ? { projectId: scope.project.id } : { teamId: scope.team?.id };
