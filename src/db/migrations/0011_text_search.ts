import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Indexes for `q=` searches, so a substring search no longer reads every row.
 *
 * PostgreSQL: pg_trgm GIN indexes on `lower(column)`, which `lower(column) like '%…%'` uses
 * for patterns of three characters or more.
 *
 * SQLite: one FTS5 table per searched table with the `trigram` tokenizer (substring matches,
 * case-insensitive), holding no text of its own (`content=`): it indexes the table's rows by
 * rowid and triggers keep it in step. Short columns searched alone (container names,
 * milestone titles) stay a scan: they are read per project, never across a workspace.
 */
/** The tables whose title and description `q=` searches (db/text-search.ts). */
const SEARCHED_COLUMNS: Record<string, readonly string[]> = {
  issues: ['title', 'description'],
  meetings: ['title', 'description'],
  discussion_topics: ['title', 'description'],
};

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create extension if not exists pg_trgm`.execute(db);
    for (const [table, columns] of Object.entries(TRIGRAM_INDEXED))
      for (const column of columns) {
        const index = sql.id(`${table}_${column}_trgm`);
        await sql`create index ${index} on ${sql.id(table)} using gin (lower(${sql.id(column)}) gin_trgm_ops)`.execute(
          db,
        );
      }
    return;
  }
  for (const [table, columns] of Object.entries(SEARCHED_COLUMNS)) {
    const fts = sql.id(`${table}_fts`);
    const list = sql.join(columns.map((c) => sql.id(c)));
    const values = (row: 'new' | 'old') => sql.join(columns.map((c) => sql.raw(`${row}.${c}`)));
    const trigger = (suffix: string) => sql.id(`${table}_fts_${suffix}`);
    await sql`create virtual table ${fts} using fts5(${list}, content=${sql.lit(table)}, tokenize='trigram')`.execute(
      db,
    );
    await sql`create trigger ${trigger('insert')} after insert on ${sql.id(table)} begin
      insert into ${fts}(rowid, ${list}) values (new.rowid, ${values('new')});
    end`.execute(db);
    await sql`create trigger ${trigger('delete')} after delete on ${sql.id(table)} begin
      insert into ${fts}(${fts}, rowid, ${list}) values ('delete', old.rowid, ${values('old')});
    end`.execute(db);
    await sql`create trigger ${trigger('update')} after update of ${list} on ${sql.id(table)} begin
      insert into ${fts}(${fts}, rowid, ${list}) values ('delete', old.rowid, ${values('old')});
      insert into ${fts}(rowid, ${list}) values (new.rowid, ${values('new')});
    end`.execute(db);
    await sql`insert into ${fts}(${fts}) values ('rebuild')`.execute(db);
  }
}

/** On PostgreSQL every searched column is indexed, the short ones too. */
const TRIGRAM_INDEXED: Record<string, readonly string[]> = {
  ...SEARCHED_COLUMNS,
  issue_containers: ['name'],
  milestones: ['title'],
};

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const [table, columns] of Object.entries(TRIGRAM_INDEXED))
      for (const column of columns) await sql`drop index if exists ${sql.id(`${table}_${column}_trgm`)}`.execute(db);
    return;
  }
  for (const [table] of Object.entries(SEARCHED_COLUMNS)) {
    for (const suffix of ['insert', 'delete', 'update'])
      await sql`drop trigger if exists ${sql.id(`${table}_fts_${suffix}`)}`.execute(db);
    await sql`drop table if exists ${sql.id(`${table}_fts`)}`.execute(db);
  }
}
