import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { patFor, startHarness, type Harness } from '../../support/harness.js';

/** GET /issues: filters, visibility, order and pagination (docs/api.md, "Issue list filters"). */
const EXTRA = {
  workspace: { slug: 'acme', name: 'Acme' },
  users: ACME.users,
  teams: [{ key: 'QA', name: 'Quality', members: ['carol'] }],
  projects: [{ team: 'QA', key: 'API', name: 'QA API' }],
  tokens: [{ name: 'ops-bot', secret: patFor('ops-bot'), projects: ['OPS/INFRA'] }],
};

describe('GET /issues', () => {
  let listed: Harness;
  let listIds: { users: Record<string, string>; teams: Record<string, string>; projects: Record<string, string> };
  const list = (query: string, token = TOKENS.admin) => listed.call('GET', `/api/external/issues${query}`, { token });
  const keys = async (query: string, token = TOKENS.admin) => {
    const reply = await list(query, token);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.issues.map((i: { title: string }) => i.title);
  };

  beforeAll(async () => {
    listed = await startHarness([ACME, GLOBEX]);
    const acme = await listed.apply(ACME);
    const extra = await listed.apply(EXTRA);
    listIds = {
      users: acme.users,
      teams: { ...acme.teams, ...extra.teams },
      projects: { ...acme.projects, ...extra.projects },
    };
    const make = async (body: Record<string, unknown>, token = TOKENS.admin) => {
      const reply = await listed.call('POST', '/api/external/issues', { token, body });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.issue;
    };
    await make({
      title: 'api one',
      projectKey: 'API',
      teamKey: 'ENG',
      assigneeId: 'api-token:bot',
      description: 'Needle in the body',
    });
    await make({
      title: 'api two',
      projectKey: 'API',
      teamKey: 'ENG',
      statusKey: 'in-progress',
      assigneeId: listIds.users.alice,
    });
    await make({ title: 'web one 100%', projectKey: 'WEB', assigneeId: listIds.users.alice });
    await make({ title: 'infra one', projectKey: 'INFRA', assigneeId: 'api-token:ops-bot' });
    await make({ title: 'qa api', projectKey: 'API', teamKey: 'QA' });
    const archived = await make({ title: 'api archived', projectKey: 'API', teamKey: 'ENG' });
    await listed.call('PATCH', `/api/external/issues/${archived.issueId}`, {
      token: TOKENS.admin,
      body: { archived: true },
    });
    await make({ title: 'globex', projectKey: 'API' }, TOKENS.globex);
  });
  afterAll(async () => listed?.close());

  it('lists active issues newest first with links and pageInfo', async () => {
    const reply = await list('');
    expect(reply.body.pageInfo).toEqual({ hasMore: false, nextCursor: null, limit: 50 });
    expect(reply.body.issues.map((i: { title: string }) => i.title)).toEqual([
      'qa api',
      'infra one',
      'web one 100%',
      'api two',
      'api one',
    ]);
    expect(reply.body.issues[0].links).toEqual([]);
    expect(await keys('?archived=true')).toEqual(['api archived']);
  });

  it('filters by project, team, assignee, status and text', async () => {
    expect(await keys('?project=API&team=ENG')).toEqual(['api two', 'api one']);
    expect(await keys(`?project=${listIds.projects['ENG/API']}`)).toEqual(['api two', 'api one']);
    expect(await keys('?team=QA')).toEqual(['qa api']);
    expect(await keys(`?team=${listIds.teams.OPS}`)).toEqual(['infra one']);
    expect(await keys('?assignee=api-token:bot')).toEqual(['api one']);
    expect(await keys(`?assigneeId=${listIds.users.alice}`)).toEqual(['web one 100%', 'api two']);
    expect(await keys('?statusKey=in-progress')).toEqual(['api two']);
    expect(await keys('?status=todo&team=ENG')).toEqual(['web one 100%', 'api one']);
    expect(await keys('?q=NEEDLE')).toEqual(['api one']);
    expect(await keys('?q=100%25')).toEqual(['web one 100%']);
    expect(await keys('?q=%25')).toEqual(['web one 100%']);
    expect(await keys('?q=qa-1')).toEqual(['qa api']);
  });

  it("answers assignedToMe with the caller's identity", async () => {
    expect(await keys('?assignedToMe=true', TOKENS.bot)).toEqual(['api one']);
    expect(await keys('?assignedToMe=true', TOKENS.alice)).toEqual(['web one 100%', 'api two']);
    const conflict = await list('?assignedToMe=true&assigneeId=api-token:bot', TOKENS.bot);
    expect([conflict.status, conflict.body.code]).toEqual([400, 'ASSIGNEE_FILTER_CONFLICT']);
    expect((await list('?assignedToMe=true&assignee=x')).body.code).toBe('ASSIGNEE_FILTER_CONFLICT');
  });

  it('answers the filter codes for unknown or hidden references', async () => {
    expect((await list('?project=NOPE')).body.code).toBe('PROJECT_NOT_FOUND');
    expect((await list('?project=API')).body.code).toBe('PROJECT_KEY_AMBIGUOUS');
    expect((await list('?project=INFRA', TOKENS.bot)).body.code).toBe('PROJECT_NOT_FOUND');
    expect((await list('?team=NOPE')).body.code).toBe('TEAM_NOT_FOUND');
    expect((await list('?status=nope')).body.code).toBe('STATUS_NOT_FOUND');
    expect((await list('?archived=maybe')).body.code).toBe('VALIDATION_FAILED');
    expect((await list('?assignee=api-token:bot&assigneeId=api-token:admin')).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'assigneeId' },
    });
    expect((await list('?status=todo&statusKey=done')).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'statusKey' },
    });
  });

  it('shows only what the credential may see', async () => {
    expect(await keys('?project=API', TOKENS.bot)).toEqual(['api two', 'api one']);
    expect(await keys('', TOKENS.bot)).toEqual(['api two', 'api one']);
    expect(await keys('', TOKENS.globex)).toEqual(['globex']);
    expect(await keys('', TOKENS.idle)).toEqual([]);
  });

  it('pages with cursors bound to the filters', async () => {
    const first = await list('?limit=2');
    expect(first.body.pageInfo).toMatchObject({ hasMore: true, limit: 2 });
    const second = await list(`?limit=2&cursor=${first.body.pageInfo.nextCursor}`);
    const third = await list(`?limit=2&cursor=${second.body.pageInfo.nextCursor}`);
    const titles = [...first.body.issues, ...second.body.issues, ...third.body.issues].map(
      (i: { title: string }) => i.title,
    );
    expect(titles).toEqual(['qa api', 'infra one', 'web one 100%', 'api two', 'api one']);
    expect(third.body.pageInfo).toEqual({ hasMore: false, nextCursor: null, limit: 2 });
    const reused = await list(`?limit=2&team=ENG&cursor=${first.body.pageInfo.nextCursor}`);
    expect([reused.status, reused.body.code]).toEqual([400, 'INVALID_CURSOR']);
  });
});

