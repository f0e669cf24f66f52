import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DialectName } from './database.js';
import type { DB } from './schema.js';

/** The SQL function each SQLite connection gets (connect.ts) that lower-cases as JavaScript does. */
export const FOLD_CASE = 'wsx_fold_case';

/**
 * Case-insensitive "contains" over one text column, the same on SQLite and PostgreSQL.
 * LIKE wildcards in the search text are escaped, so `q=50%` finds "50%" literally; a null
 * column matches nothing. On PostgreSQL `lower(column) like …` is what the pg_trgm indexes
 * of migration 0011 answer; on SQLite, whose lower() folds ASCII only, the column is folded
 * as the search text is.
 */
export function containsText(dialect: DialectName, column: string, text: string): RawBuilder<boolean> {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const fold = dialect === 'sqlite' ? sql.raw(FOLD_CASE) : sql.raw('lower');
  return sql<boolean>`${fold}(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/** The tables with a title and description that `q=` searches through an index. */
export const SEARCHED_TABLES = ['issues', 'meetings', 'discussion_topics'] as const;
export type SearchedTable = (typeof SEARCHED_TABLES)[number];

/** The trigram tokenizer indexes runs of three characters: shorter texts cannot use it. */
const TRIGRAM = 3;

/**
 * Up to this many index matches, a page is read by sorting the matches; past it, by walking
 * the table in page order and testing each row, which reaches a page of a frequent word
 * after a few hundred rows instead of sorting tens of thousands.
 */
const FEW_MATCHES = 2_000;

/**
 * Whether the row's title or description contains the text, case-insensitively.
 *
 * On SQLite a text of three characters or more is first looked up in the table's FTS5
 * trigram index (a phrase there is a substring), counting at most FEW_MATCHES matches: a
 * rare text is then answered from the index, and from the rows not indexed yet
 * (`<table>_fts_pending`, db/search-backlog.ts), whose columns are compared; a frequent one
 * by testing rows in page order. Shorter texts compare the columns. On PostgreSQL the
 * columns are compared, through the pg_trgm indexes.
 */
export async function titleOrDescriptionContains(
  ctx: { db: Kysely<DB>; dialect: DialectName },
  table: SearchedTable,
  alias: string,
  text: string,
): Promise<RawBuilder<boolean>> {
  const inColumns = (row: string) =>
    sql<boolean>`(${containsText(ctx.dialect, `${row}.title`, text)} or ${containsText(ctx.dialect, `${row}.description`, text)})`;
  const compared = inColumns(alias);
  if (ctx.dialect !== 'sqlite' || [...text].length < TRIGRAM) return compared;
  const index = sql.id(`${table}_fts`);
  const phrase = `"${text.replace(/"/g, '""')}"`;
  const { matches } = await sql<{
    matches: number;
  }>`select count(*) as matches from (select rowid from ${index} where ${index} match ${phrase} limit ${FEW_MATCHES})`
    .execute(ctx.db)
    .then((result) => result.rows[0]);
  if (matches >= FEW_MATCHES) return compared;
  const listed = sql.id(`${table}_fts_pending`);
  // CROSS JOIN makes SQLite walk the (short) list and look each row up; left to itself it
  // walked the whole table and looked each row up in the list, which it takes to be as long.
  return sql<boolean>`${sql.ref(`${alias}.rowid`)} in (select rowid from ${index} where ${index} match ${phrase}
    union all select unindexed.rowid from ${listed} cross join ${sql.id(table)} as unindexed on unindexed.rowid = ${listed}.id
      where ${inColumns('unindexed')})`;
}
