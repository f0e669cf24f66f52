import { Kysely, PostgresDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Database } from './database.js';
import { CommitGroups, groupCommits, groupCommitsByWorkspace } from './commit-groups.js';
import { createOwnerOnly } from './file-mode.js';
import { PgCommitGroups } from './pg-commit-groups.js';
import { readDirectly, readPooled } from './direct-reads.js';
import type { DB } from './schema.js';
import { readAsciiRowsWhole } from './pg-data-rows.js';
import { nameStatements } from './pg-statements.js';
import { WsxSqliteDialect } from './sqlite-dialect.js';
import { SERVING_AUTOCHECKPOINT_PAGES, startCheckpointer } from './sqlite-checkpointer.js';
import { cachingSqliteDatabase } from './sqlite-statements.js';
import { StatementWatch } from './statements.js';
import { FOLD_CASE } from './text-search.js';
import { trackSqliteFile } from './storage.js';
import { TurnReads } from './turn-reads.js';

/** How long a PostgreSQL checkout may wait for a connection before the request fails. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Opens the store named by a DATABASE_URL: unset → ./data/wsx.sqlite, `sqlite:PATH`,
 * `sqlite::memory:`, or `postgres://…`. Drivers are imported lazily so an SQLite install
 * never loads pg and vice versa. `backgroundCheckpoints` (the server's store) moves the SQLite
 * WAL checkpoints off the connection to a worker thread (sqlite-checkpointer.ts); a short-lived
 * command does without.
 */
