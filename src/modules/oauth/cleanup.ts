import type { Kysely } from 'kysely';
import { nowIso } from '../../core/clock.js';
import { deletedRows } from '../../db/delete-batches.js';
import type { DB } from '../../db/schema.js';

/**
 * What the background workers prune of the authorization server's tables
 * (server/housekeeping.ts), a batch of at most `limit` rows per call. No client's request
 * deletes anything on the way: a registration, an authorization or an approval only writes
 * its own rows, so nothing here can make one fail.
 */

/** A registration that led to no approval within this time is deleted (the client registers again if it comes back). */
export const UNUSED_CLIENT_TTL_MS = 24 * 60 * 60_000;

/** Authorization requests past their ten minutes: nobody can answer them any more. */
export async function pruneExpiredAuthorizationRequests(db: Kysely<DB>, nowMs: number, limit: number) {
  const batch = db
    .selectFrom('oauth_authorization_requests')
    .select('id')
    .where('expires_at', '<=', nowIso(nowMs))
    .limit(limit);
  return deletedRows(await db.deleteFrom('oauth_authorization_requests').where('id', 'in', batch).executeTakeFirst());
}

/** Authorization codes past their minute, used or not. */
export async function pruneExpiredCodes(db: Kysely<DB>, nowMs: number, limit: number) {
  const batch = db
    .selectFrom('oauth_codes')
    .select('secret_hash')
    .where('expires_at', '<=', nowIso(nowMs))
    .limit(limit);
  return deletedRows(await db.deleteFrom('oauth_codes').where('secret_hash', 'in', batch).executeTakeFirst());
}

/**
 * Clients nobody uses: registered more than UNUSED_CLIENT_TTL_MS ago (for a client known by
 * its metadata document: its document last fetched that long ago), under which nobody ever
 * approved anything, and with no authorization request still waiting (a person may be on the
 * consent page). Their expired requests go with them (the reference is `cascade`). A client
 * with a grant is never taken: should an approval land while this runs, the store refuses the
 * delete (`oauth_grants.client_id` is `restrict`), the job logs it, and the next run goes on.
 */
export async function pruneUnusedClients(db: Kysely<DB>, nowMs: number, limit: number) {
  const batch = db
    .selectFrom('oauth_clients as c')
    .select('c.id')
    .where('c.created_at', '<', nowIso(nowMs - UNUSED_CLIENT_TTL_MS))
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('oauth_grants as g').select('g.id').whereRef('g.client_id', '=', 'c.id'))),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('oauth_authorization_requests as r')
            .select('r.id')
            .whereRef('r.client_id', '=', 'c.id')
            .where('r.expires_at', '>', nowIso(nowMs)),
        ),
      ),
    )
    .limit(limit);
  return deletedRows(await db.deleteFrom('oauth_clients').where('id', 'in', batch).executeTakeFirst());
}
