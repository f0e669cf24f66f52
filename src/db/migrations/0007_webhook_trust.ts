import { sql, type Kysely } from 'kysely';

/**
 * Webhook trust and delivery fairness:
 * - `webhooks.url_set_by_token_id`: the token that set the receiver URL now in effect (null
 *   when a human or the workspace file set it), so delivery can refuse a URL whose setter
 *   may no longer manage the subscription. Existing rows were set by their creator.
 * - `outbox_events.audience`: which parts of an event depend on projects other than its
 *   own (a link to an issue elsewhere), so each subscriber gets the payload its creator may see.
 * - `webhook_jobs.body`: that subscriber's payload when it differs from the outbox payload.
 * - `webhook_jobs.holder_*`: which process holds a job's lease, so a restarted process can
 *   take over the claims of the process it replaces at once.
 * - Indexes that let the background workers prune finished history in small batches.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('url_set_by_token_id', 'text').execute();
  // Data changes in a migration are written as SQL: the migration must not depend on the
  // table types of the current code.
  await sql`update webhooks set url_set_by_token_id = creator_token_id`.execute(db);

  await db.schema.alterTable('outbox_events').addColumn('audience', 'text').execute();

  await db.schema.alterTable('webhook_jobs').addColumn('body', 'text').execute();
  await db.schema.alterTable('webhook_jobs').addColumn('holder_id', 'text').execute();
  await db.schema.alterTable('webhook_jobs').addColumn('holder_host', 'text').execute();
  await db.schema.alterTable('webhook_jobs').addColumn('holder_pid', 'integer').execute();

  await db.schema.createIndex('webhook_jobs_event_idx').on('webhook_jobs').columns(['event_id']).execute();
  await db.schema
    .createIndex('webhook_jobs_finished_idx')
    .on('webhook_jobs')
    .columns(['updated_at'])
    .where(sql.ref('due_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_created_idx')
    .on('webhook_deliveries')
    .columns(['created_at'])
    .execute();
  await db.schema
    .createIndex('outbox_events_dispatched_idx')
    .on('outbox_events')
    .columns(['dispatched_at'])
    .where(sql.ref('dispatched_at'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of [
    'outbox_events_dispatched_idx',
    'webhook_deliveries_created_idx',
    'webhook_jobs_finished_idx',
    'webhook_jobs_event_idx',
  ]) {
    await db.schema.dropIndex(index).ifExists().execute();
  }
  for (const column of ['holder_pid', 'holder_host', 'holder_id', 'body'])
    await db.schema.alterTable('webhook_jobs').dropColumn(column).execute();
  await db.schema.alterTable('outbox_events').dropColumn('audience').execute();
  await db.schema.alterTable('webhooks').dropColumn('url_set_by_token_id').execute();
}
