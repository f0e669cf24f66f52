import type { Kysely, SelectQueryBuilder, UpdateQueryBuilder, UpdateResult } from 'kysely';
import { nowIso } from '../../core/clock.js';
import type { DB } from '../../db/schema.js';
import { forgetCachedCredentials } from './credential-cache.js';

/**
 * Ending OAuth grants (a connector's approval) with everything issued under them. Here, with
 * the credentials, because ending credentials is what it does: tokens and person-access end
 * grants, and the OAuth server (modules/oauth/) revokes through it.
 */

/** An update of oauth_grants, as Grants.rows narrows it. */
type GrantsUpdate = UpdateQueryBuilder<DB, 'oauth_grants', 'oauth_grants', UpdateResult>;

/**
 * The grants endGrants ends. `rows` narrows the update of oauth_grants to them (endGrants adds
 * "not revoked yet"); `issuedUnder` is how what was issued under them is found by its
 * grant_id: equal to one grant's id, or in a subquery of grant ids.
 */
interface Grants {
  rows: (update: GrantsUpdate) => GrantsUpdate;
  issuedUnder: readonly ['=', string] | readonly ['in', SelectQueryBuilder<DB, 'oauth_grants', { id: string }>];
}

/**
 * The four statements that end grants, run on `db` (a transaction, so that they end together):
 * marks those in force revoked, deactivates their access tokens and deletes their refresh
 * tokens and codes. Answers how many grants were in force and how many of their access tokens
 * were active.
 */
async function endGrants(db: Kysely<DB>, grants: Grants, at: string): Promise<{ grants: number; tokens: number }> {
  const [operator, grantIds] = grants.issuedUnder;
  const revoked = await db
    .updateTable('oauth_grants')
    .set({ revoked_at: at, updated_at: at })
    .$call(grants.rows)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  const tokens = await db
    .updateTable('oauth_tokens')
    .set({ active: 0, updated_at: at })
    .where('grant_id', operator, grantIds)
    .where('active', '=', 1)
    .executeTakeFirst();
  await db.deleteFrom('oauth_refresh_tokens').where('grant_id', operator, grantIds).execute();
  await db.deleteFrom('oauth_codes').where('grant_id', operator, grantIds).execute();
  return { grants: Number(revoked.numUpdatedRows), tokens: Number(tokens.numUpdatedRows) };
}

/**
 * Ends a grant: marks it revoked, deactivates its access tokens and deletes its codes and
 * refresh tokens, in one transaction. The credential caches of this process are emptied
 * after the commit, so no request here can be answered from a cache filled before it (other
 * processes see it within CREDENTIAL_TTL_MS). Answers whether the grant was in force.
 */
export async function revokeGrantById(db: Kysely<DB>, grantId: string, now = Date.now()): Promise<boolean> {
  const at = nowIso(now);
  const ended = await db
    .transaction()
    .execute((trx) =>
      endGrants(trx, { rows: (update) => update.where('id', '=', grantId), issuedUnder: ['=', grantId] }, at),
    );
  forgetCachedCredentials();
  return ended.grants > 0;
}

/**
 * Ends every grant in force of one person in one workspace, as revokeGrantById does for one:
 * marks them revoked, deactivates their access tokens and deletes their codes and refresh
 * tokens, so no connector of the person can refresh into a new token. Runs in the caller's
 * transaction (deactivating a person is one step of a workspace-file apply); the caller
 * empties the credential caches once it has committed. Taking the grants' rows first, as
 * every token issue does (useLiveGrant), means an issue racing with this either commits
 * first and has its token deactivated here, or waits and finds the grant revoked.
 * Answers how many grants were in force and how many of their access tokens were active.
 */
export async function revokeGrantsOfPerson(
  db: Kysely<DB>,
  person: { workspaceId: string; userId: string },
  at: string,
): Promise<{ grants: number; tokens: number }> {
  const grantIds = db
    .selectFrom('oauth_grants')
    .select('id')
    .where('workspace_id', '=', person.workspaceId)
    .where('user_id', '=', person.userId);
  return endGrants(
    db,
    {
      rows: (update) => update.where('workspace_id', '=', person.workspaceId).where('user_id', '=', person.userId),
      issuedUnder: ['in', grantIds],
    },
    at,
  );
}
