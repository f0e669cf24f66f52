import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ServerInstanceRow } from '../../db/tables/reliability.js';

/** Registers the instance, or renews its heartbeat (a row removed as stale comes back). */
export async function upsertInstance(db: Kysely<DB>, row: ServerInstanceRow): Promise<void> {
  await db
    .insertInto('server_instances')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: row.heartbeat_at }))
    .execute();
}

export const findInstance = (db: Kysely<DB>, id: string) =>
  db.selectFrom('server_instances').selectAll().where('id', '=', id).executeTakeFirst();

export const listInstances = (db: Kysely<DB>) => db.selectFrom('server_instances').selectAll().execute();

export async function deleteInstance(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('server_instances').where('id', '=', id).execute();
}

/** Deletes a gone instance, only if it did not heartbeat since it was judged gone. */
export async function deleteGoneInstance(db: Kysely<DB>, row: ServerInstanceRow): Promise<boolean> {
  const result = await db
    .deleteFrom('server_instances')
    .where('id', '=', row.id)
    .where('heartbeat_at', '=', row.heartbeat_at)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Releases every running claim of a holder. */
export async function releaseClaimsOf(db: Kysely<DB>, holder: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('state', '=', 'running').where('holder', '=', holder).execute();
}

/** Releases running claims whose holder is no longer registered (its row was reaped). */
export async function releaseOrphanClaims(db: Kysely<DB>): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('state', '=', 'running')
    .where('holder', 'is not', null)
    .where('holder', 'not in', db.selectFrom('server_instances').select('id'))
    .execute();
}