describe('GET /issues with linked issues', () => {
  let h: Harness;
  const call = (method: string, path: string, body?: unknown, token = TOKENS.admin) =>
    h.call(method, `/api/external/issues${path}`, { token, body });

  beforeAll(async () => {
    h = await startHarness([ACME]);
    await h.apply(ACME);
  });
  afterAll(async () => h?.close());

  /** Every page of `query`, following the cursors. */
  async function pages(query: string, token: string) {
    const seen = [];
    let cursor = '';
    for (;;) {
      const reply = await call('GET', `${query}${cursor}`, undefined, token);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      seen.push(reply.body);
      if (!reply.body.pageInfo.hasMore) return seen;
      cursor = `&cursor=${reply.body.pageInfo.nextCursor}`;
    }
  }

  it('pages issues that carry several links each, with the same links and page sizes as single reads', async () => {
    const make = async (title: string, projectKey: string) => {
      const reply = await call('POST', '', { title, projectKey, ...(projectKey === 'API' ? { teamKey: 'ENG' } : {}) });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.issue as { issueId: string; issueKey: string };
    };
    const first = await make('linked one', 'API');
    const second = await make('linked two', 'API');
    const third = await make('linked three', 'API');
    const hidden = await make('linked infra', 'INFRA');
    for (const [from, type, to] of [
      [first, 'blocks', second],
      [first, 'related', third],
      [first, 'blocks', hidden],
      [third, 'blocks', second],
    ] as const) {
      const reply = await call('POST', `/${from.issueId}/links`, { type, targetIssueId: to.issueId });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    }

    for (const token of [TOKENS.admin, TOKENS.bot]) {
      const listed = await pages('?project=API&team=ENG&limit=2', token);
      expect(listed.map((page) => page.issues.length)).toEqual([2, 1]);
      const issues = listed.flatMap((page) => page.issues) as Array<{ issueId: string; links: unknown[] }>;
      expect(issues.map((issue) => issue.issueId)).toEqual([third.issueId, second.issueId, first.issueId]);
      for (const issue of issues) {
        const single = await call('GET', `/${issue.issueId}`, undefined, token);
        expect(issue).toEqual(single.body.issue);
      }
      // The link to the INFRA issue shows only to a credential that can see INFRA.
      expect(issues[2].links).toHaveLength(token === TOKENS.admin ? 3 : 2);
      expect(issues[1].links).toHaveLength(2);
    }
  });
});
