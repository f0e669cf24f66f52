import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { indexAllListedRows } from '../search-backlog.js';
import type { DB } from '../schema.js';

/**
 * `q=` searches read the caller's workspace only, in the index itself: what one workspace
 * holds never costs another workspace's search anything.
 *
 * SQLite: each searched table's FTS5 index (`<table>_fts`) holds, for a row, one term per
 * distinct trigram of its folded title and description, qualified by the row's workspace
 * (db/search-terms.ts): a search asks for its own workspace's terms, whose row lists hold
 * that workspace's rows only. Folded as a search folds its text (JavaScript's toLowerCase),
 * every trigram of a search text is a term of every row that contains the text. Only which
 * rows hold a term is kept (`detail=none`), no text (contentless): a row leaves the index
 * by rowid (`contentless_delete`), whatever text it was indexed with. The terms are built
 * in JavaScript, so the triggers list changed rows in `<table>_fts_pending` (with their
 * workspace's number, which a search's list of waiting rows is read by) and the indexer
 * (db/search-backlog.ts) indexes them; this migration lists every row and, once committed,
 * indexes them all. The triggers are made here, after 0024_foreign_keys may have made the
 * tables anew.
 *
 * PostgreSQL: the pg_trgm indexes of 0011_text_search lead with `workspace_id` (btree_gin),
 * so a search's index scan reads the trigrams of the caller's workspace only; their searched
 * expressions are sampled as 0020_search_statistics sampled the old ones.
 */
const SEARCHED_TABLES = ['issues', 'meetings', 'discussion_topics'] as const;

/** The number the index knows a row's workspace by (its rowid); 0 for none. */
const workspaceOf = (row: string) =>
  sql`coalesce((select w.rowid from workspaces w where w.id = ${sql.raw(row)}.workspace_id), 0)`;

const isPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** On PostgreSQL every searched column is indexed, the short ones too. */
const TRIGRAM_INDEXED: ReadonlyArray<readonly [table: string, column: string]> = [
  ['issues', 'title'],
  ['issues', 'description'],
  ['meetings', 'title'],
  ['meetings', 'description'],
  ['discussion_topics', 'title'],
  ['discussion_topics', 'description'],
  ['issue_containers', 'name'],
  ['milestones', 'title'],
];
const ANALYZED = ['issues', 'meetings', 'discussion_topics', 'issue_containers', 'milestones'];

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return scopePostgresIndexes(db);
  for (const table of SEARCHED_TABLES) {
    await dropSqliteSearch(db, table);
    const fts = sql.id(`${table}_fts`);
    const pending = sql.id(`${table}_fts_pending`);
    const trigger = (suffix: string) => sql.id(`${table}_fts_${suffix}`);
    const listed = (row: string) => sql`exists (select 1 from ${pending} where id = ${sql.raw(row)}.rowid)`;
    await sql`create virtual table ${fts} using fts5(terms, content='', contentless_delete=1, detail=none,
      tokenize='ascii')`.execute(db);
    await sql`create table ${pending} (id integer primary key, workspace integer not null)`.execute(db);
    await sql`create index ${sql.id(`${table}_fts_pending_workspace`)} on ${pending} (workspace, id)`.execute(db);
    // No OR IGNORE in a trigger: an issue insert is INSERT OR ROLLBACK, which would override it.
    await sql`create trigger ${trigger('insert')} after insert on ${sql.id(table)} begin
      insert into ${pending}(id, workspace) values (new.rowid, ${workspaceOf('new')});
    end`.execute(db);
    await sql`create trigger ${trigger('delete')} after delete on ${sql.id(table)} begin
      delete from ${fts} where rowid = old.rowid and not ${listed('old')};
      delete from ${pending} where id = old.rowid;
    end`.execute(db);
    await sql`create trigger ${trigger('update')} after update of title, description on ${sql.id(table)}
      when not ${listed('old')} begin
      delete from ${fts} where rowid = old.rowid;
      insert into ${pending}(id, workspace) values (new.rowid, ${workspaceOf('new')});
    end`.execute(db);
    await sql`insert into ${pending}(id, workspace) select t.rowid, ${workspaceOf('t')} from ${sql.id(table)} t`.execute(
      db,
    );
  }
}

