import type { Kysely } from 'kysely';
import { nowIso } from '../../core/clock.js';
import type { AccessLevel } from '../../core/access-level.js';
import { tokenIdentity } from '../../core/context.js';
import { newId } from '../../core/ids.js';
import type { ApiTokenRow, DB, OauthTokenRow, UserRow } from '../../db/schema.js';
import { isExpired } from '../../core/credential-expiry.js';
import { EXPIRY_FORMAT, parseExpiry } from './expiry.js';
import { generateSecret, hashSecret } from './secrets.js';
import { revokeGrantById } from './grant-revocation.js';
import { forgetCachedCredentials } from './credential-cache.js';
import { underCeiling } from '../users/index.js';
import { endPersonAccess } from './person-access.js';
import {
  findOauthTokenByHash,
  findOauthTokenById,
  findTokenByName,
  findUserOauthCeiling,
  findTokenIdByHash,
  findUserByHandle,
  findUserById,
  findWorkspaceBySlug,
  insertGrants,
  insertOauthToken,
  insertToken,
  listGrantedProjectIds,
  listGrants,
  listOauthTokenRows,
  listOauthTokensOfUser,
  listProjectRefs,
  listTokenRows,
  updateOauthTokens,
  updateToken,
  updateUserOauthCeiling,
} from './tokens.repository.js';

/**
 * Administration of credentials: workspace tokens (name, secret, project grants, active,
 * expiry, access level) and OAuth access tokens. Used by `wsx token …` and by the workspace file's sections.
 */

export const TOKEN_NAME_RE = /^[A-Za-z0-9._-]{1,64}$/;
export const PAT_SECRET_RE = /^svc_pat_[0-9A-Za-z]{32,}$/;
export const OAT_SECRET_RE = /^svc_oat_[0-9A-Za-z]{32,}$/;
export const PROJECT_REF_RE = /^[A-Z][A-Z0-9]{0,9}\/[A-Z][A-Z0-9]{1,9}$/;

/** A token request that cannot be carried out; `field` names the input at fault. */
export class TokenAdminError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'TokenAdminError';
  }
}

export interface DesiredToken {
  name: string;
  /** Given: the token's secret becomes this one. Omitted: kept, or generated for a new token. */
  secret?: string;
  /** A "*" grant; true adds it, false leaves an existing one in place. */
  allProjects: boolean;
  /** Grants to add; grants already held and not listed stay. */
  projectIds: string[];
  /** Omitted: a new token is active and an existing one keeps its state. */
  active?: boolean;
  /** ISO-8601 UTC instant. Omitted: a new token never expires and an existing one keeps its expiry. */
  expiresAt?: string;
  /** Omitted: a new token may write and an existing one keeps its level. */
  access?: AccessLevel;
}

/**
 * Creates the token or brings it to `desired` without taking anything away. Answers its id
 * and the secret when it is new or was given (null otherwise: only a hash is stored).
 */
export async function convergeToken(db: Kysely<DB>, workspaceId: string, desired: DesiredToken, now: string) {
  const existing = await findTokenByName(db, workspaceId, desired.name);
  const givenHash = desired.secret === undefined ? undefined : hashSecret(desired.secret);
  if (givenHash) {
    const holder = await findTokenIdByHash(db, givenHash);
    if (holder && holder.id !== existing?.id) throw new TokenAdminError('secret', 'is already used by another token');
  }
  if (!existing) {
    const secret = desired.secret ?? generateSecret('svc_pat_');
    const id = newId('tok');
    await insertToken(db, {
      id,
      workspace_id: workspaceId,
      name: desired.name,
      secret_hash: givenHash ?? hashSecret(secret),
      active: desired.active === false ? 0 : 1,
      all_projects: desired.allProjects ? 1 : 0,
      expires_at: desired.expiresAt ?? null,
      access: desired.access ?? 'write',
      created_at: now,
      updated_at: now,
    });
    await insertGrants(db, workspaceId, id, [...new Set(desired.projectIds)]);
    return { id, secret };
  }
  const changes: Partial<ApiTokenRow> = {};
  if (givenHash && givenHash !== existing.secret_hash) changes.secret_hash = givenHash;
  if (desired.active !== undefined && (desired.active ? 1 : 0) !== existing.active)
    changes.active = desired.active ? 1 : 0;
  if (desired.allProjects && existing.all_projects !== 1) changes.all_projects = 1;
  if (desired.expiresAt !== undefined && desired.expiresAt !== existing.expires_at)
    changes.expires_at = desired.expiresAt;
  if (desired.access !== undefined && desired.access !== existing.access) changes.access = desired.access;
  if (Object.keys(changes).length > 0) await updateToken(db, existing.id, { ...changes, updated_at: now });
  const held = await listGrantedProjectIds(db, existing.id);
  await insertGrants(
    db,
    workspaceId,
    existing.id,
    [...new Set(desired.projectIds)].filter((id) => !held.has(id)),
  );
  return { id: existing.id, secret: desired.secret ?? null };
}

