import { ApiError } from '../../core/errors.js';
import { isTokenLive } from '../../core/credential-expiry.js';
import { TOKEN_IDENTITY_PREFIX, tokenIdentity } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import {
  findTokenByName,
  findTokensByNames,
  findUser,
  findUserWithTeamMembership,
  findUsers,
  listMemberships,
  listTokenRows,
  listUserRows,
  tokenHasProject,
} from './users.repository.js';

/** A workspace identity as referenced by ownerId, assigneeId, reporterId, userId. */
export type Identity =
  | { kind: 'human'; id: string; userId: string }
  | { kind: 'automation'; id: string; tokenId: string; tokenName: string; active: boolean; allProjects: boolean };

/**
 * What one read found of a member named by id and their membership of one team, when another
 * module's lookup read it in its own statement (a create reads its assignee with its
 * project): `userId` is null when no member has the id.
 */
export interface TeamCandidate {
  id: string;
  userId: string | null;
  inTeam: boolean;
}

type TokenIdentityRow = { id: string; name: string; active: number; expires_at: string | null; all_projects: number };

/** An expired token is as inactive as a revoked one: listed with `active: false`, never assignable. */
const agentOf = (token: TokenIdentityRow, nowMs: number): Identity => ({
  kind: 'automation',
  id: tokenIdentity(token.name),
  tokenId: token.id,
  tokenName: token.name,
  active: isTokenLive(token, nowMs),
  allProjects: token.all_projects === 1,
});

/** Resolves `usr_…` or `api-token:<name>` in the caller's workspace; undefined when unknown. */
export async function resolveIdentity(ctx: Ctx, id: string): Promise<Identity | undefined> {
  if (typeof id !== 'string' || id.length === 0) return undefined;
  if (id.startsWith(TOKEN_IDENTITY_PREFIX)) {
    const token = await findTokenByName(ctx, id.slice(TOKEN_IDENTITY_PREFIX.length));
    return token && agentOf(token, ctx.nowMs);
  }
  const user = await findUser(ctx, id);
  return user && { kind: 'human', id: user.id, userId: user.id };
}

/**
 * Many identities at once, as resolveIdentity resolves one: one query for the members and
 * one for the agents, whatever the list's length. Unknown ids are absent from the answer.
 */
export async function resolveIdentities(ctx: Ctx, ids: string[]): Promise<Map<string, Identity>> {
  const wanted = [...new Set(ids.filter((id) => typeof id === 'string' && id.length > 0))];
  const tokenNames = wanted
    .filter((id) => id.startsWith(TOKEN_IDENTITY_PREFIX))
    .map((id) => id.slice(TOKEN_IDENTITY_PREFIX.length));
  const userIds = wanted.filter((id) => !id.startsWith(TOKEN_IDENTITY_PREFIX));
  const [users, tokens] = await Promise.all([findUsers(ctx, userIds), findTokensByNames(ctx, tokenNames)]);
  const found = new Map<string, Identity>();
  for (const user of users) found.set(user.id, { kind: 'human', id: user.id, userId: user.id });
  for (const token of tokens) found.set(tokenIdentity(token.name), agentOf(token, ctx.nowMs));
  return found;
}

/** An identity that may own or be assigned work: any member, or an active automation agent. */
export async function resolveActiveIdentity(ctx: Ctx, id: string): Promise<Identity | undefined> {
  const identity = await resolveIdentity(ctx, id);
  return identity && (identity.kind === 'human' || identity.active) ? identity : undefined;
}

/**
 * resolveActiveIdentity for someone about to hold a team's work: a member comes with whether
 * they belong to the team, read in the same query, or taken from `known` when another lookup
 * of the same write already read it for this id.
 */
export async function resolveActiveIdentityInTeam(
  ctx: Ctx,
  id: string,
  teamId: string,
  known?: TeamCandidate,
): Promise<{ identity: Identity; inTeam: boolean } | undefined> {
  if (id.startsWith(TOKEN_IDENTITY_PREFIX)) {
    const agent = await resolveActiveIdentity(ctx, id);
    return agent && { identity: agent, inTeam: false };
  }
  const user =
    known?.id === id
      ? known.userId === null
        ? undefined
        : { id: known.userId, in_team: known.inTeam }
      : await findUserWithTeamMembership(ctx, id, teamId);
  return user && { identity: { kind: 'human', id: user.id, userId: user.id }, inTeam: Boolean(user.in_team) };
}

/** Whether an automation agent may see a project (a "*" grant or an explicit one). */
export async function agentCanAccessProject(
  ctx: Ctx,
  identity: Extract<Identity, { kind: 'automation' }>,
  projectId: string,
): Promise<boolean> {
  return identity.allProjects || tokenHasProject(ctx, identity.tokenId, projectId);
}

export async function listUsers(ctx: Ctx) {
  const [users, memberships, tokens] = await Promise.all([listUserRows(ctx), listMemberships(ctx), listTokenRows(ctx)]);
  const teamsOf = new Map<string, string[]>();
  for (const m of memberships) teamsOf.set(m.user_id, [...(teamsOf.get(m.user_id) ?? []), m.team_id]);
  return {
    users: users.map((u) => ({
      userId: u.id,
      name: u.name,
      email: u.email,
      kind: 'human' as const,
      handle: u.handle,
      teamIds: teamsOf.get(u.id) ?? [],
      createdAt: u.created_at,
      updatedAt: u.updated_at,
    })),
    // An agent is the token's identity, not a record of its own: it carries exactly the documented fields.
    automationAgents: tokens.map((t) => ({
      userId: tokenIdentity(t.name),
      name: t.name,
      kind: 'automation' as const,
      active: isTokenLive(t, ctx.nowMs),
    })),
  };
}

/**
 * An `ownerId` write: null clears; anything else must be an active workspace identity
 * (member or automation agent), else OWNER_NOT_IN_WORKSPACE naming the field.
 */
export async function ownerIdFrom(ctx: Ctx, value: unknown): Promise<string | null> {
  if (value === null) return null;
  const identity = typeof value === 'string' ? await resolveActiveIdentity(ctx, value) : undefined;
  if (!identity) throw new ApiError('OWNER_NOT_IN_WORKSPACE', { field: 'ownerId', ownerId: value });
  return identity.id;
}
