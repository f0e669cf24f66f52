import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { deletedRows } from '../db/delete-batches.js';
import type { DB } from '../db/schema.js';
import { hashSecret } from '../modules/auth/index.js';
import { BROWSER_SECRET_RE, newBrowserSecret } from './browser-secret.js';

/** A sign-in link works once, within 10 minutes of being made. */
export const LOGIN_LINK_TTL_MS = 10 * 60_000;
/** Used and expired links are kept a day, so a late click still reads "expired", not "unknown". */
const KEEP_SPENT_MS = 24 * 60 * 60_000;

export interface Person {
  workspaceId: string;
  userId: string;
}

/** A new one-time link secret for `person`; answers the secret (shown once) and its expiry. */
export async function createLoginLink(db: Kysely<DB>, person: Person, now = Date.now()) {
  const secret = newBrowserSecret();
  const expiresAt = nowIso(now + LOGIN_LINK_TTL_MS);
  await db
    .insertInto('login_links')
    .values({
      id: newId('lgn', now),
      workspace_id: person.workspaceId,
      user_id: person.userId,
      secret_hash: hashSecret(secret),
      created_at: nowIso(now),
      expires_at: expiresAt,
      used_at: null,
    })
    .execute();
  return { secret, expiresAt };
}

export type LoginLinkUse = ({ ok: true } & Person) | { ok: false; reason: 'unknown' | 'used' | 'expired' };

/**
 * Spends a link: answers its person once, and why not on every other try. The conditional
 * update is what spends it, so two browsers racing with one link cannot both sign in.
 */
export async function useLoginLink(db: Kysely<DB>, secret: string, now = Date.now()): Promise<LoginLinkUse> {
  if (!BROWSER_SECRET_RE.test(secret)) return { ok: false, reason: 'unknown' };
  const row = await db
    .selectFrom('login_links')
    .select(['id', 'workspace_id', 'user_id', 'expires_at', 'used_at'])
    .where('secret_hash', '=', hashSecret(secret))
    .executeTakeFirst();
  if (!row) return { ok: false, reason: 'unknown' };
  if (row.used_at !== null) return { ok: false, reason: 'used' };
  const at = nowIso(now);
  if (row.expires_at <= at) return { ok: false, reason: 'expired' };
  const spent = await db
    .updateTable('login_links')
    .set({ used_at: at })
    .where('id', '=', row.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) !== 1) return { ok: false, reason: 'used' };
  return { ok: true, workspaceId: row.workspace_id, userId: row.user_id };
}

/** Links expired more than KEEP_SPENT_MS ago, deleted by the background workers, at most `limit` per call. */
export async function pruneSpentLoginLinks(db: Kysely<DB>, nowMs: number, limit: number): Promise<number> {
  const batch = db
    .selectFrom('login_links')
    .select('id')
    .where('expires_at', '<', nowIso(nowMs - KEEP_SPENT_MS))
    .limit(limit);
  return deletedRows(await db.deleteFrom('login_links').where('id', 'in', batch).executeTakeFirst());
}
