import type { Database as BetterSqlite3 } from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { StatementWatch } from '../statements.js';
import { arrayRowStatement } from './rows.js';

/** Distinct statement texts kept prepared; the code has a few hundred, lists of ids add some. */
const CACHED_STATEMENTS = 1_000;

/**
 * The better-sqlite3 handle as Kysely sees it, with `prepare` answered from a cache of
 * prepared statements, each reading its rows as arrays (arrayRowStatement). Kysely runs one
 * statement at a time on the connection (its mutex), so a cached statement is never in use
 * twice at once.
 */
export function cachingSqliteDatabase(sqlite: BetterSqlite3, watch: StatementWatch): SqliteDatabase {
  const cache = new LRUCache<string, SqliteStatement>({ max: CACHED_STATEMENTS });
  const prepare = (sql: string): SqliteStatement => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = arrayRowStatement(sqlite.prepare(sql));
      cache.set(sql, statement);
    }
    if (!watch.watched) return statement;
    const prepared = statement;
    // better-sqlite3 runs synchronously: the statement has finished when the call returns.
    const watched = <T>(parameters: ReadonlyArray<unknown>, run: () => T): T => {
      const finished = watch.ran(sql, parameters);
      try {
        return run();
      } finally {
        finished?.();
      }
    };
    return {
      reader: prepared.reader,
      all: (parameters: ReadonlyArray<unknown>) => watched(parameters, () => prepared.all(parameters)),
      run: (parameters: ReadonlyArray<unknown>) => watched(parameters, () => prepared.run(parameters)),
      iterate: (parameters: ReadonlyArray<unknown>) => watched(parameters, () => prepared.iterate(parameters)),
    };
  };
  return { prepare, close: () => sqlite.close() };
}
