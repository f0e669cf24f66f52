import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Person } from '../login-links.js';

/** A user whose email is the one the provider verified, with the workspace it belongs to. */
export interface MatchedPerson extends Person {
  workspaceSlug: string;
  workspaceName: string;
}

/** More than any one person has users in; a longer list is cut, and the chooser shows what fits. */
const MAX_MATCHES = 50;

/**
 * The users, in every workspace, whose email equals `email` ignoring case (people and
 * providers spell the same address differently). Users belong to workspaces, so one person
 * may be several users; the caller decides among them.
 */
export async function usersWithEmail(db: Kysely<DB>, email: string): Promise<MatchedPerson[]> {
  const rows = await db
    .selectFrom('users as u')
    .innerJoin('workspaces as w', 'w.id', 'u.workspace_id')
    .select(['u.id as user_id', 'u.workspace_id', 'w.slug', 'w.name'])
    .where(sql<string>`lower(${sql.ref('u.email')})`, '=', email.toLowerCase())
    .orderBy('w.slug')
    .limit(MAX_MATCHES)
    .execute();
  return rows.map((row) => ({
    workspaceId: row.workspace_id,
    userId: row.user_id,
    workspaceSlug: row.slug,
    workspaceName: row.name,
  }));
}
