import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startCountingHarness, type CountingHarness } from '../support/statements.js';

/**
 * The hot requests agents run in loops cost a fixed, small number of statements, counted as
 * the driver runs them (authentication, BEGIN and COMMIT included). A figure over these
 * bounds means a re-read or a per-row query crept into a hot path.
 */

let h: CountingHarness;
let acme: Awaited<ReturnType<CountingHarness['apply']>>;
const API = '/api/external';
const measure = (method: string, path: string, body?: unknown, token = TOKENS.admin) =>
  h.measure(method, `${API}${path}`, { token, body });
/**
 * The second of two identical calls: one-off work (a first prepare, a cache fill) is not
 * counted. The counting harness keeps a credential cached for the whole file, so the second
 * call reads it only if its path reads the credential every time.
 */
const measureWarm = async (method: string, path: string, body?: unknown, token = TOKENS.admin) => {
  await measure(method, path, body, token);
  return measure(method, path, body, token);
};
const texts = (statements: Array<{ sql: string }>) => statements.map((s) => s.sql).join('\n');

let issueKey: string;
let aliceId: string;

beforeAll(async () => {
  h = await startCountingHarness([ACME]);
  acme = await h.apply(ACME);
  aliceId = acme.users.alice;
  for (let n = 0; n < 3; n++) {
    const created = await measure('POST', '/issues', { title: `Seed ${n}`, projectKey: 'API', assigneeId: aliceId });
    expect(created.reply.status).toBe(201);
    issueKey = created.reply.body.issue.issueKey;
  }
});
afterAll(() => h.close());

