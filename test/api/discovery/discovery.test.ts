import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

let h: Harness;
let acme: Awaited<ReturnType<Harness['apply']>>;

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
});
afterAll(() => h.close());

describe('GET /api/external', () => {
  it('answers the caller, workspace, capabilities and endpoint map', async () => {
    const reply = await h.call('GET', '/api/external', { token: TOKENS.admin });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual([
      'access',
      'capabilities',
      'endpoints',
      'ok',
      'principal',
      'token',
      'workspace',
    ]);
    expect(reply.body.ok).toBe(true);
    expect(reply.body.token).toEqual({ name: 'admin', assigneeId: 'api-token:admin' });
    expect(reply.body.principal).toEqual({ kind: 'api_token', id: 'api-token:admin' });
    expect(reply.body.access).toBe('write');
    expect(reply.body.workspace).toEqual({ id: acme.workspaceId, name: 'Acme', slug: 'acme', type: 'standard' });
    expect(reply.body.capabilities).toEqual({
      humanCallerAuth: true,
      cursorPagination: true,
      idempotencyKeys: true,
      structuredErrors: true,
      issueComments: true,
      meetings: true,
      discussionVisibilityScoped: true,
    });
  });

  it("maps the API's areas to path templates relative to the base URL", async () => {
    const { endpoints } = (await h.call('GET', '/api/external', { token: TOKENS.bot })).body;
    expect(endpoints).toMatchObject({
      discovery: '/api/external',
      projects: '/api/external/projects',
      issues: '/api/external/issues',
      comments: '/api/external/issues/{issueId}/comments',
      meetings: '/api/external/meetings',
      events: '/api/external/events',
      issuesBulk: '/api/external/issues/bulk',
    });
    for (const path of Object.values<string>(endpoints)) expect(path).toMatch(/^\/api\/(external|mcp)(\/|$)/);
  });

  it('lists only templates of routes the OpenAPI document describes', async () => {
    const { endpoints } = (await h.call('GET', '/api/external', { token: TOKENS.admin })).body;
    const documented = new Set(Object.keys((await h.call('GET', '/api/external/openapi.json')).body.paths));
    const routes = Object.values<string>(endpoints).filter(
      (path) => path !== '/api/mcp' && path !== '/api/external/openapi.json',
    );
    const missing = routes.filter((path) => !documented.has(path));
    expect(missing).toEqual([]);
  });
});

describe('GET /api/external/teams', () => {
  it('lists the teams with the default team id', async () => {
    const reply = await h.call('GET', '/api/external/teams', { token: TOKENS.idle });
    expect(reply.status).toBe(200);
    expect(reply.body.defaultTeamId).toBe(acme.teams.ENG);
    expect(reply.body.teams).toHaveLength(2);
    expect(reply.body.teams).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ teamId: acme.teams.ENG, teamKey: 'ENG', name: 'Engineering', isDefault: true }),
        expect.objectContaining({ teamId: acme.teams.OPS, teamKey: 'OPS', name: 'Operations', isDefault: false }),
      ]),
    );
  });
});

describe('GET /api/external/users', () => {
  it('lists human members with their teams and automation agents by token name', async () => {
    const reply = await h.call('GET', '/api/external/users', { token: TOKENS.admin });
    expect(reply.status).toBe(200);
    expect(reply.body.externalOwners).toBeUndefined();
    const alice = reply.body.users.find((u: { name: string }) => u.name === 'Alice Archer');
    expect(alice).toMatchObject({
      userId: acme.users.alice,
      name: 'Alice Archer',
      email: 'alice@acme.test',
      kind: 'human',
      teamIds: [acme.teams.ENG],
    });
    const bob = reply.body.users.find((u: { name: string }) => u.name === 'Bob Builder');
    expect(bob.teamIds).toEqual([acme.teams.OPS]);
    expect(reply.body.users).toHaveLength(3);

    const agents = Object.fromEntries(reply.body.automationAgents.map((a: { name: string }) => [a.name, a]));
    expect(Object.keys(agents).sort()).toEqual(['admin', 'bot', 'idle', 'off']);
    expect(agents.bot).toEqual({ userId: 'api-token:bot', name: 'bot', kind: 'automation', active: true });
    expect(agents.off).toEqual({ userId: 'api-token:off', name: 'off', kind: 'automation', active: false });
  });

  it('adds externalOwners for a visible projectId', async () => {
    const reply = await h.call('GET', `/api/external/users?projectId=${acme.projects['ENG/API']}`, {
      token: TOKENS.bot,
    });
    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body.externalOwners)).toBe(true);
    expect(reply.body.users).toHaveLength(3);
  });

  it('answers PROJECT_NOT_FOUND for an unknown, inaccessible or foreign projectId', async () => {
    const cases: Array<[string, string]> = [
      ['prj_unknown', TOKENS.admin],
      [acme.projects['OPS/INFRA'], TOKENS.bot],
      [acme.projects['ENG/API'], TOKENS.idle],
      [acme.projects['ENG/API'], TOKENS.globex],
    ];
    for (const [projectId, token] of cases) {
      const reply = await h.call('GET', `/api/external/users?projectId=${projectId}`, { token });
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe('PROJECT_NOT_FOUND');
    }
  });
});