export interface DesiredOauthToken {
  /** Given: names exactly one token, created if new. Omitted: the entry is about all the user's tokens. */
  secret?: string;
  /**
   * With a secret: that token's state. Without: false revokes every token of the user, those
   * of connectors with their grants, and ends the user's browser sessions; true generates a
   * token when the user has no active one of the file's (revoked secrets are never revived
   * without being named). Omitted: a token is generated only when the user has none at all.
   */
  active?: boolean;
  /**
   * With a secret: that token's expiry. Without: every file token's of the user (and a
   * generated one's), and the latest instant the user's connector tokens may last.
   */
  expiresAt?: string;
  /**
   * Like expiresAt; omitted: a new token may write and an existing one keeps its level.
   * Without a secret, `read` also keeps the user's connector tokens to reading.
   */
  access?: AccessLevel;
}

/** The changes that bring an existing OAuth token to `desired` (empty when it is there already). */
function oauthChanges(row: OauthTokenRow, desired: DesiredOauthToken, now: string): Partial<OauthTokenRow> {
  const changes: Partial<OauthTokenRow> = {};
  if (desired.active !== undefined && (desired.active ? 1 : 0) !== row.active) changes.active = desired.active ? 1 : 0;
  if (desired.expiresAt !== undefined && desired.expiresAt !== row.expires_at) changes.expires_at = desired.expiresAt;
  if (desired.access !== undefined && desired.access !== row.access) changes.access = desired.access;
  return Object.keys(changes).length > 0 ? { ...changes, updated_at: now } : {};
}

/**
 * Brings a user's OAuth access tokens to one workspace-file entry (see DesiredOauthToken).
 * Answers the secret when it was given or generated, null otherwise.
 */
export async function convergeOauthToken(
  db: Kysely<DB>,
  workspaceId: string,
  userId: string,
  desired: DesiredOauthToken,
  now: string,
) {
  const insert = async (value: string) => {
    await insertOauthToken(db, {
      id: newId('oat'),
      workspace_id: workspaceId,
      user_id: userId,
      secret_hash: hashSecret(value),
      active: desired.active === false ? 0 : 1,
      expires_at: desired.expiresAt ?? null,
      access: desired.access ?? 'write',
      grant_id: null,
      client_id: null,
      created_at: now,
      updated_at: now,
    });
    return value;
  };
  if (desired.secret !== undefined) {
    const holder = await findOauthTokenByHash(db, hashSecret(desired.secret));
    if (holder && (holder.workspace_id !== workspaceId || holder.user_id !== userId)) {
      throw new TokenAdminError('secret', 'is already used by another credential');
    }
    if (!holder) return insert(desired.secret);
    const changes = oauthChanges(holder, desired, now);
    if (Object.keys(changes).length > 0) await updateOauthTokens(db, [holder.id], changes);
    return desired.secret;
  }
  // The group entry is about every OAuth token of the person. The file's own tokens take its
  // expiry and level, as a named one does; connectors' tokens live an hour and are minted
  // again on every refresh, so for them the entry is a ceiling kept on the person (see
  // underCeiling): it applies to their tokens present and future, and never lengthens one
  // or gives write to a read grant.
  const held = await listOauthTokensOfUser(db, workspaceId, userId, { fileOnly: true });
  const generate =
    desired.active === true ? !held.some((row) => row.active === 1) : desired.active === undefined && held.length === 0;
  // The group changes apply to the tokens held before; a generated one is created in its final state.
  for (const row of held) {
    const changes = oauthChanges(row, { expiresAt: desired.expiresAt, access: desired.access }, now);
    if (Object.keys(changes).length > 0) await updateOauthTokens(db, [row.id], changes);
  }
  await convergeOauthCeiling(db, userId, desired, now);
  // Revoking them all ends connectors too (their refresh tokens with them) and the person's
  // browser sessions, which could otherwise approve a new connector at once.
  if (desired.active === false) await endPersonAccess(db, { workspaceId, userId }, now);
  return generate ? insert(generateSecret('svc_oat_')) : null;
}

