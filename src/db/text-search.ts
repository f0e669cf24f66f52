import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DialectName } from './database.js';
import type { DB } from './schema.js';
import { allTerms, distinctiveTrigrams, termOf, TRIGRAM } from './search-terms.js';

/** The SQL function each SQLite connection gets (connect.ts) that lower-cases as JavaScript does. */
export const FOLD_CASE = 'wsx_fold_case';

/**
 * Case-insensitive "contains" over one text column, the same on SQLite and PostgreSQL.
 * LIKE wildcards in the search text are escaped, so `q=50%` finds "50%" literally; a null
 * column matches nothing. On PostgreSQL `lower(column) like …` is what the pg_trgm indexes
 * of migration 0025 answer; on SQLite, whose lower() folds ASCII only, the column is folded
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

/** How a list finds the rows that contain a text. */
export interface TextMatch {
  /** Whether a row (by the list's alias) contains the text. */
  where: RawBuilder<boolean>;
  /**
   * Set when `where` can only be answered by testing rows one by one: a page then reads at
   * most this many rows of the list, in its order (db/paginate.ts), and may end short with
   * a cursor to go on from. Unset: an index answers `where` (SQLite: a bounded set of
   * candidates).
   */
  window?: number;
}

/** The most rows of a list one page of a search tests one by one: a few milliseconds of work. */
export const SEARCH_WINDOW = 1_000;

/**
 * The most rows a search takes from the index (or from the rows waiting for it) to test
 * exactly. A trigram matched more often in the caller's workspace makes the search test
 * rows in page order instead, within SEARCH_WINDOW.
 */
export const FEW_CANDIDATES = 1_000;

/** Trigrams of the text asked of an index: enough to narrow a phrase, few enough to bound the work. */
const ASKED_TRIGRAMS = 4;

type SearchContext = { db: Kysely<DB>; dialect: DialectName; workspace: { id: string } };

/**
 * Whether the row's title or description contains the text, case-insensitively, and how
 * the list must read it. A text shorter than a trigram has no index to answer it, on either
 * store: rows are compared in page order, SEARCH_WINDOW at most per page. Longer ones are
 * looked up in the caller's workspace's part of the trigram indexes, by a few of their
 * trigrams, and the rows found are compared.
 */
export async function titleOrDescriptionMatch(
  ctx: SearchContext,
  table: SearchedTable,
  alias: string,
  text: string,
): Promise<TextMatch> {
  const compared = (row: string) =>
    sql<boolean>`(${containsText(ctx.dialect, `${row}.title`, text)} or ${containsText(ctx.dialect, `${row}.description`, text)})`;
  const folded = text.toLowerCase();
  if ([...folded].length < TRIGRAM) return { where: compared(alias), window: SEARCH_WINDOW };
  if (ctx.dialect === 'sqlite') return sqliteMatch(ctx, table, alias, folded, compared);
  return { where: postgresMatch(alias, folded) ?? compared(alias) };
}

/**
 * The most characters of a text asked of PostgreSQL's trigram indexes, which read one entry
 * per trigram of the pattern (hundreds for a 500-character phrase). A pattern this long
 * still tells PostgreSQL's estimate of how many rows match (from its sample of the column,
 * 0020_search_statistics) about as much as the whole text, and that estimate is what makes
 * it choose between the index and a walk of the list.
 */
const PATTERN_CHARS = 32;

/**
 * PostgreSQL: the pg_trgm indexes (led by the workspace, migration 0025) answer
 * `lower(column) like '%…%'`. A text longer than PATTERN_CHARS is asked by its first
 * PATTERN_CHARS characters, the whole text compared by `strpos`, which no index answers,
 * on the rows they find. Undefined for a text short enough to be asked whole.
 */
function postgresMatch(alias: string, folded: string): RawBuilder<boolean> | undefined {
  const chars = [...folded];
  if (chars.length <= PATTERN_CHARS) return undefined;
  const start = chars.slice(0, PATTERN_CHARS).join('');
  const holds = (column: string) =>
    sql<boolean>`(${containsText('postgres', column, start)} and strpos(lower(${sql.ref(column)}), ${folded}) > 0)`;
  return sql<boolean>`(${holds(`${alias}.title`)} or ${holds(`${alias}.description`)})`;
}

/**
 * SQLite: the table's FTS5 index, whose terms are trigrams of the caller's workspace
 * (db/search-terms.ts), is asked how many rows hold each of a few of the text's trigrams
 * (counting at most FEW_CANDIDATES + 1), so no other workspace's rows are read. If one is
 * rare, the rows holding all of them, with the workspace's rows not indexed yet
 * (`<table>_fts_pending`, db/search-backlog.ts), are the candidates whose columns are then
 * compared. Otherwise (only frequent trigrams, a long backlog) rows are compared in page
 * order, SEARCH_WINDOW at most per page.
 */
async function sqliteMatch(
  ctx: SearchContext,
  table: SearchedTable,
  alias: string,
  folded: string,
  compared: (row: string) => RawBuilder<boolean>,
): Promise<TextMatch> {
  const workspace = await workspaceNumber(ctx.db, ctx.workspace.id);
  if (workspace === undefined) return { where: sql<boolean>`0` };
  const terms = distinctiveTrigrams(folded, ASKED_TRIGRAMS).map((trigram) => termOf(workspace, trigram));
  const index = sql.id(`${table}_fts`);
  const listed = sql.id(`${table}_fts_pending`);
  const holding = (expression: string) => sql`select rowid as id from ${index} where ${index} match ${expression}`;
  const waiting = sql`select id from ${listed} where workspace = ${workspace}`;
  const upTo = (rows: RawBuilder<unknown>) =>
    sql<number>`(select count(*) from (${rows} limit ${sql.lit(FEW_CANDIDATES + 1)}))`;
  const counts = terms.map((term, n) => sql`${upTo(holding(allTerms([term])))} as ${sql.id(`t${n}`)}`);
  const row = await sql<Record<string, number>>`select ${sql.join([...counts, sql`${upTo(waiting)} as listed`])}`
    .execute(ctx.db)
    .then((result) => result.rows[0]);
  const fewest = Math.min(...terms.map((_, n) => Number(row[`t${n}`])));
  if (fewest > FEW_CANDIDATES || Number(row.listed) > FEW_CANDIDATES)
    return { where: compared(alias), window: SEARCH_WINDOW };

  // A trigram no indexed row of the workspace holds: only the rows waiting to be indexed can match.
  const found = fewest === 0 ? waiting : sql`${holding(allTerms(terms))} union all ${waiting}`;
  // CROSS JOIN: the candidates drive the join (left to itself SQLite may walk the table).
  return {
    where: sql<boolean>`${sql.ref(`${alias}.rowid`)} in (select c.rowid from (${found}) as found
      cross join ${sql.id(table)} as c on c.rowid = found.id where ${compared('c')})`,
  };
}

/** The number the search index knows a workspace by: its rowid (migration 0025_search_scope). */
async function workspaceNumber(db: Kysely<DB>, workspaceId: string): Promise<number | undefined> {
  const { rows } = await sql<{ n: number }>`select rowid as n from workspaces where id = ${workspaceId}`.execute(db);
  return rows[0]?.n;
}
