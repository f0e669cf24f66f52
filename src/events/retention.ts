import { nowIso } from '../core/clock.js';
import type { Database } from '../db/database.js';
import { DELETE_BATCH_SIZE, inBatches } from '../db/delete-batches.js';
import {
  deleteDeliveriesThrough,
  deleteOldDeliveries,
  deleteOldEvents,
  deleteOldJobs,
  findFirstBeyond,
  listWebhookIds,
} from './retention.repository.js';

/**
 * Bounded growth of the webhook history. Outbox events, delivery jobs and delivery records
 * would otherwise grow forever. The background workers prune what is older than the
 * retention (WSX_RETENTION_DAYS, default 30): finished delivery records and jobs, and
 * events that were fanned out and that no unfinished job still needs (which makes it the
 * change feed's retention too: docs/change-feed.md). And whatever the age, a
 * subscription keeps only its newest KEEP_PER_SUBSCRIPTION delivery records.
 * Deletes run in small batches with a pause between them (db/delete-batches.ts).
 */

const DAY_MS = 86_400_000;
export const KEEP_PER_SUBSCRIPTION = 1000;

export interface PruneOptions {
  nowMs: number;
  retentionDays: number;
  keepPerSubscription?: number;
  batchSize?: number;
  /** Stops between batches (a server shutting down); the next run goes on where this one stopped. */
  signal?: AbortSignal;
}

export interface PruneCounts {
  outboxEvents: number;
  jobs: number;
  deliveries: number;
}

async function trimLogs(
  database: Database,
  keep: number,
  batchSize: number,
  signal: AbortSignal | undefined,
): Promise<number> {
  let total = 0;
  let after = '';
  while (!signal?.aborted) {
    const ids = await listWebhookIds(database.db, after, batchSize);
    for (const webhookId of ids) {
      const edge = await findFirstBeyond(database.db, webhookId, keep);
      if (edge)
        total += await inBatches(batchSize, signal, () =>
          deleteDeliveriesThrough(database.db, webhookId, edge, batchSize),
        );
    }
    if (ids.length < batchSize) break;
    after = ids[ids.length - 1];
  }
  return total;
}

export async function pruneWebhookHistory(database: Database, options: PruneOptions): Promise<PruneCounts> {
  const { signal } = options;
  const batchSize = options.batchSize ?? DELETE_BATCH_SIZE;
  const cutoff = nowIso(options.nowMs - options.retentionDays * DAY_MS);
  const { db } = database;
  const deliveries =
    (await inBatches(batchSize, signal, () => deleteOldDeliveries(db, cutoff, batchSize))) +
    (await trimLogs(database, options.keepPerSubscription ?? KEEP_PER_SUBSCRIPTION, batchSize, signal));
  const jobs = await inBatches(batchSize, signal, () => deleteOldJobs(db, cutoff, batchSize));
  const outboxEvents = await inBatches(batchSize, signal, () => deleteOldEvents(db, cutoff, batchSize));
  return { outboxEvents, jobs, deliveries };
}
