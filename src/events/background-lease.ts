import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import type { DB } from '../db/schema.js';
import { isProcessAlive, type Holder } from './holder.js';

/**
 * A named lease in `background_leases`: at most one process holds it at a time, across
 * every process on the database (cluster workers or separate `wsx serve` runs on one
 * SQLite file). The holder renews it well before it ends; another process takes it when
 * it has ended, or at once when its holder ran on this host and its process is gone (a
 * killed cluster worker), as holder.ts does for webhook claims. Every change is a
 * compare-and-set on the holder read, so two contenders never both win.
 */

type Db = Kysely<DB>;

/** Answers whether `self` holds the lease until nowMs + ttlMs. */
export async function takeOrRenewLease(db: Db, name: string, self: Holder, nowMs: number, ttlMs: number) {
  const lease = { holder_id: self.id, holder_host: self.host, holder_pid: self.pid, expires_at: nowIso(nowMs + ttlMs) };
  const inserted = await db
    .insertInto('background_leases')
    .values({ name, ...lease })
    .onConflict((oc) => oc.column('name').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return true;
  const current = await db.selectFrom('background_leases').selectAll().where('name', '=', name).executeTakeFirst();
  if (!current) return false;
  const free =
    current.holder_id === self.id ||
    current.expires_at <= nowIso(nowMs) ||
    (current.holder_host === self.host && !isProcessAlive(current.holder_pid));
  if (!free) return false;
  const updated = await db
    .updateTable('background_leases')
    .set(lease)
    .where('name', '=', name)
    .where('holder_id', '=', current.holder_id)
    .where('expires_at', '=', current.expires_at)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Gives the lease up (a process stopping), so the next one need not wait for it to end. */
export async function releaseLease(db: Db, name: string, self: Holder): Promise<void> {
  await db.deleteFrom('background_leases').where('name', '=', name).where('holder_id', '=', self.id).execute();
}
