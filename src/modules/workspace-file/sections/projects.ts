import { sql, type Kysely } from 'kysely';
import { TOKEN_IDENTITY_PREFIX } from '../../../core/context.js';
import { newId } from '../../../core/ids.js';
import type { DB, ProjectRow } from '../../../db/schema.js';
import { TOKEN_NAME_RE } from '../../auth/index.js';
import { fail } from '../errors.js';
import {
  at,
  optionalBoolean,
  optionalString,
  optionalStringList,
  readEntries,
  requiredString,
  type EntryFormat,
} from '../fields.js';
import { changedFields, flag, sameSet } from './converge.js';
import { convergeContainers, loadContainers, parseContainers, type ContainerSpec } from './project-containers.js';
import { defineListSection, type WorkspaceCtx } from './section.js';
import { STATUS_KEY_RE } from './team-workflow.js';
import { TEAM_KEY_RE } from './teams.js';
import { declaredTokenNames } from './tokens.js';
import { HANDLE_RE } from './users.js';

export interface ProjectSpec {
  team: string;
  key: string;
  name: string;
  /** A user handle or `api-token:<name>`. */
  owner?: string;
  subtasks?: boolean;
  issueContainers?: boolean;
  /** The team statuses allowed in this project (its workflow). */
  statuses?: string[];
  containers?: ContainerSpec[];
}

export const PROJECT_KEY_RE = /^[A-Z][A-Z0-9]{1,9}$/;

function parseOwner(fields: Record<string, unknown>, path: string): string | undefined {
  const owner = optionalString(fields, 'owner', path);
  if (owner === undefined) return undefined;
  const tokenName = owner.startsWith(TOKEN_IDENTITY_PREFIX) ? owner.slice(TOKEN_IDENTITY_PREFIX.length) : undefined;
  const valid = tokenName === undefined ? HANDLE_RE.test(owner) : TOKEN_NAME_RE.test(tokenName);
  if (!valid) fail(at(path, 'owner'), 'must be a user handle or api-token:<token name>');
  return owner;
}

const projectEntry: EntryFormat<ProjectSpec> = {
  keys: ['team', 'key', 'name', 'owner', 'subtasks', 'issueContainers', 'statuses', 'containers'],
  read: (fields, where) => ({
    team: requiredString(fields, 'team', where, { pattern: TEAM_KEY_RE }),
    key: requiredString(fields, 'key', where, { pattern: PROJECT_KEY_RE, upperCase: true }),
    name: requiredString(fields, 'name', where, { max: 200 }),
    owner: parseOwner(fields, where),
    subtasks: optionalBoolean(fields, 'subtasks', where),
    issueContainers: optionalBoolean(fields, 'issueContainers', where),
    statuses: optionalStringList(fields, 'statuses', where, { pattern: STATUS_KEY_RE }),
    containers: parseContainers(fields, where),
  }),
  unique: { identity: (project) => `${project.team}/${project.key}`, what: 'project' },
};

/** What a project spec may refer to, loaded once per apply. */
interface Lookups {
  teamIds: Map<string, string>;
  userIds: Map<string, string>;
  tokenNames: Set<string>;
  /** `teamId/statusKey` → statusId */
  statusIds: Map<string, string>;
}

async function loadLookups(trx: Kysely<DB>, ws: WorkspaceCtx): Promise<Lookups> {
  const [teams, users, tokens, statuses] = await Promise.all([
    trx.selectFrom('teams').select(['id', 'key']).where('workspace_id', '=', ws.id).execute(),
    trx.selectFrom('users').select(['id', 'handle']).where('workspace_id', '=', ws.id).execute(),
    trx.selectFrom('api_tokens').select('name').where('workspace_id', '=', ws.id).execute(),
    trx.selectFrom('statuses').select(['id', 'team_id', 'key']).where('workspace_id', '=', ws.id).execute(),
  ]);
  // Tokens are applied after projects (their grants name projects), so a token this file
  // declares may own a project before its row exists.
  const declaredTokens = declaredTokenNames(ws.file);
  return {
    teamIds: new Map(teams.map((row) => [row.key, row.id])),
    userIds: new Map(users.map((row) => [row.handle, row.id])),
    tokenNames: new Set([...tokens.map((row) => row.name), ...declaredTokens]),
    statusIds: new Map(statuses.map((row) => [`${row.team_id}/${row.key}`, row.id])),
  };
}

