import type { Kysely } from 'kysely';
import { nowIso } from '../../core/clock.js';
import { tokenIdentity } from '../../core/context.js';
import { newId } from '../../core/ids.js';
import type { ApiTokenRow, DB } from '../../db/schema.js';
import { generateSecret, hashSecret } from './secrets.js';
import {
  findOauthTokenByHash, findOauthTokenOfUser, findTokenByName, findTokenIdByHash, findWorkspaceBySlug, insertGrants,
  insertOauthToken, insertToken, listGrantedProjectIds, listGrants, listProjectRefs, listTokenRows, updateToken,
} from './tokens.repository.js';

/**
 * Administration of credentials: workspace tokens (name, secret, project grants, active)
 * and OAuth access tokens. Used by `wsx token …` and by the workspace file's sections.
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
      id, workspace_id: workspaceId, name: desired.name, secret_hash: givenHash ?? hashSecret(secret), active: desired.active === false ? 0 : 1,
      all_projects: desired.allProjects ? 1 : 0, created_at: now, updated_at: now,
    });
    await insertGrants(db, workspaceId, id, [...new Set(desired.projectIds)]);
    return { id, secret };
  }
  const changes: Partial<ApiTokenRow> = {};
  if (givenHash && givenHash !== existing.secret_hash) changes.secret_hash = givenHash;
  if (desired.active !== undefined && (desired.active ? 1 : 0) !== existing.active) changes.active = desired.active ? 1 : 0;
  if (desired.allProjects && existing.all_projects !== 1) changes.all_projects = 1;
  if (Object.keys(changes).length > 0) await updateToken(db, existing.id, { ...changes, updated_at: now });
  const held = await listGrantedProjectIds(db, existing.id);
  await insertGrants(db, workspaceId, existing.id, [...new Set(desired.projectIds)].filter((id) => !held.has(id)));
  return { id: existing.id, secret: desired.secret ?? null };
}

/**
 * Adds an OAuth access token for a user: the given secret (kept if already theirs), or a
 * generated one when the user has none. Answers the secret when given or generated.
 */
export async function convergeOauthToken(db: Kysely<DB>, workspaceId: string, userId: string, secret: string | undefined, now: string) {
  if (secret === undefined && (await findOauthTokenOfUser(db, workspaceId, userId))) return null;
  const value = secret ?? generateSecret('svc_oat_');
  const hash = hashSecret(value);
  const holder = await findOauthTokenByHash(db, hash);
  if (holder && (holder.workspace_id !== workspaceId || holder.user_id !== userId)) {
    throw new TokenAdminError('secret', 'is already used by another credential');
  }
  if (!holder) {
    await insertOauthToken(db, { id: newId('oat'), workspace_id: workspaceId, user_id: userId, secret_hash: hash, active: 1, created_at: now, updated_at: now });
  }
  return value;
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
}

/** A new workspace token; its secret is answered here and never again. */
export async function createToken(db: Kysely<DB>, input: CreateTokenInput) {
  if (!TOKEN_NAME_RE.test(input.name)) throw new TokenAdminError('name', `token name must match ${TOKEN_NAME_RE.source}`);
  return db.transaction().execute(async (trx) => {
    const workspace = await requireWorkspace(trx, input.workspace);
    if (await findTokenByName(trx, workspace.id, input.name)) {
      throw new TokenAdminError('name', `a token named "${input.name}" already exists in workspace "${workspace.slug}"`);
    }
    const refs = await projectIdsByRef(trx, workspace.id);
    const projectIds = input.projects.map((ref) => {
      const id = refs.get(ref.toUpperCase());
      if (!id) throw new TokenAdminError('project', `no project "${ref}" in workspace "${workspace.slug}" (use TEAM/PROJ)`);
      return id;
    });
    const { secret } = await convergeToken(trx, workspace.id, { name: input.name, allProjects: input.allProjects, projectIds }, nowIso());
    return { name: input.name, secret: secret as string, assigneeId: tokenIdentity(input.name) };
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

export interface TokenSummary {
  name: string;
  assigneeId: string;
  active: boolean;
  allProjects: boolean;
  /** Granted projects as `TEAM/PROJ`, sorted. */
  projects: string[];
  createdAt: string;
}

export async function listTokens(db: Kysely<DB>, workspaceSlug: string): Promise<TokenSummary[]> {
  const workspace = await requireWorkspace(db, workspaceSlug);
  const [tokens, grants, refs] = await Promise.all([
    listTokenRows(db, workspace.id), listGrants(db, workspace.id), listProjectRefs(db, workspace.id),
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
    createdAt: token.created_at,
  }));
}