/** A user-level entry's `access` and `expiresAt` as the ceiling on the person's connector tokens. */
async function convergeOauthCeiling(
  db: Kysely<DB>,
  userId: string,
  desired: Pick<DesiredOauthToken, 'access' | 'expiresAt'>,
  now: string,
): Promise<void> {
  const stored = await findUserOauthCeiling(db, userId);
  const changes: Partial<Pick<UserRow, 'oauth_access' | 'oauth_expires_at'>> = {};
  // `write` is no ceiling: each connector keeps the level of the scopes it was granted.
  const access = desired.access === undefined ? undefined : desired.access === 'read' ? 'read' : null;
  if (access !== undefined && access !== stored.oauth_access) changes.oauth_access = access;
  if (desired.expiresAt !== undefined && desired.expiresAt !== stored.oauth_expires_at)
    changes.oauth_expires_at = desired.expiresAt;
  if (Object.keys(changes).length > 0) await updateUserOauthCeiling(db, userId, changes, now);
}

/** Every project of the workspace by its `TEAM/PROJ` reference. */
export async function projectIdsByRef(db: Kysely<DB>, workspaceId: string): Promise<Map<string, string>> {
  const rows = await listProjectRefs(db, workspaceId);
  return new Map(rows.map((row) => [`${row.team_key}/${row.key}`, row.id]));
}

async function requireWorkspace(db: Kysely<DB>, slug: string) {
  const workspace = await findWorkspaceBySlug(db, slug);
  if (!workspace) throw new TokenAdminError('workspace', `no workspace with slug "${slug}"`);
  return workspace;
}

async function requireToken(db: Kysely<DB>, workspace: { id: string; slug: string }, name: string) {
  const token = await findTokenByName(db, workspace.id, name);
  if (!token) throw new TokenAdminError('name', `no token named "${name}" in workspace "${workspace.slug}"`);
  return token;
}

export interface CreateTokenInput {
  workspace: string;
  name: string;
  /** `TEAM/PROJ` references (any case). */
  projects: string[];
  allProjects: boolean;
  /** As typed by the operator: ISO 8601 with an offset, in the future. */
  expiresAt?: string;
  /** `read` (`--read-only`): the token may only read. Default `write`. */
  access?: AccessLevel;
}

/** A new workspace token; its secret is answered here and never again. */
export async function createToken(db: Kysely<DB>, input: CreateTokenInput) {
  if (!TOKEN_NAME_RE.test(input.name))
    throw new TokenAdminError('name', `token name must match ${TOKEN_NAME_RE.source}`);
  let expiresAt: string | undefined;
  if (input.expiresAt !== undefined) {
    expiresAt = parseExpiry(input.expiresAt);
    if (!expiresAt) throw new TokenAdminError('expires-at', `--expires-at must be ${EXPIRY_FORMAT}`);
    // A token born expired is a typo, never an intent (the file, applied again later, may hold past dates).
    if (isExpired(expiresAt))
      throw new TokenAdminError('expires-at', `--expires-at must be in the future (got ${expiresAt})`);
  }
  return db.transaction().execute(async (trx) => {
    const workspace = await requireWorkspace(trx, input.workspace);
    if (await findTokenByName(trx, workspace.id, input.name)) {
      throw new TokenAdminError(
        'name',
        `a token named "${input.name}" already exists in workspace "${workspace.slug}"`,
      );
    }
    const refs = await projectIdsByRef(trx, workspace.id);
    const projectIds = input.projects.map((ref) => {
      const id = refs.get(ref.toUpperCase());
      if (!id)
        throw new TokenAdminError('project', `no project "${ref}" in workspace "${workspace.slug}" (use TEAM/PROJ)`);
      return id;
    });
    const access = input.access ?? 'write';
    const { secret } = await convergeToken(
      trx,
      workspace.id,
      { name: input.name, allProjects: input.allProjects, projectIds, expiresAt, access },
      nowIso(),
    );
    return {
      name: input.name,
      secret: secret as string,
      assigneeId: tokenIdentity(input.name),
      access,
      ...(expiresAt ? { expiresAt } : {}),
    };
  });
}

/** Deactivates a token; the next request that presents it is refused. */
export async function revokeToken(db: Kysely<DB>, input: { workspace: string; name: string }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const workspace = await requireWorkspace(trx, input.workspace);
    const token = await requireToken(trx, workspace, input.name);
    if (token.active === 1) await updateToken(trx, token.id, { active: 0, updated_at: nowIso() });
  });
}

/**
 * Revokes OAuth access tokens: every token of one user (`user`, a handle), or one token by
 * its id (`tokenId`, as `token list` shows it). Answers the user's handle, how many tokens
 * were active until now and how many browser sessions were ended. The next request with a
 * revoked token is refused. A token a connector got through the OAuth flow ends its whole
 * grant (refresh tokens included). Revoking a user's tokens also ends their connectors and
 * their browser sessions: a session still open could approve a new connector at once.
 */
