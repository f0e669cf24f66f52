import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/connect.js';
import type { Database } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { indexAllListedRows } from '../../../src/db/search-backlog.js';
import { titleOrDescriptionMatch } from '../../../src/db/text-search.js';
import { migratedTo, seededIssue, seedWorkspace } from '../../support/older-store.js';

/**
 * Migration 0025_search_scope on a SQLite store made before it: the index is built again
 * from every row, workspace by workspace, and the triggers (made after 0024_foreign_keys
 * may have made the tables anew) keep it in step from then on.
 */

let database: Database;
let db: Kysely<any>;

const issue = (slug: string, number: number, title: string) => seededIssue(slug, number, title);

/** The titles of the workspace's issues that contain the text, and whether the index answered. */
async function search(slug: string, text: string) {
  const match = await titleOrDescriptionMatch({ ...database, workspace: { id: `ws_${slug}` } }, 'issues', 'i', text);
  const { rows } = await sql<{ title: string }>`select i.title from issues i
    where i.workspace_id = ${`ws_${slug}`} and ${match.where} order by i.title`.execute(db);
  return { titles: rows.map((row) => row.title), fromIndex: match.window === undefined };
}

const count = async (table: string) =>
  Number((await sql<{ n: number }>`select count(*) as n from ${sql.id(table)}`.execute(db)).rows[0].n);

beforeAll(async () => {
  database = await openDatabase('sqlite::memory:');
  db = database.db as Kysely<any>;
});
afterAll(() => database.close());

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('migration 0025 on an older SQLite store', () => {
  it('indexes every existing row by its workspace, and keeps following writes', async () => {
    await migratedTo(database, '0023_outbox_time_index');
    for (const slug of ['acme', 'globex']) await seedWorkspace(db, slug);
    await db
      .insertInto('issues')
      .values([issue('acme', 1, 'Acme needle'), issue('acme', 2, 'Acme hay'), issue('globex', 1, 'Globex needle')])
      .execute();
    // Half of them indexed the old way, half still listed.
    await sql`insert into issues_fts(issues_fts) values ('rebuild')`.execute(db);
    await sql`delete from issues_fts_pending where id <> (select rowid from issues where id = 'iss_acme_2')`.execute(
      db,
    );

    expect((await migrateToLatest(database)).includes('0025_search_scope')).toBe(true);
    expect(await count('issues_fts_pending')).toBe(0);
    expect(await count('issues_fts')).toBe(3);
    expect(await search('acme', 'NEEDLE')).toEqual({ titles: ['Acme needle'], fromIndex: true });
    expect(await search('globex', 'needle')).toEqual({ titles: ['Globex needle'], fromIndex: true });

    await db
      .insertInto('issues')
      .values(issue('acme', 3, 'Second needle'))
      .execute();
    await db.updateTable('issues').set({ title: 'Acme straw' }).where('id', '=', 'iss_acme_1').execute();
    await db.deleteFrom('issues').where('id', '=', 'iss_globex_1').execute();
    expect(await count('issues_fts_pending')).toBe(2);
    expect(await search('acme', 'needle')).toEqual({ titles: ['Second needle'], fromIndex: true });
    await indexAllListedRows(database.db);
    expect(await count('issues_fts_pending')).toBe(0);
    expect(await count('issues_fts')).toBe(3);
    expect(await search('acme', 'needle')).toEqual({ titles: ['Second needle'], fromIndex: true });
    expect(await search('acme', 'straw')).toEqual({ titles: ['Acme straw'], fromIndex: true });
    expect(await search('globex', 'needle')).toEqual({ titles: [], fromIndex: true });
    await sql`insert into issues_fts(issues_fts) values ('integrity-check')`.execute(db);
  });
});
