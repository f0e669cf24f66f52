import { loadConfig } from '../config.js';
import { openDatabase } from '../db/connect.js';
import type { Database } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { catchUpSearchIndexes } from '../db/search-backlog.js';

/** What a command may touch: its output streams and the database. Tests pass their own. */
export interface CliContext {
  /** Writes one line to standard output. */
  out(text: string): void;
  /** Writes one line to standard error. */
  err(text: string): void;
  /** Runs `fn` on the database, its schema brought up to date first (`migrated`: names applied now). */
  withDatabase<T>(fn: (database: Database, migrated: string[]) => Promise<T>): Promise<T>;
}

/**
 * The real process: stdout/stderr and the database named by DATABASE_URL, closed after the
 * command, which indexes for search what it wrote first (db/search-backlog.ts).
 */
export function processContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    async withDatabase(fn) {
      const config = loadConfig(env);
      const database = await openDatabase(config.databaseUrl, { pgPoolSize: config.pgPoolSize });
      try {
        const migrated = await migrateToLatest(database);
        const result = await fn(database, migrated);
        // The command's own work has committed: indexing that fails (a read-only file, a
        // full disk) is said, not turned into the command's failure; searches find the rows
        // meanwhile and the server indexes them.
        await catchUpSearchIndexes(database).catch((error: unknown) =>
          this.err(`Search indexing is left to the server: ${error instanceof Error ? error.message : String(error)}`),
        );
        return result;
      } finally {
        await database.close();
      }
    },
  };
}