export async function openDatabase(
  url: string | undefined,
  options: { backgroundCheckpoints?: boolean } = {},
): Promise<Database> {
  const target = url && url.length > 0 ? url : DEFAULT_URL;
  if (target.startsWith('postgres://') || target.startsWith('postgresql://')) {
    return openPostgres(target);
  }
  if (target.startsWith('sqlite:')) return openSqlite(target.slice('sqlite:'.length), options.backgroundCheckpoints);
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got "${target.split(':')[0]}:")`);
}

const DEFAULT_URL = 'sqlite:./data/wsx.sqlite';

/** The absolute path of the SQLite file a DATABASE_URL names, if it names one. */
export function sqliteFileOf(url: string | undefined): string | undefined {
  const target = url && url.length > 0 ? url : DEFAULT_URL;
  if (!target.startsWith('sqlite:') || target === 'sqlite::memory:') return undefined;
  return resolve(target.slice('sqlite:'.length));
}

async function openSqlite(path: string, backgroundCheckpoints = false): Promise<Database> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const inMemory = path === ':memory:';
  const file = inMemory ? undefined : resolve(path);
  if (file) {
    mkdirSync(dirname(file), { recursive: true });
    // A new store is created readable by its owner only (SQLite would make it 0644); SQLite
    // gives its WAL and shared-memory files the mode of the database file.
    createOwnerOnly(file);
  }
  const sqlite = new BetterSqlite3(file ?? ':memory:');
  // Statistics are an optimisation: a full disk or a lock held by another process must not
  // stop the start (or, hourly, throw out of a timer and end the process).
  const optimize = (argument: string) => {
    try {
      sqlite.pragma(argument);
    } catch {
      // tried again at the next interval
    }
  };
  try {
    // WAL lets the CLI and the server share one file; busy_timeout makes them wait, not fail.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    // References between records are foreign keys (db/references.ts), enforced on every connection.
    sqlite.pragma('foreign_keys = ON');
    // A savepoint (a write that joins its turn's commit group, commit-groups.ts) keeps the
    // original of every page it changes in a sub-journal; past 64 KiB, about sixteen pages,
    // SQLite would move that journal to a temporary file, created, written and deleted for
    // every such write. With temporary storage in memory it stays in memory (a large sort
    // would too: wsx's reads are in index order or bounded by a LIMIT, docs/decisions.md).
    sqlite.pragma('temp_store = MEMORY');
    if (file && backgroundCheckpoints) sqlite.pragma(`wal_autocheckpoint = ${SERVING_AUTOCHECKPOINT_PAGES}`);
    // SQLite's lower() folds ASCII only; searches fold the way JavaScript does (db/text-search.ts).
    sqlite.function(FOLD_CASE, { deterministic: true }, (value: unknown) =>
      typeof value === 'string' ? value.toLowerCase() : value,
    );
    // SQLite plans without statistics assume ~10 rows per index prefix; with one workspace per
    // file that guess is always wrong (an `id in (…)` lookup then scans the whole workspace).
    // `optimize` gathers statistics where they are missing or stale, bounded by analysis_limit,
    // on open and hourly, as SQLite advises for long-lived connections.
    sqlite.pragma('analysis_limit = 400');
    optimize('optimize = 0x10002');
  } catch (error) {
    // A file that cannot be set up (a full disk, an I/O error) is not left open.
    sqlite.close();
    throw error;
  }
  const statements = new StatementWatch();
  const database = cachingSqliteDatabase(sqlite, statements);
  const inTransaction = () => sqlite.inTransaction;
  const turnReads = new TurnReads(sqlite);
  // Not inside a read transaction a timer's read may have opened: `optimize` may write.
  const optimizer = setInterval(() => {
    turnReads.end();
    optimize('optimize');
  }, 3_600_000);
  optimizer.unref();
  const commitGroups = new CommitGroups(database, inTransaction, turnReads);
  const db = new Kysely<DB>({ dialect: new WsxSqliteDialect({ database, inTransaction, commitGroups, turnReads }) });
  readDirectly(db, {
    database,
    readyForRead: () => {
      commitGroups.settleBeforeOutsideUse();
      return turnReads.join();
    },
  });
  groupCommits(db, commitGroups);
  const untrack = file ? trackSqliteFile(file) : () => undefined;
  const checkpointer = file && backgroundCheckpoints ? startCheckpointer(file) : undefined;
  const close = async () => {
    clearInterval(optimizer);
    untrack();
    await checkpointer?.stop();
    await db.destroy();
  };
  return { db, dialect: 'sqlite', describe: inMemory ? 'sqlite::memory:' : `sqlite:${path}`, file, close, statements };
}

async function openPostgres(url: string): Promise<Database> {
  const pg = await import('pg');
  readAsciiRowsWhole();
  const Pool = pg.default.Pool;
  const pool = new Pool({
    connectionString: url,
    max: Number(process.env.WSX_PG_POOL_SIZE ?? 10),
    // An unreachable host, or a pool with every client busy, answers within this time
    // (503 DATABASE_UNAVAILABLE) instead of holding the request open indefinitely.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Notices a silently dropped connection (a failover, a NAT timeout) on idle clients.
    keepAlive: true,
    // A statement goes to the server as soon as it is given, not once the one before it is
    // answered: a write's COMMIT then follows its unanswered outbox row straight away
    // (unanswered-writes.ts). Each statement still has its own answer and error; Kysely
    // awaits every other one, so nothing else changes. (No cursors or `rows` are used,
    // which pipelining refuses.)
    pipeline: true,
  });
  // A client whose server connection drops (restart, failover, admin kill) emits 'error'.
  // The pool listens only while the client is idle; while it is checked out (running a
  // query, holding a transaction, the dispatcher's), nothing does, and an unhandled
  // 'error' event ends the process. So every client gets its own listener when it is
  // made. The error itself reaches the caller through its failing query; the pool then
  // discards the broken client (it is no longer queryable) and the next checkout opens a
  // fresh connection, which is how the server reconnects by itself.
  const ignore = () => undefined;
  pool.on('error', ignore);
  const statements = new StatementWatch();
  pool.on('connect', (client) => {
    client.on('error', ignore);
    nameStatements(client, statements, pg.default.Query);
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  groupCommitsByWorkspace(db, new PgCommitGroups(db));
  // Checked out and given back as Kysely does (not pool.query, which passes client.query a
  // callback that nameStatements' promise form would never call).
  readPooled(db, {
    query: async (text, values) => {
      const client = await pool.connect();
      try {
        return await client.query(text, values);
      } finally {
        client.release();
      }
    },
  });
  const safe = new URL(url);
  safe.password = '';
  return {
    db,
    dialect: 'postgres',
    describe: `postgres://${safe.host}${safe.pathname}`,
    close: () => db.destroy(),
    statements,
    pool,
  };
}
