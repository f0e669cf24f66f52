import { Kysely } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Signals } from '../../core/signals.js';
import { alone, type Database } from '../database.js';
import { createOwnerOnly } from '../file-mode.js';
import { InstallationSecrets } from '../installation-secrets.js';
import type { DB } from '../schema.js';
import { StatementWatch } from '../statements.js';
import { trackSqliteFile } from '../storage.js';
import { FOLD_CASE } from '../text-search.js';
import { MonotonicClock } from '../write-clock.js';
import { SERVING_AUTOCHECKPOINT_PAGES, startCheckpointer } from './checkpointer.js';
import { CommitGroups } from './commit-groups.js';
import { WsxSqliteDialect } from './dialect.js';
import { cachingSqliteDatabase } from './statements.js';

/**
 * An SQLite store: one connection (better-sqlite3 runs each statement synchronously), with
 * statements prepared once (statements.ts) and the writes of a turn in one commit
 * (commit-groups.ts).
 */
export async function openSqlite(path: string, backgroundCheckpoints = false): Promise<Database> {
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
    // would too: wsx's reads are in index order or bounded by a LIMIT, docs/decisions/0009-sqlite-commit-groups.md).
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
  const commitGroups = new CommitGroups(database, inTransaction);
  // Not inside a waiting commit group: `optimize` may write.
  const optimizer = setInterval(() => {
    commitGroups.settleBeforeOutsideUse();
    optimize('optimize');
  }, 3_600_000);
  optimizer.unref();
  const db = new Kysely<DB>({ dialect: new WsxSqliteDialect({ database, inTransaction, commitGroups }) });
  const clock = new MonotonicClock();
  const untrack = file ? trackSqliteFile(file) : () => undefined;
  const checkpointer = file && backgroundCheckpoints ? startCheckpointer(file) : undefined;
  const close = async () => {
    clearInterval(optimizer);
    untrack();
    await checkpointer?.stop();
    await db.destroy();
  };
  return {
    db,
    dialect: 'sqlite',
    describe: inMemory ? 'sqlite::memory:' : `sqlite:${path}`,
    file,
    // A write, and a claim that must be durable, join their turn's commit group.
    write: (_workspaceId, work) => commitGroups.run(db, (trx) => work(trx, clock.next())),
    // Each write is its own transaction inside the turn's commit group: nothing to share.
    writeMergeable: (_workspaceId, write) => commitGroups.run(db, (trx) => alone(write)(trx, clock.next())),
    durableWrite: (work) => commitGroups.run(db, work),
    // One write runs at a time (BEGIN IMMEDIATE): this process's clock orders them.
    writeInstant: async () => clock.next(),
    close,
    statements,
    signals: new Signals(),
    secrets: new InstallationSecrets(db),
  };
}
