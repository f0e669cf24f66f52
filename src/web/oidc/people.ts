import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { emailKey } from '../../modules/users/index.js';
import type { Person } from '../login-links.js';

/** A user whose email is the one the provider verified, with the workspace it belongs to. */
export interface MatchedPerson extends Person {
  workspaceSlug: string;
  workspaceName: string;
  /** False when the workspace file deactivated the user: they cannot sign in. */
  active: boolean;
}

/** More than any one person has users in; a longer list is cut, and the chooser shows what fits. */
const MAX_MATCHES = 50;

/**
 * The users, in every workspace, whose email equals `email` but for the case of ASCII
 * letters (people and providers spell `Alice@Acme.test` and `alice@acme.test` alike). The
 * fold is emailKey's alone: the stored key is compared exactly, so SQL never folds a
 * character of its own, and `K` (KELVIN SIGN), which JavaScript's toLowerCase() folds to
 * `k`, matches nobody else's address.
 * Users belong to workspaces, so one person may be several users; the caller decides among them.
 */
export async function usersWithEmail(db: Kysely<DB>, email: string): Promise<MatchedPerson[]> {
  const rows = await db
    .selectFrom('users as u')
    .innerJoin('workspaces as w', 'w.id', 'u.workspace_id')
    .select(['u.id as user_id', 'u.workspace_id', 'u.deactivated_at', 'w.slug', 'w.name'])
    .where('u.email_key', '=', emailKey(email))
    .orderBy('w.slug')
    .limit(MAX_MATCHES)
    .execute();
  return rows.map((row) => ({
    workspaceId: row.workspace_id,
    userId: row.user_id,
    workspaceSlug: row.slug,
    workspaceName: row.name,
    active: row.deactivated_at === null,
  }));
}
