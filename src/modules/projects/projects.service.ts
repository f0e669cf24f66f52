import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { parseListOrder, type ListOrderQuery } from '../../core/list-order.js';
import { newId } from '../../core/ids.js';
import { hasOwn, isCalendarDate, nonBlank } from '../../core/values.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { ProjectRow, TeamRow } from '../../db/schema.js';
import { recordEvent } from '../../events/outbox.js';
import { plain, recordWriteEvent } from '../../events/resource-event.js';
import { requireTeam, resolveTeamRef, teamsByKey, type TeamRef } from '../teams/index.js';
import { ownerIdFrom, type TeamCandidate } from '../users/index.js';
import { touchReferrersOfProjectKey } from '../../db/touch.js';
import { presentProject, type ProjectView } from './projects.presenter.js';
import {
  clearWorkflow,
  findVisibleProject,
  findVisibleProjectsByIdsOrKeys,
  findVisibleProjectsByKey,
  grantProjectToToken,
  insertProjectIfKeyFree,
  isKeyTaken,
  listKeysWithPrefix,
  listVisibleProjects,
  listWorkflowStatusIds,
  projectHasIssues,
  updateProject,
  type DefaultStatus,
  type ProjectForCreate,
  type ProjectWithTeam,
} from './projects.repository.js';

export type { ProjectWithTeam } from './projects.repository.js';
/**
 * A project as one lookup loads it: with its team's key and its default status, and, when the
 * caller named a user to check next (a create's assignee), what the same read found of them.
 */
export type ProjectWithDefaultStatus = ProjectWithTeam & DefaultStatus & { teamCandidate?: TeamCandidate };

const KEY_RE = /^[A-Z][A-Z0-9]{1,9}$/;
/** Each lost round means another create took a key, so this only bounds a pathological burst. */
const MAX_KEY_ATTEMPTS = 50;

export interface ProjectRef extends TeamRef {
  projectId?: string | null;
  projectKey?: string | null;
}

/**
 * The one place project references resolve, so every route answers the same codes:
 * PROJECT_NOT_FOUND (absent or not visible), PROJECT_KEY_AMBIGUOUS (a key shared by several
 * visible teams' projects and no team given), PROJECT_TEAM_MISMATCH (id in another team).
 * Answers undefined when no project reference was given. `candidateId` names a user the
 * caller checks next against the project's team (a create's assignee): the same read loads
 * them, and the answer carries what it found as `teamCandidate`.
 */
export async function resolveProjectRef(
  ctx: Ctx,
  ref: ProjectRef,
  candidateId?: string,
): Promise<ProjectWithDefaultStatus | undefined> {
  // As for teams, null and absent mean "none"; an empty string is a reference that matches nothing.
  if (typeof ref.projectId !== 'string' && typeof ref.projectKey !== 'string') return undefined;
  const team = await resolveTeamRef(ctx, ref);
  const candidate = candidateId ?? null;
  const project =
    typeof ref.projectId === 'string'
      ? chooseProject(ref, team, await findVisibleProject(ctx, ref.projectId, candidate), [])
      : chooseProject(
          ref,
          team,
          undefined,
          await findVisibleProjectsByKey(ctx, ref.projectKey as string, team?.id, candidate),
        );
  return withTeamCandidate(project, candidateId);
}

/** The lookup's row as callers see it: the candidate's columns become `teamCandidate`, when one was named. */
function withTeamCandidate(
  { candidate_user_id: userId, candidate_in_team: inTeam, ...project }: ProjectForCreate,
  candidateId: string | undefined,
): ProjectWithDefaultStatus {
  return candidateId === undefined
    ? project
    : { ...project, teamCandidate: { id: candidateId, userId, inTeam: Boolean(inTeam) } };
}

/**
 * The decision of resolveProjectRef once the candidates are loaded: `byId` is the visible
 * project of `ref.projectId`, `byKey` the visible projects carrying `ref.projectKey`.
 */
