import type { Kysely } from 'kysely';

/**
 * `background_leases`: which process runs the background work (webhook dispatcher,
 * housekeeping) on a store that needs a single runner (SQLite: several processes may serve
 * one file). A row names its holder and the time its lease ends; the holder renews it, and
 * another process takes it over once it ends or once its holder is seen dead
 * (src/events/background-lease.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('background_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder_id', 'text', (c) => c.notNull())
    .addColumn('holder_host', 'text', (c) => c.notNull())
    .addColumn('holder_pid', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('background_leases').ifExists().execute();
}
