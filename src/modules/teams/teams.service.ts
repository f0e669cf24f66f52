import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import type { TeamRow } from '../../db/schema.js';
import {
  findDefaultTeam,
  findTeamById,
  findTeamByKey,
  findTeamsByKeys,
  listStatusRows,
  listTeamRows,
} from './teams.repository.js';
import { presentStatus, presentTeam } from './teams.presenter.js';

export interface TeamRef {
  teamId?: string | null;
  teamKey?: string | null;
}

const given = (value: string | null | undefined): value is string => typeof value === 'string';

/** Whether a team reference was sent at all (null and absent mean "none"; "" is a bad key). */
const hasTeamRef = (ref: TeamRef): boolean => given(ref.teamId) || given(ref.teamKey);

/** Resolves teamId / teamKey (both must agree); undefined when neither is given. */
export async function resolveTeamRef(ctx: Ctx, ref: TeamRef): Promise<TeamRow | undefined> {
  if (!hasTeamRef(ref)) return undefined;
  const byId = given(ref.teamId) ? await findTeamById(ctx, ref.teamId) : undefined;
  if (given(ref.teamId) && !byId) throw new ApiError('TEAM_NOT_FOUND', { teamId: ref.teamId });
  if (given(ref.teamKey)) {
    const byKey = byId && byId.key === ref.teamKey.toUpperCase() ? byId : await findTeamByKey(ctx, ref.teamKey);
    if (!byKey || (byId && byId.id !== byKey.id)) throw new ApiError('TEAM_NOT_FOUND', { teamKey: ref.teamKey });
    return byKey;
  }
  return byId;
}

export async function requireTeam(ctx: Ctx, ref: TeamRef): Promise<TeamRow> {
  const team = await resolveTeamRef(ctx, ref);
  if (team) return team;
  const fallback = await findDefaultTeam(ctx);
  if (!fallback) throw new ApiError('NO_TEAM_AVAILABLE', {});
  return fallback;
}

export const getTeamById = (ctx: Ctx, teamId: string) => findTeamById(ctx, teamId);

/** Teams of many keys (any case), in one query, keyed by their upper-case key. */
export async function teamsByKey(ctx: Ctx, teamKeys: string[]): Promise<Map<string, TeamRow>> {
  const rows = await findTeamsByKeys(ctx, [...new Set(teamKeys.map((key) => key.toUpperCase()))]);
  return new Map(rows.map((team) => [team.key, team]));
}

export async function listTeams(ctx: Ctx) {
  const rows = await listTeamRows(ctx);
  const defaultTeam = rows.find((t) => t.is_default === 1) ?? rows[0];
  return { teams: rows.map(presentTeam), defaultTeamId: defaultTeam?.id ?? null };
}

export async function listStatuses(ctx: Ctx, ref: TeamRef) {
  const team = (await resolveTeamRef(ctx, ref)) ?? (await findDefaultTeam(ctx));
  if (!team) return { statuses: [], teamId: null, teamKey: null };
  const rows = await listStatusRows(ctx, team.id);
  return { statuses: rows.map((s) => presentStatus(s, team)), teamId: team.id, teamKey: team.key };
}
