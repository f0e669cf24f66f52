import type { Kysely } from 'kysely';
import { isExpired } from '../../core/credential-expiry.js';
import type { DB } from '../../db/schema.js';
import type { OauthGrantRow } from '../../db/tables/oauth.js';
import { userStanding, type UserStanding } from '../users/index.js';

/**
 * The standing of a grant's person when tokens may still be issued for them: they are
 * active, and the ceiling the workspace file keeps on their connectors (`expiresAt`) has not
 * come. Undefined otherwise, and the exchange is refused: a refresh after a deactivation or
 * past the person's expiry mints nothing, whatever the grant's own state.
 */
export async function issuableStanding(
  db: Kysely<DB>,
  grant: Pick<OauthGrantRow, 'workspace_id' | 'user_id'>,
  now: number,
): Promise<UserStanding | undefined> {
  const standing = await userStanding(db, { workspaceId: grant.workspace_id, userId: grant.user_id });
  if (!standing?.active || isExpired(standing.oauthExpiresAt, now)) return undefined;
  return standing;
}
