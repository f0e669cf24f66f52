import { Kysely, PostgresDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { DB } from './schema.js';
import { WsxSqliteDialect } from './sqlite-dialect.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: DialectName;
  /** Human-readable location for logs (never a password). */
  describe: string;
  close(): Promise<void>;
}

/**
 * Opens the store named by a DATABASE_URL: unset → ./data/wsx.sqlite, `sqlite:PATH`,
 * `sqlite::memory:`, or `postgres://…`. Drivers are imported lazily so an SQLite install
 * never loads pg and vice versa.
 */
export async function openDatabase(url: string | undefined): Promise<Database> {
  const target = url && url.length > 0 ? url : 'sqlite:./data/wsx.sqlite';
  if (target.startsWith('postgres://') || target.startsWith('postgresql://')) {
    return openPostgres(target);
  }
  if (target.startsWith('sqlite:')) return openSqlite(target.slice('sqlite:'.length));
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got "${target.split(':')[0]}:")`);
}

async function openSqlite(path: string): Promise<Database> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const inMemory = path === ':memory:';
  if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new BetterSqlite3(inMemory ? ':memory:' : path);
  // WAL lets the CLI and the server share one file; busy_timeout makes them wait, not fail.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = OFF');
  // SQLite plans without statistics assume ~10 rows per index prefix; with one workspace per
  // file that guess is always wrong (an `id in (…)` lookup then scans the whole workspace).
  // `optimize` gathers statistics where they are missing or stale, bounded by analysis_limit,
  // on open and hourly, as SQLite advises for long-lived connections.
  sqlite.pragma('analysis_limit = 400');
  sqlite.pragma('optimize = 0x10002');
  const optimizer = setInterval(() => sqlite.pragma('optimize'), 3_600_000);
  optimizer.unref();
  const db = new Kysely<DB>({ dialect: new WsxSqliteDialect({ database: sqlite }) });
  const close = async () => {
    clearInterval(optimizer);
    await db.destroy();
  };
  return { db, dialect: 'sqlite', describe: inMemory ? 'sqlite::memory:' : `sqlite:${path}`, close };
}

async function openPostgres(url: string): Promise<Database> {
  const pg = await import('pg');
  const Pool = pg.default.Pool;
  const pool = new Pool({ connectionString: url, max: Number(process.env.WSX_PG_POOL_SIZE ?? 10) });
  // An idle client whose server connection drops (restart, failover, admin kill) emits
  // 'error' on the pool; unhandled, that would end the process. The pool discards the
  // client and opens a new one on the next checkout, so there is nothing else to do.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const safe = new URL(url);
  safe.password = '';
  return { db, dialect: 'postgres', describe: `postgres://${safe.host}${safe.pathname}`, close: () => db.destroy() };
}
