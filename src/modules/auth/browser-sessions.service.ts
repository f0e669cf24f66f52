import type { Kysely } from 'kysely';
import { nowIso } from '../../core/clock.js';
import type { DB } from '../../db/schema.js';
import { endSessions, listLiveSessions } from './browser-sessions.repository.js';

/** A browser session as an administrator sees it (`wsx session list`): never its secret or hash. */
export interface SessionSummary {
  /** What `wsx session revoke` takes. */
  sessionId: string;
  /** The person's handle. */
  user: string;
  createdAt: string;
  lastSeenAt: string;
  /** When it ends unless used again: the earlier of its own end and `idleMs` after it was last seen. */
  expiresAt: string;
}

/**
 * The sessions in force in a workspace (of one person when `userId` is given), newest
 * first. `idleMs` is how long a session lasts unused (the pages' rule, src/web/sessions.ts).
 */
export async function listSessions(
  db: Kysely<DB>,
  filter: { workspaceId: string; userId?: string },
  rule: { nowMs: number; idleMs: number },
): Promise<SessionSummary[]> {
  const rows = await listLiveSessions(db, filter, {
    now: nowIso(rule.nowMs),
    idleSince: nowIso(rule.nowMs - rule.idleMs),
  });
  return rows.map((row) => {
    const idleEnd = nowIso(Date.parse(row.last_seen_at) + rule.idleMs);
    return {
      sessionId: row.id,
      user: row.handle,
      createdAt: row.created_at,
      lastSeenAt: row.last_seen_at,
      expiresAt: idleEnd < row.expires_at ? idleEnd : row.expires_at,
    };
  });
}

/** Ends one session of the workspace; false when there is no such session still in force. */
export const endSession = async (db: Kysely<DB>, target: { workspaceId: string; sessionId: string }) =>
  (await endSessions(db, target, nowIso())) > 0;

/** Ends every session of one person in the workspace; answers how many were in force. */
export const endSessionsOfPerson = (db: Kysely<DB>, person: { workspaceId: string; userId: string }) =>
  endSessions(db, person, nowIso());
