import { sql, type Kysely } from 'kysely';

/**
 * Indexes for the dispatcher's claim, which runs on every tick and must not read a whole
 * backlog to take a few jobs:
 * - `webhook_jobs_queue_idx`: each subscription's waiting jobs in due order, so the claim
 *   takes the oldest few of each subscription by walking that subscription's entries;
 * - `webhook_jobs_requested_idx`: the pings and redeliveries a client asked for, the only jobs
 *   an inactive subscription is sent, found without reading its queued deliveries;
 * - `webhook_jobs_sending_idx`: the jobs being sent, which the claim counts per subscription,
 *   found without reading the retries scheduled for later.
 * Finished jobs (due_at null) are in none of them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_jobs_queue_idx')
    .on('webhook_jobs')
    .columns(['webhook_id', 'due_at', 'id'])
    .where(sql.ref('due_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('webhook_jobs_requested_idx')
    .on('webhook_jobs')
    .columns(['due_at', 'id'])
    .where(sql.ref('requested'), '=', 1)
    .where(sql.ref('due_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('webhook_jobs_sending_idx')
    .on('webhook_jobs')
    .columns(['webhook_id', 'due_at'])
    .where(sql.ref('state'), '=', 'sending')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of ['webhook_jobs_sending_idx', 'webhook_jobs_requested_idx', 'webhook_jobs_queue_idx'])
    await db.schema.dropIndex(name).ifExists().execute();
}