function chooseProject<P extends ProjectWithTeam>(
  ref: ProjectRef,
  team: TeamRow | undefined,
  byId: P | undefined,
  byKey: P[],
): P {
  if (typeof ref.projectId === 'string') {
    const project = byId;
    if (!project) throw new ApiError('PROJECT_NOT_FOUND', { projectId: ref.projectId });
    if (typeof ref.projectKey === 'string' && project.key !== ref.projectKey.toUpperCase()) {
      throw new ApiError(
        'VALIDATION_FAILED',
        { field: 'projectKey', projectId: ref.projectId, projectKey: ref.projectKey },
        { message: 'projectId and projectKey name different projects.' },
      );
    }
    if (team && project.team_id !== team.id)
      throw new ApiError('PROJECT_TEAM_MISMATCH', { projectId: project.id, teamKey: team.key });
    return project;
  }
  const matches = team ? byKey.filter((project) => project.team_id === team.id) : byKey;
  if (matches.length === 0)
    throw new ApiError('PROJECT_NOT_FOUND', { projectKey: ref.projectKey, ...(team ? { teamKey: team.key } : {}) });
  if (matches.length > 1)
    throw new ApiError('PROJECT_KEY_AMBIGUOUS', {
      projectKey: ref.projectKey,
      teamKeys: matches.map((p) => p.team_key),
    });
  return matches[0];
}

/** A project reference by id or key, with an optional team key, as work links send one. */
export interface ProjectKeyRef {
  projectId?: string;
  projectKey?: string;
  teamKey?: string;
}

/**
 * Resolves many references with the codes resolveProjectRef answers, in one team query and
 * one project query whatever their number. Each entry is the project or the error it
 * answers, in the given order, so the caller reports the first bad one.
 */
