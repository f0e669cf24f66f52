import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { indexAllListedRows, indexListedRows, startSearchIndexing } from '../../src/db/search-backlog.js';
import { allTerms, rowTerms } from '../../src/db/search-terms.js';
import { titleOrDescriptionMatch } from '../../src/db/text-search.js';
import { buildApp } from '../../src/server/app.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * SQLite adds written rows to its trigram indexes in batches (db/search-backlog.ts,
 * migration 0021): a row not indexed yet is found all the same, and once indexed it is
 * found once, with its current text, and the index agrees with the table row for row.
 */

let h: Harness;
let projectId: string;
const API = '/api/external';
const call = (method: string, path: string, body?: unknown) =>
  h.call(method, `${API}${path}`, { token: TOKENS.admin, body });
const found = async (path: string, list: string) => {
  const reply = await call('GET', path);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return (reply.body[list] as Array<{ title: string }>).map((row) => row.title).sort();
};
const issues = (q: string) => found(`/issues?q=${encodeURIComponent(q)}&limit=100`, 'issues');
const meetings = (q: string) => found(`/meetings?q=${encodeURIComponent(q)}&limit=100`, 'meetings');
const listed = async (table: string) =>
  Number(
    (await sql<{ n: number }>`select count(*) as n from ${sql.id(`${table}_fts_pending`)}`.execute(h.database.db))
      .rows[0]?.n,
  );
/**
 * FTS5 checks its own structure; the index holds no text to check it against the table, so
 * every row not listed (and long enough to hold a trigram) must be in it, holding the terms
 * of its current text (db/search-terms.ts), and nothing else may be.
 */
const indexAgreesWithTable = async (table: string) => {
  const db = h.database.db;
  const fts = sql.id(`${table}_fts`);
  await sql`insert into ${fts}(${fts}) values ('integrity-check')`.execute(db);
  const { rows } = await sql<{ id: number; workspace: number; title: string; description: string | null }>`
    select t.rowid as id, w.rowid as workspace, t.title, t.description
    from ${sql.id(table)} t join workspaces w on w.id = t.workspace_id
    where not exists (select 1 from ${sql.id(`${table}_fts_pending`)} p where p.id = t.rowid)`.execute(db);
  const expected = rows
    .map((row) => ({ ...row, terms: rowTerms(row.workspace, [row.title, row.description]) }))
    .filter((row) => row.terms !== '');
  const indexed = await sql<{ id: number }>`select rowid as id from ${fts}`.execute(db);
  expect(indexed.rows.map((row) => row.id).sort()).toEqual(expected.map((row) => row.id).sort());
  for (const row of expected) {
    const every = allTerms(row.terms.split(' '));
    // An integer: FTS5 takes no rowid bound from a REAL, which a JavaScript number is bound as.
    const found =
      await sql`select 1 from ${fts} where ${fts} match ${every} and rowid = cast(${row.id} as integer)`.execute(db);
    expect(found.rows, row.title).toHaveLength(1);
  }
};