describe('GET /api/external/statuses', () => {
  const DEFAULT_KEYS = ['backlog', 'todo', 'in-progress', 'in-review', 'done', 'canceled'];

  it("answers the default team's statuses ordered by position", async () => {
    const reply = await h.call('GET', '/api/external/statuses', { token: TOKENS.admin });
    expect(reply.status).toBe(200);
    expect(reply.body.teamId).toBe(acme.teams.ENG);
    expect(reply.body.teamKey).toBe('ENG');
    expect(reply.body.statuses.map((s: { statusKey: string }) => s.statusKey)).toEqual(DEFAULT_KEYS);
    const positions = reply.body.statuses.map((s: { position: number }) => s.position);
    expect(positions).toEqual([...positions].sort((a: number, b: number) => a - b));
    expect(reply.body.statuses[1]).toMatchObject({
      statusKey: 'todo',
      name: 'Todo',
      category: 'unstarted',
      teamId: acme.teams.ENG,
      teamKey: 'ENG',
    });
    expect(reply.body.statuses[1].statusId).toEqual(expect.any(String));
    expect(reply.body.statuses.map((s: { category: string }) => s.category)).toEqual([
      'backlog',
      'unstarted',
      'started',
      'started',
      'completed',
      'canceled',
    ]);
  });

  it("answers another team's statuses by teamKey or teamId", async () => {
    const byKey = await h.call('GET', '/api/external/statuses?teamKey=OPS', { token: TOKENS.admin });
    const byId = await h.call('GET', `/api/external/statuses?teamId=${acme.teams.OPS}`, { token: TOKENS.admin });
    for (const reply of [byKey, byId]) {
      expect(reply.status).toBe(200);
      expect(reply.body.teamKey).toBe('OPS');
      expect(reply.body.teamId).toBe(acme.teams.OPS);
      expect(reply.body.statuses.every((s: { teamKey: string }) => s.teamKey === 'OPS')).toBe(true);
    }
    const engTodo = (await h.call('GET', '/api/external/statuses', { token: TOKENS.admin })).body.statuses[1].statusId;
    expect(byKey.body.statuses[1].statusId).not.toBe(engTodo);
  });

  it('answers TEAM_NOT_FOUND for an unknown or foreign team', async () => {
    for (const query of ['teamKey=NOPE', 'teamId=team_unknown', `teamId=${acme.teams.ENG}&teamKey=OPS`]) {
      const reply = await h.call('GET', `/api/external/statuses?${query}`, { token: TOKENS.admin });
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe('TEAM_NOT_FOUND');
    }
    const foreign = await h.call('GET', `/api/external/statuses?teamId=${acme.teams.ENG}`, { token: TOKENS.globex });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('TEAM_NOT_FOUND');
  });
});

describe('GET /api/external/tags', () => {
  it('lists managed tags with their scopes and zero counts when nothing uses them', async () => {
    const reply = await h.call('GET', '/api/external/tags', { token: TOKENS.admin });
    expect(reply.status).toBe(200);
    expect(reply.body.tags).toEqual([
      {
        name: 'bug',
        managed: true,
        managedScopes: ['issues', 'agenda', 'discussion'],
        issueCount: 0,
        agendaItemCount: 0,
        discussionTopicCount: 0,
        usageCount: 0,
        projectIds: [],
      },
    ]);
  });

  it('shows another workspace none of these tags', async () => {
    const reply = await h.call('GET', '/api/external/tags', { token: TOKENS.globex });
    expect(reply.body.tags).toEqual([]);
  });
});
