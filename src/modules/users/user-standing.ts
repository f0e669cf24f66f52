import type { Kysely } from 'kysely';
import type { AccessLevel } from '../../core/access-level.js';
import type { DB } from '../../db/schema.js';
import { findStandingRow } from './standing.repository.js';

/**
 * A person's standing, as the workspace file sets it: whether they are active (a
 * deactivated person cannot sign in, approve a connector or act through an OAuth token), and
 * the ceiling on the tokens connectors are issued for them (a user-level `oauthTokens`
 * entry's `access: read` or `expiresAt`).
 */
export interface UserStanding {
  active: boolean;
  /** `read`: connector tokens may only read, whatever scopes were granted; null: no ceiling. */
  oauthAccess: AccessLevel | null;
  /** Connector tokens stop at this instant at the latest; null: no ceiling. */
  oauthExpiresAt: string | null;
}

export interface PersonRef {
  workspaceId: string;
  userId: string;
}

/** The person's standing, or undefined when they are not a user of that workspace. */
export async function userStanding(db: Kysely<DB>, person: PersonRef): Promise<UserStanding | undefined> {
  const row = await findStandingRow(db, person);
  return row && standingOf(row);
}

const standingOf = (row: {
  deactivated_at: string | null;
  oauth_access: AccessLevel | null;
  oauth_expires_at: string | null;
}): UserStanding => ({
  active: row.deactivated_at === null,
  oauthAccess: row.oauth_access,
  oauthExpiresAt: row.oauth_expires_at,
});

/** Whether the person is a user of the workspace and not deactivated. */
export const isActivePerson = async (db: Kysely<DB>, person: PersonRef): Promise<boolean> =>
  (await userStanding(db, person))?.active === true;

/** The earlier of two expiries (null: never). */
function earlierExpiry(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(b) < Date.parse(a) ? b : a;
}

/**
 * A connector token's access level and expiry under the person's ceiling: the lower level
 * and the earlier end of the two, so a ceiling only ever takes away (it never gives write to
 * a read token, nor lengthens one).
 */
export const underCeiling = (
  token: { access: AccessLevel; expiresAt: string | null },
  standing: Pick<UserStanding, 'oauthAccess' | 'oauthExpiresAt'>,
): { access: AccessLevel; expiresAt: string | null } => ({
  access: standing.oauthAccess === 'read' ? 'read' : token.access,
  expiresAt: earlierExpiry(token.expiresAt, standing.oauthExpiresAt),
});