beforeAll(async () => {
  h = await startHarness([ACME]);
  projectId = (await h.apply(ACME)).projects['ENG/API'];
});
afterAll(() => h.close());

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('search indexes kept in batches (SQLite)', () => {
  it('finds an issue before and after it is indexed, with its current text only', async () => {
    const created = await call('POST', '/issues', { title: 'Zebra crossing', description: 'Stripes', projectId });
    expect(created.status).toBe(201);
    expect(await listed('issues')).toBeGreaterThan(0);
    expect(await issues('ZEBRA')).toEqual(['Zebra crossing']);
    expect(await issues('stripes')).toEqual(['Zebra crossing']);

    await indexAllListedRows(h.database.db);
    expect(await listed('issues')).toBe(0);
    await indexAgreesWithTable('issues');
    expect(await issues('zebra')).toEqual(['Zebra crossing']);

    // An indexed row that changes leaves the index with its old text and is listed again.
    const { issueId } = created.body.issue;
    expect((await call('PATCH', `/issues/${issueId}`, { title: 'Okapi habitat' })).status).toBe(200);
    expect(await listed('issues')).toBe(1);
    expect(await issues('zebra')).toEqual([]);
    expect(await issues('okapi')).toEqual(['Okapi habitat']);
    // A listed row that changes again is indexed with its latest text.
    expect((await call('PATCH', `/issues/${issueId}`, { title: 'Tapir trail', description: 'Mud' })).status).toBe(200);
    expect(await listed('issues')).toBe(1);
    await indexAllListedRows(h.database.db);
    await indexAgreesWithTable('issues');
    expect(await issues('okapi')).toEqual([]);
    expect(await issues('stripes')).toEqual([]);
    expect(await issues('tapir')).toEqual(['Tapir trail']);
    expect(await issues('mud')).toEqual(['Tapir trail']);
  });

  it('indexes more rows than one batch holds, each once', async () => {
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, n) => call('POST', '/issues', { title: `Heron ${n}`, projectId })),
    );
    expect(made.map((reply) => reply.status)).toEqual(made.map(() => 201));
    expect(await listed('issues')).toBe(12);
    expect(await indexListedRows(h.database.db, 'issues', 5)).toBe(5);
    expect(await listed('issues')).toBe(7);
    // Half indexed, half listed: every one is found, none twice.
    expect(await issues('heron')).toHaveLength(12);
    await indexAllListedRows(h.database.db);
    await indexAgreesWithTable('issues');
    expect(await issues('heron')).toEqual(Array.from({ length: 12 }, (_, n) => `Heron ${n}`).sort());
  });

  it('forgets a deleted row, listed or indexed', async () => {
    const meeting = async (title: string) => {
      const reply = await call('POST', '/meetings', { title, description: 'Quarterly', projectId });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.meeting.meetingId as string;
    };
    const indexed = await meeting('Budget review');
    await indexAllListedRows(h.database.db);
    const waiting = await meeting('Budget forecast');
    expect(await listed('meetings')).toBe(1);
    expect(await meetings('budget')).toEqual(['Budget forecast', 'Budget review']);
    for (const meetingId of [indexed, waiting])
      expect((await call('DELETE', `/meetings/${meetingId}`)).status).toBe(204);
    expect(await listed('meetings')).toBe(0);
    expect(await meetings('budget')).toEqual([]);
    expect(await meetings('quarterly')).toEqual([]);
    await indexAgreesWithTable('meetings');
  });

  it('is emptied by the background workers by themselves', async () => {
    const created = await call('POST', '/issues', { title: 'Ibis nest', projectId });
    expect(created.status).toBe(201);
    expect(await listed('issues')).toBe(1);
    const server = await buildApp({
      database: h.database,
      config: { ...loadConfig({}), rateLimitPerMinute: 0 },
      workers: true,
    });
    try {
      await server.ready();
      await expect.poll(() => listed('issues')).toBe(0);
      await indexAgreesWithTable('issues');
      expect(await issues('IBIS NEST')).toEqual(['Ibis nest']);
    } finally {
      await server.close();
    }
  });

  it('reports a failure that lasts once, and again only after a pass has succeeded', async () => {
    const db = h.database.db;
    const away = () => sql`alter table meetings_fts_pending rename to meetings_fts_pending_away`.execute(db);
    const back = () => sql`alter table meetings_fts_pending_away rename to meetings_fts_pending`.execute(db);
    const errors: unknown[] = [];
    // Every pass starts by looking at the issues' list: a count of passes.
    let passes = 0;
    const stopCounting = h.database.statements.observe((text) => {
      if (text.startsWith('select 1 from "issues_fts_pending"')) passes++;
    });
    await away();
    const indexing = startSearchIndexing(h.database, (error) => errors.push(error));
    try {
      await expect.poll(() => errors.length).toBe(1);
      const failedOnce = passes;
      await expect.poll(() => passes).toBeGreaterThanOrEqual(failedOnce + 3);
      expect(errors).toHaveLength(1);
      await back();
      // A row to index: once it is off the list, a pass has succeeded.
      expect((await call('POST', '/meetings', { title: 'Egret survey', projectId })).status).toBe(201);
      await expect.poll(() => listed('meetings')).toBe(0);
      expect(errors).toHaveLength(1);
      await away();
      await expect.poll(() => errors.length).toBe(2);
      expect(String(errors[1])).toMatch(/meetings_fts_pending/);
    } finally {
      stopCounting();
      await indexing.stop();
      if (errors.length === 2) await back();
    }
  });

  // With statistics that say the table is large and the list unknown, SQLite planned both
  // joins as a walk of the whole table; CROSS JOIN makes the list drive them. The search
  // reads the caller's workspace's range of the list only.
  it('walks the list, never the table, to search or index the rows not indexed yet', async () => {
    await sql`analyze`.execute(h.database.db);
    const plan = async (text: string, parameters: readonly unknown[]) =>
      (
        await h.database.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${text}`, [...parameters]),
        )
      ).rows
        .map((row) => row.detail)
        .join('\n');
    const workspace = await h.database.db.selectFrom('workspaces').select('id').executeTakeFirstOrThrow();
    const match = await titleOrDescriptionMatch({ ...h.database, workspace }, 'issues', 'i', 'rare words');
    expect(match.window).toBeUndefined();
    const search = h.database.db.selectFrom('issues as i').select('i.id').where(match.where).compile();
    const searchPlan = await plan(search.sql, search.parameters);
    expect(searchPlan).toMatch(
      /SEARCH issues_fts_pending USING COVERING INDEX issues_fts_pending_workspace \(workspace=\?\)/,
    );
    expect(searchPlan).toMatch(/SEARCH c USING INTEGER PRIMARY KEY \(rowid=\?\)/);

    const statements: Array<{ text: string; parameters: readonly unknown[] }> = [];
    const stop = h.database.statements.observe((text, parameters) => statements.push({ text, parameters }));
    try {
      expect((await call('POST', '/issues', { title: 'Plover', projectId })).status).toBe(201);
      expect(await indexListedRows(h.database.db, 'issues')).toBe(1);
    } finally {
      stop();
    }
    // The batch's rows are read with their text, to build their terms.
    const indexing = statements.find(({ text }) => /^\s*select p\.id, p\.workspace/.test(text));
    if (!indexing) throw new Error(`no indexing statement among ${statements.map(({ text }) => text).join('\n')}`);
    const indexPlan = await plan(indexing.text, indexing.parameters);
    expect(indexPlan).toMatch(/SEARCH p USING INTEGER PRIMARY KEY \(rowid<\?\)/);
    expect(indexPlan).toMatch(/SEARCH t USING INTEGER PRIMARY KEY \(rowid=\?\)/);
  });
});
