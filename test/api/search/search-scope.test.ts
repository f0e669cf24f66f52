import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catchUpSearchIndexes } from '../../../src/db/search-backlog.js';
import { termOf } from '../../../src/db/search-terms.js';
import { SEARCH_WINDOW } from '../../../src/db/text-search.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * A search reads the caller's workspace only, and a bounded amount of it: on SQLite the
 * index's terms are qualified by the workspace and a search asks for at most four of them,
 * the rows it then compares are few or a window of the list; on PostgreSQL the trigram
 * indexes lead with the workspace and a long phrase is asked by its first 32 characters. A
 * text of one or two characters, which no index answers, is compared within a window of
 * the list on both. Whatever the text (a long phrase, one or two characters, LIKE
 * wildcards, FTS5 syntax) it is a literal, case-insensitive substring.
 */

const sqlite = !process.env.TEST_DATABASE_URL;
let h: Harness;
const API = '/api/external';
const call = (method: string, path: string, body?: unknown, token = TOKENS.admin) =>
  h.call(method, `${API}${path}`, { token, body });

interface Page {
  titles: string[];
  hasMore: boolean;
  nextCursor: string | null;
}
const page = async (path: string, list = 'issues', token = TOKENS.admin): Promise<Page> => {
  const reply = await call('GET', path, undefined, token);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return {
    titles: (reply.body[list] as Array<{ title: string }>).map((row) => row.title).sort(),
    hasMore: reply.body.pageInfo.hasMore,
    nextCursor: reply.body.pageInfo.nextCursor,
  };
};
const issues = async (q: string, token = TOKENS.admin) =>
  (await page(`/issues?q=${encodeURIComponent(q)}&limit=100`, 'issues', token)).titles;

/** Every page of a search, following the cursors: its titles and how many pages it took. */
const everyPage = async (q: string) => {
  const titles: string[] = [];
  let pages = 0;
  for (let cursor: string | null = null; pages === 0 || cursor; pages++) {
    const next: Page = await page(
      `/issues?q=${encodeURIComponent(q)}&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    titles.push(...next.titles);
    cursor = next.hasMore ? next.nextCursor : null;
  }
  return { titles: titles.sort(), pages };
};

const create = async (title: string, description: string | null = null, token = TOKENS.admin) => {
  const reply = await call('POST', '/issues', { title, description, projectKey: 'API', teamKey: 'ENG' }, token);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
};
const createMany = async (titles: string[], token = TOKENS.admin) => {
  for (let start = 0; start < titles.length; start += 50) {
    const batch = titles.slice(start, start + 50).map((title) => ({ title, projectKey: 'API', teamKey: 'ENG' }));
    const reply = await call('POST', '/issues/bulk', { issues: batch }, token);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  }
};

/** The statements (text and parameters) the store ran during `work`. */
const statementsOf = async (work: () => Promise<unknown>) => {
  const ran: Array<{ text: string; parameters: readonly unknown[] }> = [];
  const stop = h.database.statements.observe((text, parameters) => ran.push({ text, parameters }));
  try {
    await work();
  } finally {
    stop();
  }
  return ran;
};
const planOf = async (statement: { text: string; parameters: readonly unknown[] }) =>
  (
    await h.database.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${statement.text}`, [...statement.parameters]),
    )
  ).rows
    .map((row) => row.detail)
    .join('\n');

const workspaceNumber = async (slug: string) =>
  Number(
    (await sql<{ n: number }>`select rowid as n from workspaces where slug = ${slug}`.execute(h.database.db)).rows[0].n,
  );

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
});
afterAll(() => h.close());

