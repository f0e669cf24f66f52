import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
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
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
  const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  // Every pending migration ran in one transaction; what needs it committed runs now.
  for (const name of applied) await migrations[name].afterCommit?.(database.db as Kysely<unknown>);
  return applied;
}
