import type { Kysely } from 'kysely';
import { newId } from '../../../core/ids.js';
import type { DB } from '../../../db/schema.js';
import { fail } from '../errors.js';
import { at, optionalBoolean, optionalStringList, readEntries, requiredString, type EntryFormat } from '../fields.js';
import { changedFields } from './converge.js';
import { defineListSection, type WorkspaceCtx } from './section.js';
import {
  convergeStatuses,
  convergeTransitions,
  DEFAULT_STATUSES,
  parseStatuses,
  parseTransitions,
  type StatusSpec,
  type TransitionsSpec,
} from './team-workflow.js';
import { HANDLE_RE } from './users.js';

export interface TeamSpec {
  key: string;
  name: string;
  default?: boolean;
  members?: string[];
  statuses?: StatusSpec[];
  transitions?: TransitionsSpec;
}

export const TEAM_KEY_RE = /^[A-Z][A-Z0-9]{0,9}$/;

const teamEntry: EntryFormat<TeamSpec> = {
  keys: ['key', 'name', 'default', 'members', 'statuses', 'transitions'],
  read: (fields, where) => ({
    key: requiredString(fields, 'key', where, { pattern: TEAM_KEY_RE }),
    name: requiredString(fields, 'name', where, { max: 200 }),
    default: optionalBoolean(fields, 'default', where),
    members: optionalStringList(fields, 'members', where, { pattern: HANDLE_RE }),
    statuses: parseStatuses(fields, where),
    transitions: parseTransitions(fields, where),
  }),
  unique: { identity: (team) => team.key, what: 'team key' },
};

function parseTeams(raw: unknown, path: string): TeamSpec[] {
  const teams = readEntries(raw, path, teamEntry);
  const defaults = teams.flatMap((team, index) => (team.default === true ? [index] : []));
  if (defaults.length > 1) fail(at(at(path, defaults[1]), 'default'), 'only one team may be the default');
  return teams;
}

/** Adds the listed members that are missing; members the file leaves out stay. */
async function convergeMembers(
  trx: Kysely<DB>,
  ws: WorkspaceCtx,
  teamId: string,
  handles: string[],
  userIds: Map<string, string>,
  path: string,
) {
  const stored = await trx.selectFrom('team_members').select('user_id').where('team_id', '=', teamId).execute();
  const present = new Set(stored.map((row) => row.user_id));
  const missing = new Set<string>();
  handles.forEach((handle, index) => {
    const userId = userIds.get(handle) ?? fail(at(at(path, 'members'), index), `unknown user "${handle}"`);
    if (!present.has(userId)) missing.add(userId);
  });
  if (missing.size === 0) return;
  await trx
    .insertInto('team_members')
    .values([...missing].map((userId) => ({ workspace_id: ws.id, team_id: teamId, user_id: userId })))
    .execute();
}

/**
 * Keeps exactly one default team: the one the file marks, else the existing default, else
 * the first team of the file that is not marked `default: false`.
 */
async function convergeDefaultTeam(trx: Kysely<DB>, ws: WorkspaceCtx, teams: TeamSpec[], path: string) {
  const stored = await trx
    .selectFrom('teams')
    .select(['id', 'key', 'is_default'])
    .where('workspace_id', '=', ws.id)
    .execute();
  const storedDefault = stored.find((row) => row.is_default === 1);
  let target = teams.find((team) => team.default === true)?.key;
  if (!target && storedDefault) {
    const unmarked = teams.findIndex((team) => team.key === storedDefault.key && team.default === false);
    if (unmarked >= 0)
      fail(
        at(at(path, unmarked), 'default'),
        'this is the default team; mark another team default: true to replace it',
      );
    return;
  }
  target ??= teams.find((team) => team.default !== false)?.key;
  if (!target) {
    if (teams.length > 0) fail(path, 'one team must be the default (default: true)');
    return;
  }
  for (const row of stored) {
    const isDefault = row.key === target ? 1 : 0;
    if (row.is_default !== isDefault)
      await trx
        .updateTable('teams')
        .set({ is_default: isDefault, updated_at: ws.now })
        .where('id', '=', row.id)
        .execute();
  }
}

/** Teams with their members, statuses and transition rules, matched by key. */
export const teamsSection = defineListSection<TeamSpec>({
  key: 'teams',
  parse: parseTeams,
  async apply(trx, ws, teams, result) {
    const storedTeams = await trx.selectFrom('teams').selectAll().where('workspace_id', '=', ws.id).execute();
    const byKey = new Map(storedTeams.map((row) => [row.key, row]));
    const users = await trx.selectFrom('users').select(['id', 'handle']).where('workspace_id', '=', ws.id).execute();
    const userIds = new Map(users.map((row) => [row.handle, row.id]));
    for (const [index, team] of teams.entries()) {
      const where = at('teams', index);
      const hasRules = team.transitions ? 1 : undefined;
      const created = !byKey.has(team.key);
      let row = byKey.get(team.key);
      if (!row) {
        row = {
          id: newId('team'),
          workspace_id: ws.id,
          key: team.key,
          name: team.name,
          is_default: 0,
          has_transition_rules: hasRules ?? 0,
          issue_counter: 0,
          created_at: ws.now,
          updated_at: ws.now,
        };
        await trx.insertInto('teams').values(row).execute();
      } else {
        const changes = changedFields(row, { name: team.name, has_transition_rules: hasRules });
        if (changes)
          await trx
            .updateTable('teams')
            .set({ ...changes, updated_at: ws.now })
            .where('id', '=', row.id)
            .execute();
      }
      result.teams[team.key] = row.id;
      if (team.members) await convergeMembers(trx, ws, row.id, team.members, userIds, where);
      const statuses = team.statuses ?? (created ? DEFAULT_STATUSES : undefined);
      if (!statuses && !team.transitions) continue;
      const statusIds = await convergeStatuses(trx, ws, row.id, statuses);
      if (team.transitions) await convergeTransitions(trx, ws, row.id, team.transitions, statusIds, where);
    }
    await convergeDefaultTeam(trx, ws, teams, 'teams');
  },
});
