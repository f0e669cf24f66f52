import type { Kysely } from 'kysely';

/**
 * The outbox's `(workspace_id, created_at)` index goes: since the change feed reads the log
 * by position (0013_change_feed, `(workspace_id, seq)`) no query orders or filters events
 * by time within a workspace (pruning goes by `dispatched_at`, its own index), and every
 * write's event dirtied one more page of it for its commit to write; SQLite creates ran a
 * little faster without it in side-by-side runs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('outbox_events_ws_idx').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('outbox_events_ws_idx')
    .on('outbox_events')
    .columns(['workspace_id', 'created_at'])
    .execute();
}
