import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * Browser sessions as administrators see them (`wsx session`, and ending a person's access):
 * listed without their secret's hash, ended by id or by person. Opening and reading a
 * session is the browser pages' own (src/web/sessions.ts).
 */

/** The sessions of a workspace (of one person when `userId` is given) still in force at `now`, newest first. */
export const listLiveSessions = (
  db: Kysely<DB>,
  filter: { workspaceId: string; userId?: string },
  at: { now: string; idleSince: string },
) =>
  db
    .selectFrom('browser_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id', 's.user_id', 'u.handle', 's.created_at', 's.last_seen_at', 's.expires_at'])
    .where('s.workspace_id', '=', filter.workspaceId)
    .$if(filter.userId !== undefined, (query) => query.where('s.user_id', '=', filter.userId!))
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', at.now)
    .where('s.last_seen_at', '>', at.idleSince)
    .orderBy('s.created_at', 'desc')
    .orderBy('s.id', 'desc')
    .execute();

/**
 * Ends the sessions of a workspace that are not ended yet: one by id, or every one of a
 * person. Their cookies open nothing from the next request on (sessions are read from the
 * table on every page, never cached). Answers how many were ended.
 */
export async function endSessions(
  db: Kysely<DB>,
  target: { workspaceId: string } & ({ sessionId: string; userId?: string } | { sessionId?: string; userId: string }),
  at: string,
): Promise<number> {
  // Neither named would end every session of the workspace: never what a caller means.
  if (target.sessionId === undefined && target.userId === undefined)
    throw new Error('endSessions: name a session or a person');
  const result = await db
    .updateTable('browser_sessions')
    .set({ revoked_at: at })
    .where('workspace_id', '=', target.workspaceId)
    .$if(target.sessionId !== undefined, (query) => query.where('id', '=', target.sessionId!))
    .$if(target.userId !== undefined, (query) => query.where('user_id', '=', target.userId!))
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
