import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from './database.js';

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
export type SearchedTable = 'issues' | 'meetings' | 'discussion_topics';

/** The trigram tokenizer indexes runs of three characters: shorter texts cannot use it. */
const TRIGRAM = 3;

/**
 * Whether the row's title or description contains the text, case-insensitively. On SQLite a
 * text of three characters or more is looked up in the table's FTS5 trigram index (a phrase
 * there is a substring); shorter texts, and PostgreSQL, compare the columns (PostgreSQL
 * through its trigram indexes).
 */
export function titleOrDescriptionContains(
  dialect: DialectName,
  table: SearchedTable,
  alias: string,
  text: string,
): RawBuilder<boolean> {
  if (dialect === 'sqlite' && [...text].length >= TRIGRAM) {
    const index = sql.id(`${table}_fts`);
    const phrase = `"${text.replace(/"/g, '""')}"`;
    return sql<boolean>`${sql.ref(`${alias}.rowid`)} in (select rowid from ${index} where ${index} match ${phrase})`;
  }
  const inColumn = (column: string) => containsText(dialect, `${alias}.${column}`, text);
  return sql<boolean>`(${inColumn('title')} or ${inColumn('description')})`;
}
