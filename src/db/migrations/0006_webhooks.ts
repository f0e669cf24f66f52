import { sql, type Kysely } from 'kysely';
import { boolColumn, tenantTable, timestamps } from './helpers.js';

/**
 * Webhook subscriptions, the durable delivery queue (one job per subscription and event)
 * and the delivery log (one row per attempt). The outbox gets a `dispatched_at` mark so
 * the dispatcher finds events not yet fanned out through a small partial index, however
 * long the outbox grows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await tenantTable(db, 'webhooks')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .$call(boolColumn('active', 1))
    .addColumn('creator_kind', 'text', (c) => c.notNull())
    .addColumn('creator_id', 'text')
    .addColumn('creator_token_id', 'text')
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('webhooks_ws_order_idx')
    .on('webhooks')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();

  await tenantTable(db, 'webhook_jobs')
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('due_at', 'text')
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('webhook_jobs_due_idx')
    .on('webhook_jobs')
    .columns(['due_at'])
    .where(sql.ref('due_at'), 'is not', null)
    .execute();

  await tenantTable(db, 'webhook_deliveries')
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_order_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_job_idx').on('webhook_deliveries').columns(['job_id']).execute();

  await db.schema.alterTable('outbox_events').addColumn('dispatched_at', 'text').execute();
  await db.schema
    .createIndex('outbox_events_undispatched_idx')
    .on('outbox_events')
    .columns(['id'])
    .where(sql.ref('dispatched_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('outbox_events_undispatched_idx').ifExists().execute();
  await db.schema.alterTable('outbox_events').dropColumn('dispatched_at').execute();
  for (const table of ['webhook_deliveries', 'webhook_jobs', 'webhooks'])
    await db.schema.dropTable(table).ifExists().execute();
}
