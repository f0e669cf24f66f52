import type { CompiledQuery, Kysely, SqliteDatabase } from 'kysely';
import type { DB } from './schema.js';

/** What an SQLite store lends for reads that need not queue: its statements and whether a transaction is open. */
interface DirectReads {
  database: SqliteDatabase;
  inTransaction: () => boolean;
}

const storesReadDirectly = new WeakMap<Kysely<DB>, DirectReads>();

/**
 * Lets the store's own handle (not a transaction's) run SELECTs at once, on the calling turn.
 *
 * Kysely runs every statement of an SQLite store behind its connection mutex, through half a
 * dozen promise hops; on a read by key that costs about as much again as the statement itself.
 * A SELECT needs none of that while no transaction is open on the connection: better-sqlite3
 * runs it synchronously in autocommit, so it sees exactly what is committed, and it cannot
 * interleave with anything. While a transaction is open (a write is between its statements,
 * across awaits), the read must not run inside it, so it takes Kysely's queue as before.
 */
export function readDirectly(db: Kysely<DB>, reads: DirectReads): void {
  storesReadDirectly.set(db, reads);
}

/**
 * The rows of a compiled SELECT run at once on `db`, or undefined when it must go through
 * Kysely: `db` is a transaction, the store is PostgreSQL, the query is not a SELECT, or a
 * transaction is open on the connection.
 */
export function rowsRightAway<Row>(
  db: Kysely<DB>,
  query: CompiledQuery<Row>,
  parameters: ReadonlyArray<unknown>,
): Row[] | undefined {
  const reads = storesReadDirectly.get(db);
  if (!reads || query.query.kind !== 'SelectQueryNode' || reads.inTransaction()) return undefined;
  return reads.database.prepare(query.sql).all(parameters) as Row[];
}
