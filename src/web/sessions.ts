import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { deletedRows } from '../db/delete-batches.js';
import type { DB } from '../db/schema.js';
import { hashSecret } from '../modules/auth/index.js';
import { BROWSER_SECRET_RE, newBrowserSecret } from './browser-secret.js';
import { csrfTokenFor } from './csrf.js';
import type { Person } from './login-links.js';

/**
 * A browser session lasts at most 7 days from sign-in, and ends sooner after 12 hours
 * without a request: long enough for a working day of connecting tools, short enough that a
 * forgotten browser does not stay signed in. Signing in again is one more `wsx login-link`.
 */
export const SESSION_MAX_MS = 7 * 24 * 60 * 60_000;
export const SESSION_IDLE_MS = 12 * 60 * 60_000;
/** `last_seen_at` is written at most this often, so reading pages does not write on every request. */
const TOUCH_EVERY_MS = 5 * 60_000;

/** The signed-in person of a request, with what the pages show of them. */
export interface BrowserSession extends Person {
  id: string;
  workspaceSlug: string;
  workspaceName: string;
  userHandle: string;
  userName: string;
  /** Posted back by every form of the session (see csrf.ts). */
  csrfToken: string;
  /** The cookie's secret, for checking that token. */
  secret: string;
}

/** A new session for `person`; answers the cookie secret and how long the cookie may live. */
export async function openSession(db: Kysely<DB>, person: Person, now = Date.now()) {
  const secret = newBrowserSecret();
  const at = nowIso(now);
  await db
    .insertInto('browser_sessions')
    .values({
      id: newId('ses', now),
      workspace_id: person.workspaceId,
      user_id: person.userId,
      secret_hash: hashSecret(secret),
      created_at: at,
      last_seen_at: at,
      expires_at: nowIso(now + SESSION_MAX_MS),
      revoked_at: null,
    })
    .execute();
  return { secret, maxAgeSeconds: SESSION_MAX_MS / 1000 };
}

/**
 * The live session named by a cookie secret, or undefined (unknown, signed out or ended by an
 * administrator, idle too long, over, or its person deactivated).
 */
export async function readSession(
  db: Kysely<DB>,
  secret: string | undefined,
  now = Date.now(),
): Promise<BrowserSession | undefined> {
  if (secret === undefined || !BROWSER_SECRET_RE.test(secret)) return undefined;
  const at = nowIso(now);
  const row = await db
    .selectFrom('browser_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
    .select([
      's.id',
      's.workspace_id',
      's.user_id',
      's.last_seen_at',
      'w.slug',
      'w.name as workspace_name',
      'u.handle',
      'u.name as user_name',
    ])
    .where('s.secret_hash', '=', hashSecret(secret))
    .where('s.revoked_at', 'is', null)
    // Deactivating a person ends their sessions; this holds even for one a race left open.
    .where('u.deactivated_at', 'is', null)
    .where('s.expires_at', '>', at)
    .where('s.last_seen_at', '>', nowIso(now - SESSION_IDLE_MS))
    .executeTakeFirst();
  if (!row) return undefined;
  if (Date.parse(row.last_seen_at) <= now - TOUCH_EVERY_MS)
    await db.updateTable('browser_sessions').set({ last_seen_at: at }).where('id', '=', row.id).execute();
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    userId: row.user_id,
    workspaceSlug: row.slug,
    workspaceName: row.workspace_name,
    userHandle: row.handle,
    userName: row.user_name,
    csrfToken: csrfTokenFor(secret),
    secret,
  };
}

/** Signs a session out; its cookie opens nothing from now on. */
export async function endSession(db: Kysely<DB>, sessionId: string, now = Date.now()): Promise<void> {
  await db
    .updateTable('browser_sessions')
    .set({ revoked_at: nowIso(now) })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * Sessions that ended (past their end, idle for SESSION_IDLE_MS, or signed out) are of no
 * use to anyone: the background workers delete them, at most `limit` per call.
 */
export async function pruneEndedSessions(db: Kysely<DB>, nowMs: number, limit: number): Promise<number> {
  const batch = db
    .selectFrom('browser_sessions')
    .select('id')
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', nowIso(nowMs)),
        eb('last_seen_at', '<=', nowIso(nowMs - SESSION_IDLE_MS)),
        eb('revoked_at', 'is not', null),
      ]),
    )
    .limit(limit);
  return deletedRows(await db.deleteFrom('browser_sessions').where('id', 'in', batch).executeTakeFirst());
}