async function dropSqliteSearch(db: Kysely<unknown>, table: string): Promise<void> {
  for (const suffix of ['insert', 'delete', 'update'])
    await sql`drop trigger if exists ${sql.id(`${table}_fts_${suffix}`)}`.execute(db);
  await sql`drop table if exists ${sql.id(`${table}_fts_pending`)}`.execute(db);
  await sql`drop table if exists ${sql.id(`${table}_fts`)}`.execute(db);
}

async function scopePostgresIndexes(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists btree_gin`.execute(db);
  for (const [table, column] of TRIGRAM_INDEXED) {
    const index = sql.id(`${table}_${column}_ws_trgm`);
    await sql`drop index if exists ${sql.id(`${table}_${column}_trgm`)}`.execute(db);
    await sql`create index ${index} on ${sql.id(table)}
      using gin (workspace_id, lower(${sql.id(column)}) gin_trgm_ops)`.execute(db);
    // Column 2 is the searched expression (0020_search_statistics says why 1,000).
    await sql`alter index ${index} alter column 2 set statistics 1000`.execute(db);
  }
}

/**
 * SQLite: indexes every listed row, a batch per transaction, before the store is served.
 * PostgreSQL: the new expressions' statistics (an ANALYZE inside the migrations'
 * transaction samples at the old target).
 */
export async function afterCommit(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return indexAllListedRows(db as Kysely<DB>);
  for (const table of ANALYZED) await sql`analyze ${sql.id(table)}`.execute(db);
}

/** Back to the indexes of 0011_text_search and 0021_search_backlog, over every workspace at once. */
export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    for (const [table, column] of TRIGRAM_INDEXED) {
      const index = sql.id(`${table}_${column}_trgm`);
      await sql`drop index if exists ${sql.id(`${table}_${column}_ws_trgm`)}`.execute(db);
      await sql`create index ${index} on ${sql.id(table)} using gin (lower(${sql.id(column)}) gin_trgm_ops)`.execute(
        db,
      );
      await sql`alter index ${index} alter column 1 set statistics 1000`.execute(db);
    }
    return;
  }
  for (const table of SEARCHED_TABLES) {
    await dropSqliteSearch(db, table);
    const fts = sql.id(`${table}_fts`);
    const pending = sql.id(`${table}_fts_pending`);
    const trigger = (suffix: string) => sql.id(`${table}_fts_${suffix}`);
    const unlisted = (row: string) =>
      sql.raw(`not exists (select 1 from "${table}_fts_pending" where id = ${row}.rowid)`);
    await sql`create virtual table ${fts} using fts5(title, description, content=${sql.lit(table)}, tokenize='trigram')`.execute(
      db,
    );
    await sql`create table ${pending} (id integer primary key)`.execute(db);
    await sql`create trigger ${trigger('insert')} after insert on ${sql.id(table)} begin
      insert or ignore into ${pending}(id) values (new.rowid);
    end`.execute(db);
    await sql`create trigger ${trigger('delete')} after delete on ${sql.id(table)} begin
      insert into ${fts}(${fts}, rowid, title, description)
        select 'delete', old.rowid, old.title, old.description where ${unlisted('old')};
      delete from ${pending} where id = old.rowid;
    end`.execute(db);
    await sql`create trigger ${trigger('update')} after update of title, description on ${sql.id(table)}
      when ${unlisted('old')} begin
      insert into ${fts}(${fts}, rowid, title, description) values ('delete', old.rowid, old.title, old.description);
      insert or ignore into ${pending}(id) values (new.rowid);
    end`.execute(db);
    await sql`insert into ${fts}(${fts}) values ('rebuild')`.execute(db);
  }
}
