import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * `issues.link_count`: how many link sides (`issue_links` rows) name the issue as theirs,
 * kept by triggers on `issue_links`, so no code path can forget it, and checked by
 * `checkStore` (db/integrity/check.ts).
 *
 * A page of issues tells which of its issues have links, so that it reads their links only
 * when some do. It asked with an `exists` subquery per issue, and PostgreSQL planned that
 * subquery as a scan of `issue_links` while the table was empty or small, restarting the scan
 * for each of the page's rows: almost half of PostgreSQL's CPU a page (docs/performance.md).
 * The count is a column of the row the page already reads.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('issues')
    .addColumn('link_count', 'integer', (column) =>
      column
        .notNull()
        .defaultTo(0)
        .check(sql`link_count >= 0`),
    )
    .execute();
  await sql`update issues set link_count = (select count(*) from issue_links l where l.issue_id = issues.id)
    where exists (select 1 from issue_links l where l.issue_id = issues.id)`.execute(db);
  const add = (row: 'new' | 'old', delta: '+ 1' | '- 1') =>
    sql.raw(`update issues set link_count = link_count ${delta} where id = ${row}.issue_id;`);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create function issue_links_count() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then ${add('old', '- 1')} end if;
        if tg_op in ('INSERT', 'UPDATE') then ${add('new', '+ 1')} end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger issue_links_count after insert or delete or update of issue_id on issue_links
      for each row execute function issue_links_count()`.execute(db);
    return;
  }
  await sql`create trigger issue_links_count_insert after insert on issue_links begin ${add('new', '+ 1')} end`.execute(
    db,
  );
  await sql`create trigger issue_links_count_delete after delete on issue_links begin ${add('old', '- 1')} end`.execute(
    db,
  );
  await sql`create trigger issue_links_count_update after update of issue_id on issue_links begin
    ${add('old', '- 1')} ${add('new', '+ 1')}
  end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger if exists issue_links_count on issue_links`.execute(db);
    await sql`drop function if exists issue_links_count()`.execute(db);
  } else {
    for (const suffix of ['insert', 'delete', 'update'])
      await sql`drop trigger if exists ${sql.id(`issue_links_count_${suffix}`)}`.execute(db);
  }
  await db.schema.alterTable('issues').dropColumn('link_count').execute();
}
