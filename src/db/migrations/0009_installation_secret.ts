import type { Kysely } from 'kysely';

/**
 * Secrets of the installation itself, not of a workspace (e.g. the key that signs
 * pagination cursors). One row per name; each value is generated on first use and kept,
 * so every server process on one database signs and checks with the same key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('installation_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('installation_secrets').ifExists().execute();
}