export async function resolveProjectRefs(ctx: Ctx, refs: ProjectKeyRef[]): Promise<Array<ProjectWithTeam | ApiError>> {
  if (refs.length === 0) return [];
  const ids = refs.flatMap((ref) => (typeof ref.projectId === 'string' ? [ref.projectId] : []));
  const keys = refs.flatMap((ref) =>
    typeof ref.projectId !== 'string' && typeof ref.projectKey === 'string' ? [ref.projectKey.toUpperCase()] : [],
  );
  const [teams, projects] = await Promise.all([
    teamsByKey(
      ctx,
      refs.flatMap((ref) => (typeof ref.teamKey === 'string' ? [ref.teamKey] : [])),
    ),
    findVisibleProjectsByIdsOrKeys(ctx, [...new Set(ids)], [...new Set(keys)]),
  ]);
  const byId = new Map(projects.map((project) => [project.id, project]));
  return refs.map((ref) => {
    try {
      const team = typeof ref.teamKey === 'string' ? teams.get(ref.teamKey.toUpperCase()) : undefined;
      if (typeof ref.teamKey === 'string' && !team) throw new ApiError('TEAM_NOT_FOUND', { teamKey: ref.teamKey });
      const key = typeof ref.projectKey === 'string' ? ref.projectKey.toUpperCase() : undefined;
      return chooseProject(
        ref,
        team,
        typeof ref.projectId === 'string' ? byId.get(ref.projectId) : undefined,
        projects.filter((p) => p.key === key),
      );
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
  });
}

export async function requireVisibleProject(ctx: Ctx, projectId: string): Promise<ProjectWithTeam> {
  const project = await findVisibleProject(ctx, projectId);
  if (!project) throw new ApiError('PROJECT_NOT_FOUND', { projectId });
  return project;
}

/**
 * PROJECT_NOT_FOUND for a stored source project (of a topic or agenda item) the caller
 * cannot see: it reads as null for the caller, so the error must not name it either.
 */
export const hiddenSourceProject = (): ApiError =>
  new ApiError(
    'PROJECT_NOT_FOUND',
    { field: 'sourceProjectId' },
    {
      message: 'The source project is not accessible to this credential.',
      suggestion: 'Pass projectId, or projectKey with teamKey, of a project this credential can access.',
    },
  );

/** Status ids the project's workflow allows, or undefined when it allows all team statuses. */
export async function workflowStatusIds(
  ctx: Ctx,
  project: Pick<ProjectRow, 'id' | 'has_workflow'>,
): Promise<Set<string> | undefined> {
  return project.has_workflow === 1 ? new Set(await listWorkflowStatusIds(ctx, project.id)) : undefined;
}

/** "Public API" → "PA", "Website" → "WEB"; then a digit until unique in the team. */
async function deriveKey(ctx: Ctx, teamId: string, name: string): Promise<string> {
  const words = name
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter(Boolean);
  let base = words.length >= 2 ? words.map((w) => w[0]).join('') : (words[0] ?? 'PRJ').slice(0, 3);
  if (!/^[A-Z]/.test(base)) base = `P${base}`;
  // At most 6 letters, so a disambiguating number up to 9999 still fits the 10-character limit.
  base = base.padEnd(2, 'X').slice(0, 6);
  const taken = await listKeysWithPrefix(ctx, teamId, base);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}${n}`)) return `${base}${n}`;
}

function validKey(value: unknown): string {
  const key = typeof value === 'string' ? value.trim().toUpperCase() : '';
  if (!KEY_RE.test(key)) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'projectKey' },
      { message: 'projectKey must be 2–10 characters: a letter, then letters or digits.' },
    );
  }
  return key;
}

function validDate(value: unknown, field: 'startDate' | 'endDate'): string | null {
  if (value === null) return null;
  if (!isCalendarDate(value))
    throw new ApiError(
      'INVALID_PROJECT_WINDOW',
      { field, value },
      { message: `${field} must be a YYYY-MM-DD calendar date.` },
    );
  return value;
}

function checkWindow(startDate: string | null, endDate: string | null): void {
  if (startDate && endDate && endDate < startDate) {
    throw new ApiError(
      'INVALID_PROJECT_WINDOW',
      { field: 'endDate', startDate, endDate },
      { message: 'endDate must be on or after startDate.' },
    );
  }
}

function validName(value: unknown): string {
  const name = nonBlank(value);
  if (!name) throw new ApiError('NAME_REQUIRED', { field: 'name' });
  return name;
}

export interface ProjectInput extends TeamRef {
  name?: unknown;
  description?: string | null;
  projectKey?: string;
  ownerId?: unknown;
  startDate?: unknown;
  endDate?: unknown;
  subtasksEnabled?: boolean;
  issueContainersEnabled?: boolean;
}

async function reload(ctx: Ctx, projectId: string): Promise<ProjectView> {
  return presentProject((await findVisibleProject(ctx, projectId)) as ProjectWithTeam);
}

export async function createProject(ctx: Ctx, input: ProjectInput): Promise<ProjectView> {
  const name = validName(input.name);
  const team = await requireTeam(ctx, input);
  const startDate = hasOwn(input, 'startDate') ? validDate(input.startDate, 'startDate') : null;
  const endDate = hasOwn(input, 'endDate') ? validDate(input.endDate, 'endDate') : null;
  checkWindow(startDate, endDate);
  const ownerId = hasOwn(input, 'ownerId')
    ? await ownerIdFrom(ctx, input.ownerId)
    : ctx.principal.kind === 'user'
      ? ctx.principal.id
      : null;
  const explicitKey = input.projectKey !== undefined ? validKey(input.projectKey) : undefined;
  const id = newId('prj', ctx.nowMs);
  const row: Omit<ProjectRow, 'key'> = {
    id,
    workspace_id: ctx.workspace.id,
    team_id: team.id,
    name,
    description: input.description ?? null,
    owner_id: ownerId,
    start_date: startDate,
    end_date: endDate,
    subtasks_enabled: input.subtasksEnabled === false ? 0 : 1,
    issue_containers_enabled: input.issueContainersEnabled === false ? 0 : 1,
    has_workflow: 0,
    created_by: ctx.principal.id,
    created_at: ctx.now,
    updated_at: ctx.now,
    version: 1,
  };
  // A derived key lost to a concurrent create is derived again; each round sees the winners.
  for (let attempt = 1; ; attempt++) {
    const key = explicitKey ?? (await deriveKey(ctx, team.id, name));
    if (await insertProjectIfKeyFree(ctx, { ...row, key })) break;
    if (explicitKey || attempt === MAX_KEY_ATTEMPTS)
      throw new ApiError('PROJECT_KEY_CONFLICT', { projectKey: key, teamKey: team.key });
  }
  // A project created by a token is granted to it, so the creator can keep working on it.
  if (ctx.principal.kind === 'api_token' && !ctx.access.all) {
    await grantProjectToToken(ctx, ctx.principal.tokenId, id);
    ctx.access.granted.add(id);
  }
  const project = await reload(ctx, id);
  await recordEvent(ctx, 'project.created', { project }, id);
  return project;
}

const PATCHABLE = [
  'name',
  'description',
  'projectKey',
  'teamId',
  'teamKey',
  'ownerId',
  'startDate',
  'endDate',
  'subtasksEnabled',
  'issueContainersEnabled',
] as const;

export async function updateProjectById(ctx: Ctx, projectId: string, input: ProjectInput): Promise<ProjectView> {
  const project = await requireVisibleProject(ctx, projectId);
  if (!PATCHABLE.some((field) => hasOwn(input, field)))
    throw new ApiError('UNSUPPORTED_ACTION', { projectId }, { message: 'The update names no field to change.' });
  const changes: Partial<ProjectRow> = {};
  if (hasOwn(input, 'name')) changes.name = validName(input.name);
  if (hasOwn(input, 'description')) changes.description = input.description ?? null;
  if (hasOwn(input, 'ownerId')) changes.owner_id = await ownerIdFrom(ctx, input.ownerId);
  if (hasOwn(input, 'subtasksEnabled')) changes.subtasks_enabled = input.subtasksEnabled ? 1 : 0;
  if (hasOwn(input, 'issueContainersEnabled')) changes.issue_containers_enabled = input.issueContainersEnabled ? 1 : 0;
  const startDate = hasOwn(input, 'startDate') ? validDate(input.startDate, 'startDate') : project.start_date;
  const endDate = hasOwn(input, 'endDate') ? validDate(input.endDate, 'endDate') : project.end_date;
  checkWindow(startDate, endDate);
  if (hasOwn(input, 'startDate')) changes.start_date = startDate;
  if (hasOwn(input, 'endDate')) changes.end_date = endDate;

  const targetTeam = await resolveTeamRef(ctx, input);
  const teamId = targetTeam?.id ?? project.team_id;
  if (teamId !== project.team_id) {
    if (await projectHasIssues(ctx, project.id)) throw new ApiError('TEAM_CHANGE_BLOCKED', { projectId, teamId });
    changes.team_id = teamId;
    changes.has_workflow = 0;
    await clearWorkflow(ctx, project.id);
  }
  const key = hasOwn(input, 'projectKey') ? validKey(input.projectKey) : project.key;
  if ((key !== project.key || teamId !== project.team_id) && (await isKeyTaken(ctx, teamId, key, project.id))) {
    throw new ApiError('PROJECT_KEY_CONFLICT', { projectKey: key, teamId });
  }
  if (key !== project.key) changes.key = key;

  try {
    await updateProject(ctx, project.id, { ...changes, updated_at: ctx.now });
  } catch (error) {
    // A concurrent update took the key after our check; the unique (team, key) rule decides.
    if (isUniqueViolation(error)) throw new ApiError('PROJECT_KEY_CONFLICT', { projectKey: key, teamId });
    throw error;
  }
  if (changes.key !== undefined) await touchReferrersOfProjectKey(ctx, project.id);
  const updated = await reload(ctx, project.id);
  await recordWriteEvent(ctx, 'project.updated', 'project', project.id, {
    after: plain(updated),
    before: plain(presentProject(project)),
  });
  return updated;
}

export async function getProject(ctx: Ctx, projectId: string): Promise<ProjectView> {
  return presentProject(await requireVisibleProject(ctx, projectId));
}

export async function getProjectByKey(ctx: Ctx, teamKey: string, projectKey: string): Promise<ProjectView> {
  const team = await resolveTeamRef(ctx, { teamKey });
  const [project] = await findVisibleProjectsByKey(ctx, projectKey, team?.id);
  if (!project) throw new ApiError('PROJECT_NOT_FOUND', { teamKey, projectKey });
  return presentProject(project);
}

export async function listProjects(ctx: Ctx, query: TeamRef & ListOrderQuery & { limit?: number; cursor?: string }) {
  const team = await resolveTeamRef(ctx, query);
  const { rows, pageInfo } = await listVisibleProjects(ctx, { teamId: team?.id }, parseListOrder(query), query);
  return { projects: rows.map(presentProject), pageInfo };
}
