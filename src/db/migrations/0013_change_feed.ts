import { sql, type Kysely } from 'kysely';

/**
 * The change feed (GET /api/external/events) reads the outbox, the log webhooks are fanned
 * out from, by position:
 * - `outbox_events.seq`: the event's position in its workspace's log, given by the insert
 *   (events/event-log.ts). Within a workspace, positions follow commit order and are never
 *   given out twice. Existing events get positions in (created_at, id) order.
 * - `outbox_pruned`: per workspace and project ('' for workspace-level events), the highest
 *   position pruning has deleted. It keeps positions from being given out again once the
 *   newest events are pruned, and tells a feed cursor whose next events are gone
 *   (EVENT_CURSOR_EXPIRED).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('outbox_events')
    .addColumn('seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // Data changes in a migration are written as SQL: the migration must not depend on the
  // table types of the current code.
  await sql`
    update outbox_events set seq = ranked.position
    from (
      select id, row_number() over (partition by workspace_id order by created_at, id) as position
      from outbox_events
    ) as ranked
    where ranked.id = outbox_events.id
  `.execute(db);
  await db.schema
    .createIndex('outbox_events_ws_seq_idx')
    .on('outbox_events')
    .columns(['workspace_id', 'seq'])
    .unique()
    .execute();
  await db.schema
    .createTable('outbox_pruned')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('project_key', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('outbox_pruned_pk', ['workspace_id', 'project_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('outbox_pruned').ifExists().execute();
  await db.schema.dropIndex('outbox_events_ws_seq_idx').ifExists().execute();
  await db.schema.alterTable('outbox_events').dropColumn('seq').execute();
}