export async function revokeOauthTokens(db: Kysely<DB>, input: { workspace: string; user?: string; tokenId?: string }) {
  const outcome = await db.transaction().execute(async (trx) => {
    const workspace = await requireWorkspace(trx, input.workspace);
    if (input.tokenId === undefined) {
      const user = await findUserByHandle(trx, workspace.id, input.user ?? '');
      if (!user) throw new TokenAdminError('oauth-user', `no user "${input.user}" in workspace "${workspace.slug}"`);
      const held = await listOauthTokensOfUser(trx, workspace.id, user.id);
      const ended = await endPersonAccess(trx, { workspaceId: workspace.id, userId: user.id }, nowIso());
      // Nothing to revoke at all is an operator's mistake (a wrong handle, say), not a success;
      // throwing rolls back, and nothing was there to change.
      if (held.length === 0 && ended.sessions === 0)
        throw new TokenAdminError(
          'oauth-user',
          `user "${user.handle}" has no OAuth token in workspace "${workspace.slug}"`,
        );
      return { user: user.handle, revoked: ended.tokens, sessions: ended.sessions, grants: [] };
    }
    const row = await findOauthTokenById(trx, workspace.id, input.tokenId);
    if (!row)
      throw new TokenAdminError('oauth-token', `no OAuth token "${input.tokenId}" in workspace "${workspace.slug}"`);
    const handle = (await findUserById(trx, row.user_id))?.handle ?? row.user_id;
    if (row.active === 1) await updateOauthTokens(trx, [row.id], { active: 0, updated_at: nowIso() });
    return { user: handle, revoked: row.active === 1 ? 1 : 0, sessions: 0, grants: row.grant_id ? [row.grant_id] : [] };
  });
  // Written in the transaction: no cache of this process may answer from before its commit.
  forgetCachedCredentials();
  // A connector's token comes with a refresh token that would mint the next one: revoking
  // the token ends the grant it was issued under, as `wsx oauth revoke` does.
  for (const grantId of outcome.grants) await revokeGrantById(db, grantId);
  return { user: outcome.user, revoked: outcome.revoked, sessions: outcome.sessions };
}

export interface TokenSummary {
  name: string;
  assigneeId: string;
  active: boolean;
  allProjects: boolean;
  /** Granted projects as `TEAM/PROJ`, sorted. */
  projects: string[];
  access: AccessLevel;
  /** Only when the token has an expiry. */
  expiresAt?: string;
  createdAt: string;
}

/** An OAuth access token as `token list` shows it: never its secret or hash. */
export interface OauthTokenSummary {
  /** What `token revoke --oauth-token` takes. */
  id: string;
  /** The approving user's handle. */
  user: string;
  active: boolean;
  access: AccessLevel;
  /** Only when the token has an expiry. */
  expiresAt?: string;
  createdAt: string;
}

export async function listOauthTokens(db: Kysely<DB>, workspaceSlug: string): Promise<OauthTokenSummary[]> {
  const workspace = await requireWorkspace(db, workspaceSlug);
  const rows = await listOauthTokenRows(db, workspace.id);
  return rows.map((row) => {
    // A connector's token is shown as it acts: under its person's ceiling (see underCeiling).
    const { access, expiresAt } =
      row.grant_id === null
        ? { access: row.access, expiresAt: row.expires_at }
        : underCeiling(
            { access: row.access, expiresAt: row.expires_at },
            { oauthAccess: row.oauth_access, oauthExpiresAt: row.oauth_expires_at },
          );
    return {
      id: row.id,
      user: row.handle,
      active: row.active === 1,
      access,
      ...(expiresAt ? { expiresAt } : {}),
      createdAt: row.created_at,
    };
  });
}

export async function listTokens(db: Kysely<DB>, workspaceSlug: string): Promise<TokenSummary[]> {
  const workspace = await requireWorkspace(db, workspaceSlug);
  const [tokens, grants, refs] = await Promise.all([
    listTokenRows(db, workspace.id),
    listGrants(db, workspace.id),
    listProjectRefs(db, workspace.id),
  ]);
  const refOf = new Map(refs.map((row) => [row.id, `${row.team_key}/${row.key}`]));
  const projectsOf = new Map<string, string[]>();
  for (const grant of grants) {
    const ref = refOf.get(grant.project_id);
    if (ref) projectsOf.set(grant.token_id, [...(projectsOf.get(grant.token_id) ?? []), ref]);
  }
  return tokens.map((token) => ({
    name: token.name,
    assigneeId: tokenIdentity(token.name),
    active: token.active === 1,
    allProjects: token.all_projects === 1,
    projects: (projectsOf.get(token.id) ?? []).sort(),
    access: token.access,
    ...(token.expires_at ? { expiresAt: token.expires_at } : {}),
    createdAt: token.created_at,
  }));
}