function resolveOwner(owner: string, lookups: Lookups, path: string): string {
  if (!owner.startsWith(TOKEN_IDENTITY_PREFIX))
    return lookups.userIds.get(owner) ?? fail(path, `unknown user "${owner}"`);
  const tokenName = owner.slice(TOKEN_IDENTITY_PREFIX.length);
  return lookups.tokenNames.has(tokenName) ? owner : fail(path, `unknown token "${tokenName}"`);
}

/** Replaces the project's allowed statuses when they differ from the file's list. */
async function convergeWorkflow(
  trx: Kysely<DB>,
  ws: WorkspaceCtx,
  project: ProjectRow,
  keys: string[],
  lookups: Lookups,
  path: string,
) {
  const wanted = new Set(
    keys.map(
      (key, index) =>
        lookups.statusIds.get(`${project.team_id}/${key}`) ??
        fail(at(at(path, 'statuses'), index), `unknown status "${key}" in team of this project`),
    ),
  );
  const stored = await trx
    .selectFrom('project_statuses')
    .select('status_id')
    .where('project_id', '=', project.id)
    .execute();
  if (
    sameSet(
      stored.map((row) => row.status_id),
      wanted,
    )
  )
    return;
  await trx.deleteFrom('project_statuses').where('project_id', '=', project.id).execute();
  if (wanted.size === 0) return;
  await trx
    .insertInto('project_statuses')
    .values([...wanted].map((statusId) => ({ workspace_id: ws.id, project_id: project.id, status_id: statusId })))
    .execute();
}

/** Projects with their workflow and containers, matched by team and key. */
export const projectsSection = defineListSection<ProjectSpec>({
  key: 'projects',
  parse: (raw, path) => readEntries(raw, path, projectEntry),
  async apply(trx, ws, projects, result) {
    const lookups = await loadLookups(trx, ws);
    const storedProjects = await trx.selectFrom('projects').selectAll().where('workspace_id', '=', ws.id).execute();
    const byTeamAndKey = new Map(storedProjects.map((row) => [`${row.team_id}/${row.key}`, row]));
    const containers = await loadContainers(trx, ws);
    for (const [index, project] of projects.entries()) {
      const where = at('projects', index);
      const teamId = lookups.teamIds.get(project.team) ?? fail(at(where, 'team'), `unknown team "${project.team}"`);
      const desired = {
        name: project.name,
        owner_id: project.owner === undefined ? undefined : resolveOwner(project.owner, lookups, at(where, 'owner')),
        subtasks_enabled: flag(project.subtasks),
        issue_containers_enabled: flag(project.issueContainers),
        has_workflow: project.statuses ? 1 : undefined,
      };
      let row = byTeamAndKey.get(`${teamId}/${project.key}`);
      if (!row) {
        row = {
          id: newId('prj'),
          workspace_id: ws.id,
          team_id: teamId,
          key: project.key,
          name: project.name,
          description: null,
          owner_id: desired.owner_id ?? null,
          start_date: null,
          end_date: null,
          subtasks_enabled: desired.subtasks_enabled ?? 1,
          issue_containers_enabled: desired.issue_containers_enabled ?? 1,
          has_workflow: desired.has_workflow ?? 0,
          created_by: null,
          created_at: ws.now,
          updated_at: ws.now,
          version: 1,
        };
        await trx.insertInto('projects').values(row).execute();
      } else {
        const changes = changedFields(row, desired);
        if (changes)
          await trx
            .updateTable('projects')
            .set({ ...changes, updated_at: ws.now, version: sql`version + 1` })
            .where('id', '=', row.id)
            .execute();
      }
      const ref = `${project.team}/${project.key}`;
      result.projects[ref] = row.id;
      if (project.statuses) await convergeWorkflow(trx, ws, row, project.statuses, lookups, where);
      if (!project.containers) continue;
      const containerIds = await convergeContainers(trx, ws, row.id, project.containers, containers, where);
      for (const [name, id] of containerIds) result.containers[`${ref}/${name}`] = id;
    }
  },
});
