import { resolve } from 'node:path';
import { ConfigError, DEFAULT_PG_POOL_SIZE } from '../config.js';
import type { Database } from './database.js';
import { openPostgres } from './postgres/open.js';
import { openSqlite } from './sqlite/open.js';

/**
 * Opens the store named by a DATABASE_URL: unset → ./data/wsx.sqlite, `sqlite:PATH`,
 * `sqlite::memory:`, or `postgres://…`. Drivers are imported lazily so an SQLite install
 * never loads pg and vice versa. `backgroundCheckpoints` (the server's store) moves the SQLite
 * WAL checkpoints off the connection to a worker thread (sqlite/checkpointer.ts); a
 * short-lived command does without. `pgPoolSize` is the configuration's (WSX_PG_POOL_SIZE).
 */
export async function openDatabase(
  url: string | undefined,
  options: { backgroundCheckpoints?: boolean; pgPoolSize?: number } = {},
): Promise<Database> {
  const target = url && url.length > 0 ? url : DEFAULT_URL;
  if (target.startsWith('postgres://') || target.startsWith('postgresql://')) {
    return openPostgres(target, options.pgPoolSize ?? DEFAULT_PG_POOL_SIZE);
  }
  if (target.startsWith('sqlite:')) return openSqlite(target.slice('sqlite:'.length), options.backgroundCheckpoints);
  throw new ConfigError(`DATABASE_URL must start with sqlite: or postgres:// (got "${target.split(':')[0]}:")`);
}

const DEFAULT_URL = 'sqlite:./data/wsx.sqlite';

/** The absolute path of the SQLite file a DATABASE_URL names, if it names one. */
export function sqliteFileOf(url: string | undefined): string | undefined {
  const target = url && url.length > 0 ? url : DEFAULT_URL;
  if (!target.startsWith('sqlite:') || target === 'sqlite::memory:') return undefined;
  return resolve(target.slice('sqlite:'.length));
}
