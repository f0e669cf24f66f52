import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * SQLite: rows reach the FTS5 trigram indexes of 0011_text_search in batches instead of one
 * by one in the write that changes them.
 *
 * FTS5 writes a new index segment at every commit that adds to it, and merges segments as
 * they pile up: indexing one issue in its create's transaction was the largest single part
 * of what SQLite did for the create (docs/performance.md). Now a created row, and an indexed
 * row whose title or description changes, is listed in `<table>_fts_pending` (a one-column
 * table, one small b-tree write); the server indexes the listed rows' current text a batch
 * at a time and empties the list (db/search-backlog.ts), and a search compares the listed
 * rows' columns directly beside the index (db/text-search.ts), so it finds them at once, as
 * before.
 *
 * A row in the index is removed from it with its old text when it changes or is deleted
 * (FTS5 needs that text to remove it); a listed row is not in the index, so it is only
 * taken off the list. PostgreSQL's pg_trgm indexes need none of this.
 */
const SEARCHED_TABLES = ['issues', 'meetings', 'discussion_topics'] as const;

interface SearchedNames {
  table: RawBuilder<unknown>;
  fts: RawBuilder<unknown>;
  pending: RawBuilder<unknown>;
  trigger: (suffix: 'insert' | 'delete' | 'update') => RawBuilder<unknown>;
}

/** On SQLite, `work` for each searched table, once its FTS triggers are dropped (each direction makes its own). */
async function withTriggersDropped(
  db: Kysely<unknown>,
  work: (names: SearchedNames, table: string) => Promise<void>,
): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  for (const table of SEARCHED_TABLES) {
    const trigger = (suffix: string) => sql.id(`${table}_fts_${suffix}`);
    for (const suffix of ['insert', 'delete', 'update'])
      await sql`drop trigger if exists ${trigger(suffix)}`.execute(db);
    const names = {
      table: sql.id(table),
      fts: sql.id(`${table}_fts`),
      pending: sql.id(`${table}_fts_pending`),
      trigger,
    };
    await work(names, table);
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await withTriggersDropped(db, async ({ table, fts, pending, trigger }, name) => {
    const unlisted = (row: 'old' | 'new') =>
      sql.raw(`not exists (select 1 from "${name}_fts_pending" where id = ${row}.rowid)`);
    await sql`create table ${pending} (id integer primary key)`.execute(db);
    await sql`create trigger ${trigger('insert')} after insert on ${table} begin
      insert or ignore into ${pending}(id) values (new.rowid);
    end`.execute(db);
    await sql`create trigger ${trigger('delete')} after delete on ${table} begin
      insert into ${fts}(${fts}, rowid, title, description)
        select 'delete', old.rowid, old.title, old.description where ${unlisted('old')};
      delete from ${pending} where id = old.rowid;
    end`.execute(db);
    await sql`create trigger ${trigger('update')} after update of title, description on ${table}
      when ${unlisted('old')} begin
      insert into ${fts}(${fts}, rowid, title, description) values ('delete', old.rowid, old.title, old.description);
      insert or ignore into ${pending}(id) values (new.rowid);
    end`.execute(db);
  });
}

/** Back to indexing in the write: what is still listed is indexed first. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await withTriggersDropped(db, async ({ table, fts, pending, trigger }) => {
    const values = (row: 'new' | 'old') => sql.raw(`${row}.title, ${row}.description`);
    await sql`insert into ${fts}(rowid, title, description)
      select t.rowid, t.title, t.description from ${pending} p join ${table} t on t.rowid = p.id`.execute(db);
    await sql`drop table ${pending}`.execute(db);
    await sql`create trigger ${trigger('insert')} after insert on ${table} begin
      insert into ${fts}(rowid, title, description) values (new.rowid, ${values('new')});
    end`.execute(db);
    await sql`create trigger ${trigger('delete')} after delete on ${table} begin
      insert into ${fts}(${fts}, rowid, title, description) values ('delete', old.rowid, ${values('old')});
    end`.execute(db);
    await sql`create trigger ${trigger('update')} after update of title, description on ${table} begin
      insert into ${fts}(${fts}, rowid, title, description) values ('delete', old.rowid, ${values('old')});
      insert into ${fts}(rowid, title, description) values (new.rowid, ${values('new')});
    end`.execute(db);
  });
}
