import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

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
  const revoked = await db
    .updateTable('oauth_grants')
    .set({ revoked_at: at, updated_at: at })
    .where('workspace_id', '=', person.workspaceId)
    .where('user_id', '=', person.userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  const grantIds = db
    .selectFrom('oauth_grants')
    .select('id')
    .where('workspace_id', '=', person.workspaceId)
    .where('user_id', '=', person.userId);
  const tokens = await db
    .updateTable('oauth_tokens')
    .set({ active: 0, updated_at: at })
    .where('grant_id', 'in', grantIds)
    .where('active', '=', 1)
    .executeTakeFirst();
  await db.deleteFrom('oauth_refresh_tokens').where('grant_id', 'in', grantIds).execute();
  await db.deleteFrom('oauth_codes').where('grant_id', 'in', grantIds).execute();
  return { grants: Number(revoked.numUpdatedRows), tokens: Number(tokens.numUpdatedRows) };
}
