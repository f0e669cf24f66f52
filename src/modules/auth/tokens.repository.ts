import { forgetCachedCredentials } from './credential-cache.js';
import type { Kysely } from 'kysely';
import type { ApiTokenRow, DB, OauthTokenRow, UserRow } from '../../db/schema.js';

/** Token administration (workspace file and `wsx token`): the only SQL on credentials' rows. */

export const findWorkspaceBySlug = (db: Kysely<DB>, slug: string) =>
  db.selectFrom('workspaces').select(['id', 'slug', 'name']).where('slug', '=', slug).executeTakeFirst();

export const findTokenByName = (db: Kysely<DB>, workspaceId: string, name: string) =>
  db
    .selectFrom('api_tokens')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('name', '=', name)
    .executeTakeFirst();

/** Secret hashes are unique across every workspace, so this lookup is global. */
export const findTokenIdByHash = (db: Kysely<DB>, secretHash: string) =>
  db.selectFrom('api_tokens').select('id').where('secret_hash', '=', secretHash).executeTakeFirst();

export async function insertToken(db: Kysely<DB>, row: ApiTokenRow): Promise<void> {
  await db.insertInto('api_tokens').values(row).execute();
  forgetCachedCredentials();
}

export async function updateToken(db: Kysely<DB>, tokenId: string, changes: Partial<ApiTokenRow>): Promise<void> {
  await db.updateTable('api_tokens').set(changes).where('id', '=', tokenId).execute();
  forgetCachedCredentials();
}

export async function listGrantedProjectIds(db: Kysely<DB>, tokenId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('token_project_grants')
    .select('project_id')
    .where('token_id', '=', tokenId)
    .execute();
  return new Set(rows.map((row) => row.project_id));
}

export async function insertGrants(
  db: Kysely<DB>,
  workspaceId: string,
  tokenId: string,
  projectIds: string[],
): Promise<void> {
  if (projectIds.length === 0) return;
  await db
    .insertInto('token_project_grants')
    .values(projectIds.map((projectId) => ({ workspace_id: workspaceId, token_id: tokenId, project_id: projectId })))
    .execute();
  forgetCachedCredentials();
}

export const listTokenRows = (db: Kysely<DB>, workspaceId: string) =>
  db
    .selectFrom('api_tokens')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

/** Every project of the workspace with its team's key, for `TEAM/PROJ` references. */
export const listProjectRefs = (db: Kysely<DB>, workspaceId: string) =>
  db
    .selectFrom('projects as p')
    .innerJoin('teams as t', 't.id', 'p.team_id')
    .select(['p.id', 'p.key', 't.key as team_key'])
    .where('p.workspace_id', '=', workspaceId)
    .execute();

export const listGrants = (db: Kysely<DB>, workspaceId: string) =>
  db
    .selectFrom('token_project_grants')
    .select(['token_id', 'project_id'])
    .where('workspace_id', '=', workspaceId)
    .execute();

export const findOauthTokenByHash = (db: Kysely<DB>, secretHash: string) =>
  db.selectFrom('oauth_tokens').selectAll().where('secret_hash', '=', secretHash).executeTakeFirst();

export const findOauthTokenById = (db: Kysely<DB>, workspaceId: string, id: string) =>
  db
    .selectFrom('oauth_tokens')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();

/** A user's OAuth tokens; `fileOnly`: without those issued to a connector (src/modules/oauth). */
export const listOauthTokensOfUser = (
  db: Kysely<DB>,
  workspaceId: string,
  userId: string,
  { fileOnly = false }: { fileOnly?: boolean } = {},
) =>
  db
    .selectFrom('oauth_tokens')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .$if(fileOnly, (query) => query.where('grant_id', 'is', null))
    .execute();

export async function insertOauthToken(db: Kysely<DB>, row: OauthTokenRow): Promise<void> {
  await db.insertInto('oauth_tokens').values(row).execute();
  forgetCachedCredentials();
}

export async function updateOauthTokens(db: Kysely<DB>, ids: string[], changes: Partial<OauthTokenRow>): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('oauth_tokens').set(changes).where('id', 'in', ids).execute();
  forgetCachedCredentials();
}

/** Deactivates every active OAuth token of a person; answers how many were active. */
export async function deactivateOauthTokensOfUser(
  db: Kysely<DB>,
  person: { workspaceId: string; userId: string },
  at: string,
): Promise<number> {
  const result = await db
    .updateTable('oauth_tokens')
    .set({ active: 0, updated_at: at })
    .where('workspace_id', '=', person.workspaceId)
    .where('user_id', '=', person.userId)
    .where('active', '=', 1)
    .executeTakeFirst();
  forgetCachedCredentials();
  return Number(result.numUpdatedRows);
}

/** Every OAuth token of the workspace with its user's handle, oldest first. */
export const listOauthTokenRows = (db: Kysely<DB>, workspaceId: string) =>
  db
    .selectFrom('oauth_tokens as o')
    .innerJoin('users as u', 'u.id', 'o.user_id')
    .select([
      'o.id',
      'o.active',
      'o.expires_at',
      'o.access',
      'o.grant_id',
      'o.created_at',
      'u.handle',
      'u.oauth_access',
      'u.oauth_expires_at',
    ])
    .where('o.workspace_id', '=', workspaceId)
    .orderBy('o.created_at')
    .orderBy('o.id')
    .execute();

/** The ceiling a user-level `oauthTokens` entry put on the person's connector tokens. */
export const findUserOauthCeiling = (db: Kysely<DB>, userId: string) =>
  db
    .selectFrom('users')
    .select(['oauth_access', 'oauth_expires_at'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();

export async function updateUserOauthCeiling(
  db: Kysely<DB>,
  userId: string,
  changes: Partial<Pick<UserRow, 'oauth_access' | 'oauth_expires_at'>>,
  now: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ ...changes, updated_at: now })
    .where('id', '=', userId)
    .execute();
  forgetCachedCredentials();
}

export const findUserByHandle = (db: Kysely<DB>, workspaceId: string, handle: string) =>
  db
    .selectFrom('users')
    .select(['id', 'handle'])
    .where('workspace_id', '=', workspaceId)
    .where('handle', '=', handle)
    .executeTakeFirst();

export const findUserById = (db: Kysely<DB>, id: string) =>
  db.selectFrom('users').select(['id', 'handle']).where('id', '=', id).executeTakeFirst();
