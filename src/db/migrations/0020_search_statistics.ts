import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL: a finer sample for the searched expressions (`lower(title)` and the like, the
 * columns of the trigram indexes of 0011_text_search), so the planner can tell a common
 * phrase from a rare one.
 *
 * PostgreSQL estimates `lower(title) like '%…%'` by trying the pattern on the column's
 * histogram, which holds 101 sampled values at the default statistics target: a phrase
 * found in none of them is taken to match 0.01 % of the rows. A phrase of a few percent of
 * a million issues was then planned as a trigram bitmap scan that reads and sorts every
 * match to return the newest 50, far slower than walking the newest issues until 50 match.
 * With 1,001 values a phrase of 0.1 % or more is seen in the sample and estimated within a
 * few percent. ANALYZE then samples 300,000 rows of a table instead of 30,000, which takes
 * longer but is done by autovacuum in the background.
 *
 * SQLite answers `q=` from FTS5 tables (0011_text_search) and plans without this: nothing
 * to do there.
 */
const SEARCH_INDEXES = [
  'issues_title_trgm',
  'issues_description_trgm',
  'meetings_title_trgm',
  'meetings_description_trgm',
  'discussion_topics_title_trgm',
  'discussion_topics_description_trgm',
  'issue_containers_name_trgm',
  'milestones_title_trgm',
];

const TABLES = ['issues', 'meetings', 'discussion_topics', 'issue_containers', 'milestones'];

const setTarget = async (db: Kysely<unknown>, target: number) => {
  for (const index of SEARCH_INDEXES)
    await sql`alter index ${sql.id(index)} alter column 1 set statistics ${sql.lit(target)}`.execute(db);
};

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await setTarget(db, 1000);
}

/**
 * Gathers the statistics of the existing rows at the new target, once the migrations'
 * transaction has committed (db/migrate.ts): an ANALYZE in the transaction that set the
 * target still samples 101 values. Without it a store would wait for autovacuum's next
 * pass, which waits for a tenth of the table to change.
 */
export async function afterCommit(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of TABLES) await sql`analyze ${sql.id(table)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  // -1: the default target again.
  await setTarget(db, -1);
}
