import type { CompiledQuery, Kysely, SqliteDatabase } from 'kysely';
import type { DB } from './schema.js';

/** What an SQLite store lends for reads that need not queue: its statements, and the step that readies a read. */
interface DirectReads {
  database: SqliteDatabase;
  /**
   * Readies the connection for a read that runs at once: commits the writes that wait for
   * their turn's commit (commit-groups.ts) and joins the turn's read transaction
   * (turn-reads.ts). False while a write's transaction is open.
   */
  readyForRead: () => boolean;
}

/** What a PostgreSQL store lends for reads outside transactions: its pool's one-statement query. */
interface PooledReads {
  query: (sql: string, parameters: unknown[]) => Promise<{ rows: unknown[] }>;
}

const storesReadDirectly = new WeakMap<Kysely<DB>, DirectReads>();
const storesReadPooled = new WeakMap<Kysely<DB>, PooledReads>();

/**
 * Lets the store's own handle (not a transaction's) run SELECTs at once, on the calling turn.
 *
 * Kysely runs every statement of an SQLite store behind its connection mutex, through half a
 * dozen promise hops (measured side by side with the callback-form hooks: a read by key
 * 115 → 108 µs of CPU, docs/performance.md). A SELECT needs none of that while no write's
 * transaction is open on the connection: better-sqlite3 runs it synchronously, in the turn's
 * read transaction (turn-reads.ts), so it sees what is committed and cannot interleave with
 * anything. While a write's transaction is open (a write is between its statements, across
 * awaits), the read must not run inside it, so it takes Kysely's queue as before. Writes that
 * have finished and wait for their turn's commit (commit-groups.ts) are committed first, so
 * the read need not queue.
 */
export function readDirectly(db: Kysely<DB>, reads: DirectReads): void {
  storesReadDirectly.set(db, reads);
}

/**
 * Lets the store's own handle (not a transaction's) run SELECTs as the pool's one-statement
 * queries: a connection checked out, the statement run, the connection given back, as Kysely
 * does for a statement outside a transaction, without its executor's promise hops. Each
 * read is on whatever connection is free, as before, so it never sees another caller's
 * uncommitted writes.
 */
export function readPooled(db: Kysely<DB>, reads: PooledReads): void {
  storesReadPooled.set(db, reads);
}

/**
 * The rows of a compiled SELECT run without Kysely's executor on `db`: at once on SQLite,
 * from the pool on PostgreSQL. Undefined when it must go through Kysely: `db` is a
 * transaction, the query is not a SELECT, or (SQLite) a transaction is open on the connection.
 */
export function rowsRightAway<Row>(
  db: Kysely<DB>,
  query: CompiledQuery<Row>,
  parameters: ReadonlyArray<unknown>,
): Row[] | Promise<Row[]> | undefined {
  if (query.query.kind !== 'SelectQueryNode') return undefined;
  const pooled = storesReadPooled.get(db);
  if (pooled) return pooled.query(query.sql, [...parameters]).then((result) => result.rows as Row[]);
  const reads = storesReadDirectly.get(db);
  if (!reads) return undefined;
  if (!reads.readyForRead()) return undefined;
  return reads.database.prepare(query.sql).all(parameters) as Row[];
}
