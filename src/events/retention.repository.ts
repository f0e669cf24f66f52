import type { Kysely } from 'kysely';
import { deletedRows } from '../db/delete-batches.js';
import type { DB } from '../db/schema.js';
import { recordPruned } from './event-log.js';

/**
 * The pruning SQL: each statement deletes at most `limit` rows chosen through an index, so
 * it holds the write lock briefly; callers repeat it until a batch comes back short.
 */

type Db = Kysely<DB>;

/** Finished attempts (not `pending`) recorded before `cutoff`. */
export async function deleteOldDeliveries(db: Db, cutoff: string, limit: number): Promise<number> {
  const batch = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('created_at', '<', cutoff)
    .where('status', '!=', 'pending')
    .limit(limit);
  return deletedRows(await db.deleteFrom('webhook_deliveries').where('id', 'in', batch).executeTakeFirst());
}

/** Finished jobs (no next attempt, `due_at` null) that finished before `cutoff`. */
export async function deleteOldJobs(db: Db, cutoff: string, limit: number): Promise<number> {
  const batch = db
    .selectFrom('webhook_jobs')
    .select('id')
    .where('due_at', 'is', null)
    .where('updated_at', '<', cutoff)
    .limit(limit);
  return deletedRows(await db.deleteFrom('webhook_jobs').where('id', 'in', batch).executeTakeFirst());
}

/**
 * Events fanned out before `cutoff` that no unfinished job still needs (a paused
 * subscription's queue keeps its events). The positions deleted are recorded in the same
 * transaction (events/event-log.ts), so no reader sees an event gone without its mark.
 */
export async function deleteOldEvents(db: Db, cutoff: string, limit: number): Promise<number> {
  const batch = db
    .selectFrom('outbox_events as e')
    .select('e.id')
    .where('e.dispatched_at', 'is not', null)
    .where('e.dispatched_at', '<', cutoff)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_jobs as j')
            .select('j.id')
            .whereRef('j.event_id', '=', 'e.id')
            .where('j.due_at', 'is not', null),
        ),
      ),
    )
    .limit(limit);
  return db.transaction().execute(async (trx) => {
    const gone = await trx
      .deleteFrom('outbox_events')
      .where('id', 'in', batch)
      .returning(['workspace_id', 'project_id', 'seq'])
      .execute();
    await recordPruned(trx, gone);
    return gone.length;
  });
}

/** Subscription ids after `afterId`, in id order (every workspace's). */
export async function listWebhookIds(db: Db, afterId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('webhooks')
    .select('id')
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** The newest delivery record of a subscription past its newest `keep`, or undefined when it has no more than `keep`. */
export function findFirstBeyond(db: Db, webhookId: string, keep: number) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['created_at', 'id'])
    .where('webhook_id', '=', webhookId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .offset(keep)
    .executeTakeFirst();
}

/** A subscription's delivery records at or before `edge` in the log's order (newest first). */
export async function deleteDeliveriesThrough(
  db: Db,
  webhookId: string,
  edge: { created_at: string; id: string },
  limit: number,
): Promise<number> {
  const batch = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('webhook_id', '=', webhookId)
    .where((eb) =>
      eb.or([
        eb('created_at', '<', edge.created_at),
        eb.and([eb('created_at', '=', edge.created_at), eb('id', '<=', edge.id)]),
      ]),
    )
    .limit(limit);
  return deletedRows(await db.deleteFrom('webhook_deliveries').where('id', 'in', batch).executeTakeFirst());
}
