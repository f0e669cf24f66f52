import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { DB } from '../schema.js';

/**
 * Runs `fn` on one connection inside a read-only snapshot, so that an export taken while the
 * server writes is one consistent state, with every page read at the same instant. On SQLite
 * a deferred BEGIN reads a WAL snapshot without taking the write lock (a Kysely transaction
 * there begins IMMEDIATE and would hold up the server's writes for the whole export); on
 * PostgreSQL REPEATABLE READ gives the same.
 */
export async function inReadSnapshot<T>(database: Database, fn: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  return database.db.connection().execute(async (db) => {
    const begin =
      database.dialect === 'postgres'
        ? 'begin transaction isolation level repeatable read read only'
        : 'begin deferred';
    await sql.raw(begin).execute(db);
    try {
      const result = await fn(db);
      await sql.raw('commit').execute(db);
      return result;
    } catch (error) {
      // The error that stopped the export is the one to report, not a failed rollback.
      await sql
        .raw('rollback')
        .execute(db)
        .catch(() => undefined);
      throw error;
    }
  });
}
