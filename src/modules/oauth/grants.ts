import type { Kysely } from 'kysely';
import { nowIso } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DB } from '../../db/schema.js';
import type { OauthGrantRow } from '../../db/tables/oauth.js';
import { revokeGrantById } from '../auth/index.js';
import { shownClientName } from './client-name.js';
import { storedScopes, type Scope } from './scopes.js';

/**
 * Grants: one person's approval of one client in one workspace. Every code, refresh token
 * and access token is issued under one, and revoking it ends them all.
 */

export interface GrantSummary {
  grantId: string;
  clientId: string;
  /** The name the client registered, or its id when it gave none. */
  clientName: string;
  userId: string;
  scopes: Scope[];
  createdAt: string;
  /** The last time the client was issued tokens under the grant; null before the first. */
  lastUsedAt: string | null;
}

/** The workspace's grants in force (of one person when `userId` is given), newest first. */
export async function listGrants(
  db: Kysely<DB>,
  filter: { workspaceId: string; userId?: string },
): Promise<GrantSummary[]> {
  let query = db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .select(['g.id', 'g.client_id', 'c.client_name', 'g.user_id', 'g.scopes', 'g.created_at', 'g.last_used_at'])
    .where('g.workspace_id', '=', filter.workspaceId)
    .where('g.revoked_at', 'is', null);
  if (filter.userId !== undefined) query = query.where('g.user_id', '=', filter.userId);
  const rows = await query.orderBy('g.created_at', 'desc').orderBy('g.id', 'desc').execute();
  return rows.map((row) => ({
    grantId: row.id,
    clientId: row.client_id,
    clientName: shownClientName(row.client_name) ?? row.client_id,
    userId: row.user_id,
    scopes: storedScopes(row.scopes),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  }));
}

/**
 * Revokes a grant in force of the workspace (only one of `userId`'s when given) with
 * everything issued under it. Answers whether there was such a grant.
 */
export async function revokeGrant(
  db: Kysely<DB>,
  target: { workspaceId: string; grantId: string; userId?: string },
): Promise<boolean> {
  let query = db
    .selectFrom('oauth_grants')
    .select('id')
    .where('id', '=', target.grantId)
    .where('workspace_id', '=', target.workspaceId)
    .where('revoked_at', 'is', null);
  if (target.userId !== undefined) query = query.where('user_id', '=', target.userId);
  if (!(await query.executeTakeFirst())) return false;
  return revokeGrantById(db, target.grantId);
}

/**
 * The grant, marked used, while it is in force; undefined when it is unknown or revoked.
 * Called in the transaction that issues tokens, before anything else is written: the update
 * holds the grant's row until the commit, so a revocation committing meanwhile either comes
 * first (and this answers undefined) or waits and then deactivates the new tokens too. Every
 * writer takes the grant's row first, so the two cannot deadlock.
 */
export async function useLiveGrant(db: Kysely<DB>, grantId: string, now: number): Promise<OauthGrantRow | undefined> {
  const result = await db
    .updateTable('oauth_grants')
    .set({ last_used_at: nowIso(now) })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  return db.selectFrom('oauth_grants').selectAll().where('id', '=', grantId).executeTakeFirst();
}

/**
 * The grant an approval lands in: the person's grant in force for this client in this
 * workspace, brought to the scopes and resource just approved, or a new one. So one client
 * shows once on the connectors page however often the person approves it.
 */
export async function grantForApproval(
  db: Kysely<DB>,
  approval: { workspaceId: string; userId: string; clientId: string; scopes: Scope[]; resource: string | null },
  now: number,
): Promise<string> {
  const at = nowIso(now);
  const scopes = approval.scopes.join(' ');
  const existing = await db
    .selectFrom('oauth_grants')
    .select('id')
    .where('workspace_id', '=', approval.workspaceId)
    .where('user_id', '=', approval.userId)
    .where('client_id', '=', approval.clientId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (existing) {
    await db
      .updateTable('oauth_grants')
      .set({ scopes, resource: approval.resource, updated_at: at })
      .where('id', '=', existing.id)
      .execute();
    return existing.id;
  }
  const id = newId('ogr', now);
  await db
    .insertInto('oauth_grants')
    .values({
      id,
      workspace_id: approval.workspaceId,
      user_id: approval.userId,
      client_id: approval.clientId,
      scopes,
      resource: approval.resource,
      created_at: at,
      updated_at: at,
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return id;
}
