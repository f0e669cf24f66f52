import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { revokeGrantsOfPerson } from './grant-revocation.js';
import { endSessions } from './browser-sessions.repository.js';
import { deactivateOauthTokensOfUser } from './tokens.repository.js';

export interface EndedAccess {
  /** OAuth access tokens that were active (the workspace file's and connectors'). */
  tokens: number;
  /** Connectors (grants) that were in force; their refresh tokens are gone with them. */
  grants: number;
  /** Browser sessions that were open. */
  sessions: number;
}

/**
 * Ends everything a person holds in a workspace: every OAuth access token, every connector
 * grant (so no refresh token mints another), and every browser session (so no session
 * already open approves a new connector). Used when the person is deactivated and when
 * their OAuth tokens are revoked as a whole (`wsx token revoke --oauth-user`, a user-level
 * `oauthTokens` entry with `active: false`). Runs in the caller's transaction; the caller
 * empties the credential caches (forgetCachedCredentials) after it commits, so no request
 * of this process is answered from a cache filled before the commit.
 */
export async function endPersonAccess(
  db: Kysely<DB>,
  person: { workspaceId: string; userId: string },
  at: string,
): Promise<EndedAccess> {
  // Grants first: the order every token issue takes its rows in (see revokeGrantsOfPerson).
  const connectors = await revokeGrantsOfPerson(db, person, at);
  const fileTokens = await deactivateOauthTokensOfUser(db, person, at);
  const sessions = await endSessions(db, person, at);
  return { tokens: connectors.tokens + fileTokens, grants: connectors.grants, sessions };
}
