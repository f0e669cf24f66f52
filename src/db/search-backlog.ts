import { sql, type Kysely } from 'kysely';
import type { Database } from './database.js';
import type { DB } from './schema.js';
import { rowTerms } from './search-terms.js';
import { SEARCHED_TABLES, type SearchedTable } from './text-search.js';

/**
 * Rows indexed in one transaction, at most: FTS5 writes one segment for the whole batch.
 * A batch also ends once its rows hold SEARCH_BATCH_CHARS characters, so that building
 * their terms and indexing them holds the write lock and the event loop a few milliseconds
 * whatever their length.
 */
const SEARCH_BATCH_ROWS = 1_000;
const SEARCH_BATCH_CHARS = 20_000;

/** How often the background runner looks for rows to index; a search never waits for it. */
const INTERVAL_MS = 200;

/**
 * Indexes the terms of the current title and description (db/search-terms.ts) of up to
 * `limit` rows listed in `<table>_fts_pending` (SQLite, migrations 0021_search_backlog and
 * 0025_search_scope), oldest listed first, and takes them off the list, in one
 * transaction. Answers how many it took off.
 */
export async function indexListedRows(
  db: Kysely<DB>,
  table: SearchedTable,
  limit = SEARCH_BATCH_ROWS,
): Promise<number> {
  const listed = sql.id(`${table}_fts_pending`);
  const fts = sql.id(`${table}_fts`);
  return db.transaction().execute(async (trx) => {
    const { rows: sizes } = await sql<{ id: number; size: number }>`
      select p.id, coalesce(length(t.title), 0) + coalesce(length(t.description), 0) as size
      from ${listed} p left join ${sql.id(table)} t on t.rowid = p.id order by p.id limit ${limit}`.execute(trx);
    let taken = 0;
    for (let chars = 0; taken < sizes.length && chars < SEARCH_BATCH_CHARS; taken++) chars += sizes[taken].size;
    if (taken === 0) return 0;
    const last = sizes[taken - 1].id;
    // CROSS JOIN: the list drives the join. Otherwise SQLite read `p.id <= last` as a range
    // of the table's rowids and walked the whole table, however small the batch.
    const { rows } = await sql<{ id: number; workspace: number; title: string; description: string | null }>`
      select p.id, p.workspace, t.title, t.description
      from ${listed} p cross join ${sql.id(table)} t on t.rowid = p.id where p.id <= ${last}`.execute(trx);
    const entries = rows
      .map((row) => [row.id, rowTerms(row.workspace, [row.title, row.description])] as const)
      .filter(([, terms]) => terms !== '');
    if (entries.length > 0)
      await sql`insert into ${fts}(rowid, terms) select value ->> 0, value ->> 1 from json_each(${JSON.stringify(entries)})`.execute(
        trx,
      );
    await sql`delete from ${listed} where id <= ${last}`.execute(trx);
    return taken;
  });
}

/** Whether any row of the table waits to be indexed (a read: no write lock taken when none does). */
async function hasListedRows(db: Kysely<DB>, table: SearchedTable): Promise<boolean> {
  const { rows } = await sql`select 1 from ${sql.id(`${table}_fts_pending`)} limit 1`.execute(db);
  return rows.length > 0;
}

/** Indexes every listed row of every searched table, a batch per transaction. */
export async function indexAllListedRows(db: Kysely<DB>, keepGoing: () => boolean = () => true): Promise<void> {
  for (const table of SEARCHED_TABLES) {
    if (!(await hasListedRows(db, table))) continue;
    while (keepGoing() && (await indexListedRows(db, table)) > 0);
  }
}

/**
 * Indexes what a short-lived command (the CLI's import, apply, a seed) listed before it
 * ends, so that no server has a large backlog to work through first. PostgreSQL's indexes
 * follow each write; nothing to do there.
 */
export async function catchUpSearchIndexes(database: Database): Promise<void> {
  if (database.dialect === 'sqlite') await indexAllListedRows(database.db);
}

export interface SearchIndexing {
  /** Stops the timer once the batch in progress, if any, has committed. */
  stop(): Promise<void>;
}

/**
 * Keeps SQLite's trigram indexes caught up with the writes, in the process that runs the
 * background work (server/workers.ts). Indexing is what makes a search fast, never what
 * makes it right: a listed row is found by comparing its columns (db/text-search.ts).
 * PostgreSQL's indexes follow each write: nothing runs there.
 */
export function startSearchIndexing(database: Database, onError: (error: unknown) => void): SearchIndexing {
  if (database.dialect !== 'sqlite') return { stop: async () => undefined };
  const { db } = database;
  let stopped = false;
  let running: Promise<void> | undefined;
  // A failure that lasts (a full disk) is reported once, not every 200 ms, until a pass succeeds.
  let failing = false;
  const pass = () =>
    indexAllListedRows(db, () => !stopped).then(
      () => void (failing = false),
      (error: unknown) => {
        if (!failing) onError(error);
        failing = true;
      },
    );
  // One pass at a time: a tick that finds one still going leaves the rest to it.
  const tick = () => {
    running ??= pass().finally(() => (running = undefined));
  };
  const timer = setInterval(tick, INTERVAL_MS);
  timer.unref();
  tick();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