describe.skipIf(!sqlite)('one workspace never reads another (SQLite)', () => {
  /** The FTS5 terms a set of statements asked the issues index for. */
  const askedTerms = (ran: Array<{ text: string; parameters: readonly unknown[] }>) =>
    ran
      .filter(({ text }) => text.includes('"issues_fts" match'))
      .flatMap(({ parameters }) => parameters.filter((value): value is string => typeof value === 'string'))
      .filter((value) => value.startsWith('"'))
      .flatMap((expression) => [...expression.matchAll(/"([^"]+)"/g)].map((match) => match[1]));
  /** The rows the index lists under a term: what reading that term costs. */
  const listedUnder = async (term: string) =>
    (
      await sql<{ id: number }>`select rowid as id from issues_fts where issues_fts match ${`"${term}"`}`.execute(
        h.database.db,
      )
    ).rows.map((row) => row.id);

  it('asks only its own workspace’s terms, whose lists hold none of the other workspace’s rows', async () => {
    await createMany(
      Array.from({ length: 60 }, (_, n) => `Globex needle ${n}`),
      TOKENS.globex,
    );
    await create('Acme needle');
    await catchUpSearchIndexes(h.database);
    const acme = await workspaceNumber('acme');
    const globexRows = new Set(
      (
        await sql<{ id: number }>`select i.rowid as id from issues i join workspaces w on w.id = i.workspace_id
          where w.slug = 'globex'`.execute(h.database.db)
      ).rows.map((row) => row.id),
    );

    let titles: string[] = [];
    const ran = await statementsOf(async () => (titles = await issues('NEEDLE')));
    expect(titles).toEqual(['Acme needle']);
    const terms = askedTerms(ran);
    expect(terms.length).toBeGreaterThan(0);
    const own = ['nee', 'eed', 'edl', 'dle'].map((trigram) => termOf(acme, trigram));
    for (const term of terms) {
      expect(own).toContain(term);
      expect((await listedUnder(term)).filter((id) => globexRows.has(id))).toEqual([]);
    }
    // The rows waiting to be indexed are read by the caller's workspace number, through its index.
    const waiting = ran.filter(({ text }) => text.includes('"issues_fts_pending" where workspace = ?'));
    expect(waiting.length).toBeGreaterThan(0);
    for (const statement of waiting) {
      expect(statement.parameters).toContain(acme);
      expect(await planOf(statement)).toMatch(/issues_fts_pending USING COVERING INDEX issues_fts_pending_workspace/);
    }

    // More of the other workspace's rows change nothing of what this search reads.
    const readBefore = await Promise.all(terms.map(listedUnder));
    await createMany(
      Array.from({ length: 60 }, (_, n) => `Globex needle again ${n}`),
      TOKENS.globex,
    );
    await catchUpSearchIndexes(h.database);
    const again = await statementsOf(async () => expect(await issues('needle')).toEqual(['Acme needle']));
    expect(askedTerms(again)).toEqual(terms);
    expect(await Promise.all(terms.map(listedUnder))).toEqual(readBefore);
  });

  it('drives its page from the candidates, never a walk of the table', async () => {
    const ran = await statementsOf(() => issues('acme needle'));
    const pageQuery = ran.find(
      ({ text }) => text.includes('from "issues" as "i"') && text.includes('"issues_fts" match'),
    );
    if (!pageQuery) throw new Error('no page query');
    const plan = await planOf(pageQuery);
    expect(plan).toMatch(/SCAN issues_fts VIRTUAL TABLE INDEX \d+:M/);
    expect(plan).toMatch(/SEARCH c USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(plan).not.toMatch(/SCAN i\b/);
  });

  it('asks at most four terms of a 500-character phrase', async () => {
    const phrase = 'fix crash when loading dashboard improve search latency add export to csv refactor '
      .repeat(7)
      .slice(0, 500);
    const ran = await statementsOf(() => issues(phrase));
    const matches = ran.flatMap(({ parameters }) =>
      parameters.filter((value): value is string => typeof value === 'string' && value.startsWith('"')),
    );
    expect(matches.length).toBeGreaterThan(0);
    for (const expression of matches) expect(expression.match(/"[^"]+"/g)?.length).toBeLessThanOrEqual(4);
    expect(new Set(askedTerms(ran)).size).toBeLessThanOrEqual(4);
  });
});

describe('long phrases', () => {
  const phrase = 'Fix crash when loading the dashboard, improve search latency, add export to CSV; '
    .repeat(7)
    .slice(0, 500);
  beforeAll(async () => {
    await create('Long phrase holder', `Intro. ${phrase} Outro.`);
    // The same words in another order: every trigram of the phrase, but not the phrase.
    await create('Same words', phrase.split(' ').reverse().join(' '));
  });

  it('finds a 500-character phrase as a substring, whatever its case, and nothing that only shares its trigrams', async () => {
    expect(await issues(phrase)).toEqual(['Long phrase holder']);
    expect(await issues(phrase.toUpperCase())).toEqual(['Long phrase holder']);
    expect(await issues(`${phrase.slice(0, 499)}!`)).toEqual([]);
  });
});

describe('short texts and LIKE wildcards', () => {
  beforeAll(async () => {
    await create('50% done');
    await create('snake_case name');
    await create('back\\slash');
  });

  it('treats % and _ as characters', async () => {
    expect(await issues('%')).toEqual(['50% done']);
    expect(await issues('_')).toEqual(['snake_case name']);
    expect(await issues('0%')).toEqual(['50% done']);
    expect(await issues('e_c')).toEqual(['snake_case name']);
    expect(await issues('%_')).toEqual([]);
    expect(await issues('\\')).toEqual(['back\\slash']);
  });

  it(`reads at most ${SEARCH_WINDOW} rows of the list for a page of a 1–2 character search, and goes on from there`, async () => {
    await create('Rare zq at the end of the list');
    await createMany(Array.from({ length: SEARCH_WINDOW + 50 }, (_, n) => `Filler ${n}`));
    await catchUpSearchIndexes(h.database);
    // The newest SEARCH_WINDOW rows hold no "zq": the page ends there, empty, and says where to go on.
    const first = await page(`/issues?q=zq&limit=50`);
    expect(first.titles).toEqual([]);
    expect(first.hasMore).toBe(true);
    expect(first.nextCursor).toBeTruthy();
    const all = await everyPage('zq');
    expect(all.titles).toEqual(['Rare zq at the end of the list']);
    expect(all.pages).toBeLessThanOrEqual(3);
    // A rare trigram is answered from the index on the first page, whatever the window.
    expect((await page(`/issues?q=${encodeURIComponent(' zq at')}&limit=50`)).titles).toEqual([
      'Rare zq at the end of the list',
    ]);
  });

  it('pages a frequent text within the window, each row once', async () => {
    const all = await everyPage('filler 1');
    // "Filler 1", "Filler 10"…"Filler 19", "Filler 100"…"Filler 199", "Filler 1000"…"Filler 1049".
    expect(all.titles).toHaveLength(1 + 10 + 100 + 50);
    expect(new Set(all.titles).size).toBe(all.titles.length);
  });
});

describe('FTS5 syntax and quotes are text', () => {
  const titles = [
    'Say "hello" twice',
    'glob a*b pattern',
    'NEAR(alpha beta) clause',
    'minus -flag option',
    'column:value pair',
    '^caret start',
    '(parens) group',
    'this AND that OR NOT other',
    "it's an apostrophe",
  ];
  beforeAll(async () => {
    for (const title of titles) await create(title);
  });

  it.each([
    ['"hello"', ['Say "hello" twice']],
    ['"', ['Say "hello" twice']],
    ['""', []],
    ['a*b', ['glob a*b pattern']],
    ['*', ['glob a*b pattern']],
    ['near(alpha', ['NEAR(alpha beta) clause']],
    ['NEAR', ['NEAR(alpha beta) clause']],
    ['-flag', ['minus -flag option']],
    ['n:v', ['column:value pair']],
    ['column:', ['column:value pair']],
    ['^caret', ['^caret start']],
    ['(parens)', ['(parens) group']],
    [' AND that OR NOT ', ['this AND that OR NOT other']],
    ["it's", ["it's an apostrophe"]],
    ['"a" OR "b"', []],
    ['{col}: *', []],
  ])('q=%s', async (q, expected) => {
    expect(await issues(q)).toEqual(expected);
  });

  it('never fails on odd text', async () => {
    for (const q of ['"""', "'", '\\"', 'AND', 'OR', 'NOT', '*"*', ')', '(', ':', '^', '-', '+', '\u0000x', '😀😀']) {
      const reply = await call('GET', `/issues?q=${encodeURIComponent(q)}`);
      expect([200, 400], `${q}: ${JSON.stringify(reply.body)}`).toContain(reply.status);
    }
  });

  it('folds outside ASCII, astral characters included', async () => {
    const title = '\u0130stanbul \u039f\u0394\u039f\u03a3 \u{1f600} emoji';
    await create(title);
    expect(await issues('\u{1f600} EMO')).toEqual([title]);
    // SQLite folds as JavaScript does (PostgreSQL as its lower() does): İ to i and a
    // combining dot, a final capital sigma to ς.
    if (!sqlite) return;
    expect(await issues('\u0069\u0307stanbul')).toEqual([title]);
    expect(await issues('\u03bf\u03b4\u03bf\u03c2')).toEqual([title]);
  });
});

describe('meetings and topics of another workspace', () => {
  it('are never found', async () => {
    const globexProject = (
      await sql<{ id: string }>`select p.id from projects p join workspaces w on w.id = p.workspace_id
        where w.slug = 'globex'`.execute(h.database.db)
    ).rows[0].id;
    const meeting = await call(
      'POST',
      '/meetings',
      { title: 'Globex haystack sync', projectId: globexProject },
      TOKENS.globex,
    );
    expect(meeting.status, JSON.stringify(meeting.body)).toBe(201);
    const group = await call('POST', '/discussion', { name: 'Globex group' }, TOKENS.globex);
    expect(group.status).toBe(201);
    const topic = await call(
      'POST',
      '/discussion/topics',
      { groupId: group.body.group.groupId, title: 'Globex haystack topic', description: 'Hay', tags: ['haystack'] },
      TOKENS.globex,
    );
    expect(topic.status, JSON.stringify(topic.body)).toBe(201);
    await catchUpSearchIndexes(h.database);
    for (const q of ['haystack', 'ha']) {
      expect((await page(`/meetings?q=${q}`, 'meetings')).titles).toEqual([]);
      expect((await page(`/discussion/topics?q=${q}`, 'topics')).titles).toEqual([]);
      expect((await page(`/meetings?q=${q}`, 'meetings', TOKENS.globex)).titles).toEqual(['Globex haystack sync']);
      expect((await page(`/discussion/topics?q=${q}`, 'topics', TOKENS.globex)).titles).toEqual([
        'Globex haystack topic',
      ]);
    }
  });
});

describe.skipIf(sqlite)('trigram indexes led by the workspace (PostgreSQL)', () => {
  it('indexes every searched expression after workspace_id', async () => {
    const { rows } = await sql<{ definition: string }>`
      select pg_get_indexdef(c.oid) as definition from pg_class c
      where c.relkind = 'i' and c.relnamespace = current_schema()::regnamespace
        and pg_get_indexdef(c.oid) like '%gin_trgm_ops%' order by c.relname`.execute(h.database.db);
    expect(rows).toHaveLength(8);
    for (const { definition } of rows)
      expect(definition).toMatch(/USING gin \(workspace_id, lower\(\w+\) gin_trgm_ops\)/);
  });

  it('asks the trigram indexes for the first 32 characters of a long phrase, and compares the phrase itself', async () => {
    const phrase = 'fix crash when loading dashboard improve search latency add export to csv refactor '
      .repeat(7)
      .slice(0, 500);
    const ran = await statementsOf(() => issues(phrase));
    const pageQuery = ran.find(({ text }) => /from "issues" as "i"/.test(text) && / like /.test(text));
    if (!pageQuery) throw new Error('no page query');
    const patterns = pageQuery.parameters.filter((value) => typeof value === 'string' && value.startsWith('%'));
    // One per column: title and description.
    expect(patterns).toEqual([`%${phrase.slice(0, 32)}%`, `%${phrase.slice(0, 32)}%`]);
    expect(pageQuery.text).toMatch(/strpos\(lower\("i"\."title"\), \$\d+\) > 0/);
    expect(pageQuery.parameters).toContain(phrase.toLowerCase());
  });

  it('scans issues through indexes within the workspace only', async () => {
    await sql`analyze issues`.execute(h.database.db);
    const ran = await statementsOf(() => issues('needle'));
    const pageQuery = ran.find(({ text }) => /from "issues" as "i"/.test(text) && / like /.test(text));
    if (!pageQuery) throw new Error('no page query');
    const plan = await h.database.db.transaction().execute(async (trx) => {
      // The test's tables are small enough for a sequential scan: ask for an index's plan.
      await sql`set local enable_seqscan = off`.execute(trx);
      const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain ${pageQuery.text}`, [...pageQuery.parameters]),
      );
      return rows.map((row) => row['QUERY PLAN']);
    });
    const scans = plan.flatMap((line, n) => (/Scan.* \bissues_\w+/.test(line) ? [[line, plan[n + 1]]] : []));
    expect(scans.length, plan.join('\n')).toBeGreaterThan(0);
    for (const [scan, condition] of scans) expect(condition, scan).toMatch(/Index Cond: .*workspace_id = /);
  });
});
