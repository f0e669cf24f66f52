import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';

/** Migrations are compiled into the program (no file scanning), in name order. */
class CatalogProvider implements MigrationProvider {
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve(migrations);
  }
}

/** Brings the schema up to date; safe to run from the server and the CLI at once. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const migrator = new Migrator({ db: database.db, provider: new CatalogProvider() });
  // SQLite remakes a table to give it foreign keys (0024); with them enforced, dropping the
  // old table would first delete its rows. The pragma is ignored inside a transaction, so it
  // is set around the migrator's, and the whole store is checked before serving again.
  const sqlite = database.dialect === 'sqlite';
  if (sqlite) await sql`pragma foreign_keys = off`.execute(database.db);
  let applied: string[];
  try {
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
    applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (sqlite && applied.length > 0) await requireNoSqliteViolation(database);
  } finally {
    if (sqlite) await sql`pragma foreign_keys = on`.execute(database.db);
  }
  // Every pending migration ran in one transaction; what needs it committed runs now.
  for (const name of applied) await migrations[name].afterCommit?.(database.db as Kysely<unknown>);
  return applied;
}

/** A migration that left a reference broken is a bug: stop before serving on such a store. */
async function requireNoSqliteViolation(database: Database): Promise<void> {
  const { rows } = await sql<{ table: string; parent: string }>`pragma foreign_key_check`.execute(database.db);
  if (rows.length > 0)
    throw new Error(
      `the migrated store has ${rows.length} broken reference(s), the first in ${rows[0].table} → ${rows[0].parent}`,
    );
}