describe('statements per hot request', () => {
  it('reads an issue by key, with its links, in one statement once the credential is cached', async () => {
    for (const token of [TOKENS.admin, TOKENS.bot]) {
      const { reply, statements } = await measureWarm('GET', `/issues/by-key/${issueKey}`, undefined, token);
      expect(reply.status).toBe(200);
      expect(reply.body.issue.issueKey).toBe(issueKey);
      expect(statements.length, texts(statements)).toBe(1);
    }
  });

  it('lists issues by assignee in one statement when none of them has a link, authentication included', async () => {
    for (const token of [TOKENS.admin, TOKENS.bot]) {
      const { reply, statements } = await measureWarm(
        'GET',
        `/issues?limit=50&assigneeId=${aliceId}`,
        undefined,
        token,
      );
      expect(reply.status).toBe(200);
      expect(reply.body.issues.length).toBe(3);
      expect(statements.length, texts(statements)).toBe(1);
      // Which issues have links comes from their own count, not a subquery per row (migration 0029).
      expect(texts(statements)).not.toMatch(/issue_links/);
    }
  });

  it('lists issues in two statements when one of them has links, and presents those links', async () => {
    const seeds = (await measure('GET', `/issues?limit=50&assigneeId=${aliceId}`)).reply.body.issues;
    const [from, to] = seeds;
    const linked = await measure('POST', `/issues/${from.issueId}/links`, {
      type: 'blocks',
      targetIssueId: to.issueId,
    });
    expect(linked.reply.status).toBe(201);
    const { reply, statements } = await measureWarm('GET', `/issues?limit=50&assigneeId=${aliceId}`);
    expect(reply.status).toBe(200);
    const byId = new Map(reply.body.issues.map((issue: { issueId: string }) => [issue.issueId, issue]));
    expect(byId.get(from.issueId)).toMatchObject({ links: [{ type: 'blocks', targetIssueKey: to.issueKey }] });
    expect(byId.get(to.issueId)).toMatchObject({ links: [{ type: 'blocked_by', targetIssueKey: from.issueKey }] });
    expect(statements.length, texts(statements)).toBe(2);
  });

  // Every read of issues names the columns presentation reads (issues.repository.ts,
  // RECORD_COLUMNS): the workspace, key team and number a create writes are never sent back.
  it('selects only the issue columns a page and a read by key present', async () => {
    for (const path of [`/issues?limit=50&assigneeId=${aliceId}`, `/issues/by-key/${issueKey}`]) {
      const { reply, statements } = await measureWarm('GET', path);
      expect(reply.status).toBe(200);
      const read = statements.find((statement) => statement.sql.includes('from "issues" as "i"'));
      expect(read, texts(statements)).toBeDefined();
      const selected = read!.sql.slice(0, read!.sql.indexOf('from "issues" as "i"'));
      expect(selected).toContain('"i"."title"');
      for (const unpresented of ['"i".*', '"i"."workspace_id"', '"i"."key_team_id"', '"i"."number"'])
        expect(selected, `${path}: ${selected}`).not.toContain(unpresented);
    }
  });

  // PostgreSQL plans `limit $1` as if a tenth of the table were kept, so a named statement
  // never settled on one plan and every page was planned anew (src/db/paginate.ts, fetchLimit).
  it('writes the LIMIT of a page into its statement, rounded up to a few page sizes', async () => {
    const pageStatement = async (path: string) => {
      const { reply, statements } = await measureWarm('GET', path);
      expect(reply.status).toBe(200);
      // The last: a search first counts its matches (a bounded count of its own).
      const page = statements.filter((statement) => / limit /i.test(statement.sql)).at(-1);
      expect(page, texts(statements)).toBeDefined();
      return page!.sql;
    };
    const cases: Array<[string, string]> = [
      [`/issues?limit=50&assigneeId=${aliceId}`, 'limit 51'],
      [`/issues?limit=2&assigneeId=${aliceId}`, 'limit 6'],
      ['/issues?limit=200', 'limit 201'],
      ['/projects?limit=7', 'limit 11'],
      ['/events?limit=3', 'limit 6'],
    ];
    for (const [path, limit] of cases) {
      const text = await pageStatement(path);
      expect(text.trim().endsWith(limit), `${path}: ${text}`).toBe(true);
    }
    // A text search keeps its LIMIT a parameter: PostgreSQL plans each run for its text.
    for (const path of ['/issues?limit=30&q=Seed', '/meetings?limit=30&q=Seed', '/discussion/topics?limit=30&q=Seed'])
      expect(await pageStatement(path), path).toMatch(/ limit (\?|\$\d+)$/);
    const pages = (await measure('GET', `/issues?limit=2&assigneeId=${aliceId}`)).reply.body;
    expect(pages.issues).toHaveLength(2);
    expect(pages.pageInfo.hasMore).toBe(true);
  });

  // PostgreSQL adds the workspace's write clock, which puts its writes in commit order and
  // sets the write's plan setting in the same statement (src/db/write-clock.ts), and takes the
  // team's issue number inside the insert; SQLite serialises writes itself and takes the
  // number first. The project's lookup reads the assignee's membership too
  // (projects.repository.ts).
  it('creates an issue with an assignee in at most 6 statements on either store, BEGIN and COMMIT included', async () => {
    const projectId = acme.projects['ENG/API'];
    await measure('POST', '/issues', { title: 'Warm', projectId, assigneeId: aliceId });
    const { reply, statements } = await measure('POST', '/issues', {
      title: 'Counted',
      projectId,
      assigneeId: aliceId,
    });
    expect(reply.status).toBe(201);
    expect(reply.body.issue).toMatchObject({ title: 'Counted', assigneeId: aliceId });
    expect(statements.length, texts(statements)).toBeLessThanOrEqual(6);
  });

  // A create's checks change nothing (checkCreate in src/modules/issues/issues.service.ts), so
  // creates that wait together on PostgreSQL check one after the other without a savepoint and
  // then share their insert: whatever a check runs must be a read.
  it('runs only reads before a create writes its issue: its checks change nothing', async () => {
    const { reply, statements } = await measure('POST', '/issues', {
      title: 'Checked',
      projectId: acme.projects['ENG/API'],
      assigneeId: aliceId,
    });
    expect(reply.status).toBe(201);
    const sqls = statements.map((s) => s.sql.trim().toLowerCase());
    const firstWrite = sqls.findIndex((text) => /^(with .*)?(insert into|update) "(issues|teams)"/s.test(text));
    expect(firstWrite, texts(statements)).toBeGreaterThan(0);
    const checks = sqls
      .slice(0, firstWrite)
      .filter((text) => !/^(begin|update "workspaces" set "write_clock_ms")/.test(text));
    expect(checks.length, texts(statements)).toBeGreaterThan(0);
    for (const text of checks) expect(text, texts(statements)).toMatch(/^select /);
    // Nor do they read what the shared insert and the events write.
    for (const text of checks) expect(text, texts(statements)).not.toMatch(/"(issues|outbox_events|tag_usages)"/);
  });

  // On PostgreSQL the creates that waited for the workspace's order share one insert of their
  // issues (src/db/postgres/workspace-groups.ts); each still records its own event.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'inserts the issues of creates sent together on PostgreSQL in fewer statements than creates',
    async () => {
      const projectId = acme.projects['ENG/API'];
      const seen: string[] = [];
      const stop = h.database.statements.observe((sql) => seen.push(sql.trim()));
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, n) =>
          h.call('POST', `${API}/issues`, { token: TOKENS.admin, body: { title: `Together ${n}`, projectId } }),
        ),
      );
      stop();
      expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 201));
      const inserts = (table: string) =>
        seen.filter((text) => new RegExp(`^(with .*)?insert into "${table}"`, 'is').test(text));
      expect(inserts('issues').length, seen.join('\n')).toBeLessThan(10);
      expect(inserts('outbox_events').length, seen.join('\n')).toBe(10);
    },
  );

  // A bulk is one write: items naming the same project and assignee share the project's read
  // (ProjectLookups in src/modules/issues/issues.service.ts); another assignee is another read.
  it('reads a project once for the items of a bulk that name it with the same assignee', async () => {
    const projectId = acme.projects['ENG/API'];
    const items = (count: number, assigneeId: string) =>
      Array.from({ length: count }, (_, n) => ({ title: `Bulk ${n}`, projectId, assigneeId }));
    const { reply, statements } = await measure('POST', '/issues/bulk', {
      issues: [...items(4, aliceId), ...items(2, acme.users.carol)],
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body.issues.map((issue: { assigneeId: string }) => issue.assigneeId)).toEqual([
      ...Array(4).fill(aliceId),
      ...Array(2).fill(acme.users.carol),
    ]);
    const projectReads = statements.filter((s) => /^select .* from "projects"/is.test(s.sql.trim()));
    expect(projectReads.length, texts(statements)).toBe(2);
  });

  // A bulk checks every item, then inserts the issues of each key team and their events as
  // multi-row statements (insertCheckedCreates in src/modules/issues/issues.service.ts).
  it('inserts the issues of a bulk of 12 in one statement and their events in another', async () => {
    const projectId = acme.projects['ENG/API'];
    const issues = Array.from({ length: 12 }, (_, n) => ({ title: `Rows ${n}`, projectId }));
    const { reply, statements } = await measure('POST', '/issues/bulk', { issues });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body.issues).toHaveLength(12);
    const inserts = (table: string) =>
      statements.filter((s) => new RegExp(`^(with .*)?insert (or rollback )?into "${table}"`, 'is').test(s.sql.trim()));
    expect(inserts('issues').length, texts(statements)).toBe(1);
    expect(inserts('outbox_events').length, texts(statements)).toBe(1);
    expect(statements.length, texts(statements)).toBeLessThanOrEqual(8);
  });

  it('updates a bulk of 12 in one statement an item, reading their issues once, inserting title changes and events once', async () => {
    const projectId = acme.projects['ENG/API'];
    const created = await measure('POST', '/issues/bulk', {
      issues: Array.from({ length: 12 }, (_, n) => ({ title: `Retitled ${n}`, projectId })),
    });
    expect(created.reply.status).toBe(201);
    const keys = (created.reply.body.issues as Array<{ issueKey: string }>).map((issue) => issue.issueKey);
    const { reply, statements } = await measure('PATCH', '/issues/bulk', {
      issues: keys.map((issueKey, n) => ({ issueKey, title: `Retitled again ${n}` })),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.issues.map((issue: { issueKey: string }) => issue.issueKey)).toEqual(keys);
    const matching = (pattern: RegExp) => statements.filter((s) => pattern.test(s.sql.trim())).length;
    // Once before the first item is written, once for the answers and events after the last.
    expect(matching(/^select "i"\."id", "i"\."issue_key"/), texts(statements)).toBe(2);
    expect(matching(/^update "issues"/), texts(statements)).toBe(12);
    expect(matching(/^(with .*)?insert into "outbox_events"/s), texts(statements)).toBe(1);
    // The 12 title changes go in together after the last item (SharedByItems).
    expect(matching(/^insert into "issue_evolutions"/), texts(statements)).toBe(1);
    // Kept aside safely only while no item reads them: nothing before that insert names the table.
    const evolutionsInsert = statements.findIndex((s) => /^insert into "issue_evolutions"/.test(s.sql.trim()));
    const lastUpdate = statements.map((s) => /^update "issues"/.test(s.sql.trim())).lastIndexOf(true);
    expect(evolutionsInsert, texts(statements)).toBeGreaterThan(lastUpdate);
    expect(
      statements.slice(0, evolutionsInsert).filter((s) => s.sql.includes('issue_evolutions')),
      texts(statements),
    ).toEqual([]);
    // Each item: its update; the project of all 12 is read once.
    expect(statements.length, texts(statements)).toBeLessThanOrEqual(12 + 9);
  });

  // The clock's row lock orders the workspace's writes until commit: a write takes it first
  // (src/operations/execute.ts), so every check it makes reads the workspace in that order.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'takes the write clock of a create on PostgreSQL first in its transaction, and reads nothing outside it',
    async () => {
      const { reply, statements } = await measure('POST', '/issues', {
        title: 'Ordered',
        projectId: acme.projects['ENG/API'],
        assigneeId: aliceId,
      });
      expect(reply.status).toBe(201);
      const sqls = statements.map((s) => s.sql.trim().toLowerCase());
      expect(sqls[0], texts(statements)).toBe('begin');
      expect(sqls[1], texts(statements)).toMatch(/^update "workspaces" set "write_clock_ms"/);
      expect(sqls[1], texts(statements)).toMatch(/set_config\('enable_seqscan', 'off', true\)/);
      expect(sqls.at(-1), texts(statements)).toBe('commit');
      expect(reply.body.issue.issueKey).toMatch(/^ENG-\d+$/);
    },
  );

  it('reads an agenda in the same few statements for 2 items as for 12, each with an owner and a link', async () => {
    const projectId = acme.projects['ENG/API'];
    const meetingId = (await measure('POST', '/meetings', { title: 'Agenda', projectId })).reply.body.meeting.meetingId;
    const addItems = async (count: number) => {
      for (let n = 0; n < count; n++) {
        const item = await measure('POST', `/meetings/${meetingId}/agenda-items`, { title: `Item ${n}` });
        expect(item.reply.status).toBe(201);
        const itemPath = `/meetings/${meetingId}/agenda-items/${item.reply.body.agendaItem.agendaItemId}`;
        expect((await measure('POST', `${itemPath}/owners`, { externalName: `Guest ${n}` })).reply.status).toBe(201);
        const link = await measure('POST', `${itemPath}/links`, { targetType: 'issue', targetId: issueKey });
        expect(link.reply.status).toBe(201);
      }
    };
    const read = () => measureWarm('GET', `/meetings/${meetingId}/agenda-items`);
    await addItems(2);
    const few = await read();
    expect(few.reply.body.agendaItems).toHaveLength(2);
    await addItems(10);
    const many = await read();
    expect(many.reply.body.agendaItems).toHaveLength(12);
    expect(many.statements.length, texts(many.statements)).toBe(few.statements.length);
    expect(many.statements.length, texts(many.statements)).toBeLessThanOrEqual(7);
  });
});
