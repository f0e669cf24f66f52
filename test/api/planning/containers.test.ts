import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/** More containers on top of the standard fixture: one per project, and an archived one. */
const ACME_CONTAINERS = {
  workspace: ACME.workspace,
  projects: [
    {
      team: 'ENG',
      key: 'API',
      name: 'Public API',
      containers: [{ name: 'Launch' }, { name: 'Hardening' }, { name: 'Old beta' }],
    },
    {
      team: 'ENG',
      key: 'WEB',
      name: 'Website',
      containers: [{ name: 'Redesign', startDate: '2026-02-01', dueDate: '2026-04-30' }],
    },
    { team: 'OPS', key: 'INFRA', name: 'Infrastructure', containers: [{ name: 'Migration' }] },
  ],
};
const GLOBEX_CONTAINERS = {
  workspace: GLOBEX.workspace,
  projects: [{ team: 'ENG', key: 'API', name: 'Globex API', containers: [{ name: 'Globex launch' }] }],
};

let h: Harness;
let acme: ApplyResult;

const list = (query: string, token = TOKENS.admin) =>
  h.call('GET', `/api/external/issue-containers${query}`, { token });
const names = (body: { issueContainers: Array<{ name: string }> }) => body.issueContainers.map((c) => c.name).sort();

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX, ACME_CONTAINERS, GLOBEX_CONTAINERS]);
  const [base, extra] = [await h.apply(ACME), await h.apply(ACME_CONTAINERS)];
  acme = { ...base, containers: { ...base.containers, ...extra.containers } };
  await h.database.db
    .updateTable('issue_containers')
    .set({ archived: 1 })
    .where('id', '=', acme.containers['ENG/API/Old beta'])
    .execute();
});
afterAll(() => h.close());

describe('GET /api/external/issue-containers', () => {
  it('lists the active containers of every visible project with their fields', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(names(res.body)).toEqual(['Hardening', 'Launch', 'Migration', 'Redesign']);
    const redesign = res.body.issueContainers.find((c: { name: string }) => c.name === 'Redesign');
    expect(redesign).toEqual({
      issueContainerId: acme.containers['ENG/WEB/Redesign'],
      epicId: acme.containers['ENG/WEB/Redesign'],
      name: 'Redesign',
      projectId: acme.projects['ENG/WEB'],
      projectKey: 'WEB',
      startDate: '2026-02-01',
      dueDate: '2026-04-30',
      issueCount: 0,
      openIssueCount: 0,
      archived: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.body.pageInfo).toEqual({ hasMore: false, nextCursor: null, limit: 50 });
  });

  it('lists only archived containers with archived=true', async () => {
    const res = await list('?archived=true');
    expect(res.status).toBe(200);
    expect(res.body.issueContainers).toHaveLength(1);
    expect(res.body.issueContainers[0]).toMatchObject({ name: 'Old beta', archived: true });
  });

  it('filters by projectId, projectKey with team, and team alone', async () => {
    expect(names((await list(`?projectId=${acme.projects['ENG/WEB']}`)).body)).toEqual(['Redesign']);
    expect(names((await list('?projectKey=api&teamKey=ENG')).body)).toEqual(['Hardening', 'Launch']);
    expect(names((await list('?projectKey=INFRA')).body)).toEqual(['Migration']);
    expect(names((await list('?teamKey=OPS')).body)).toEqual(['Migration']);
    expect(names((await list(`?teamId=${acme.teams.ENG}`)).body)).toEqual(['Hardening', 'Launch', 'Redesign']);
  });

  it('searches names case-insensitively with q', async () => {
    expect(names((await list('?q=LAUN')).body)).toEqual(['Launch']);
    expect(names((await list('?q=N&teamKey=ENG')).body)).toEqual(['Hardening', 'Launch', 'Redesign']);
    expect((await list('?q=nothing-like-this')).body.issueContainers).toEqual([]);
  });

  it('answers PROJECT_NOT_FOUND and TEAM_NOT_FOUND for unknown filters', async () => {
    const unknownProject = await list('?projectId=prj_unknown');
    expect(unknownProject.status).toBe(404);
    expect(unknownProject.body.code).toBe('PROJECT_NOT_FOUND');
    expect((await list('?projectKey=NOPE')).body.code).toBe('PROJECT_NOT_FOUND');
    expect((await list('?projectKey=API&teamKey=OPS')).body.code).toBe('PROJECT_NOT_FOUND');
    const unknownTeam = await list('?teamKey=NOPE');
    expect(unknownTeam.status).toBe(404);
    expect(unknownTeam.body.code).toBe('TEAM_NOT_FOUND');
    expect((await list('?archived=maybe')).body.code).toBe('VALIDATION_FAILED');
  });

  it('paginates newest first with cursors bound to the filters', async () => {
    const first = await list('?teamKey=ENG&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.issueContainers).toHaveLength(2);
    expect(first.body.pageInfo).toMatchObject({ hasMore: true, limit: 2 });
    const second = await list(`?teamKey=ENG&limit=2&cursor=${first.body.pageInfo.nextCursor}`);
    expect(second.body.issueContainers).toHaveLength(1);
    expect(second.body.pageInfo).toEqual({ hasMore: false, nextCursor: null, limit: 2 });
    const seen = [...first.body.issueContainers, ...second.body.issueContainers]
      .map((c: { name: string }) => c.name)
      .sort();
    expect(seen).toEqual(['Hardening', 'Launch', 'Redesign']);
    const reused = await list(`?teamKey=OPS&limit=2&cursor=${first.body.pageInfo.nextCursor}`);
    expect(reused.status).toBe(400);
    expect(reused.body.code).toBe('INVALID_CURSOR');
  });
});

describe('issue counts', () => {
  it('counts active issues, and open ones outside completed and canceled statuses', async () => {
    const launch = acme.containers['ENG/API/Launch'];
    const create = async (title: string, statusKey: string) => {
      const res = await h.call('POST', '/api/external/issues', {
        token: TOKENS.admin,
        body: { title, projectId: acme.projects['ENG/API'], issueContainerId: launch, statusKey },
      });
      expect(res.status).toBe(201);
      return res.body.issue.issueId as string;
    };
    await create('Open one', 'todo');
    await create('Started one', 'in-progress');
    await create('Finished one', 'done');
    await create('Dropped one', 'canceled');
    const archived = await create('Archived one', 'todo');
    expect(
      (await h.call('PATCH', `/api/external/issues/${archived}`, { token: TOKENS.admin, body: { archived: true } }))
        .status,
    ).toBe(200);

    const res = await list(`?projectId=${acme.projects['ENG/API']}`);
    const byName = Object.fromEntries(res.body.issueContainers.map((c: { name: string }) => [c.name, c]));
    expect(byName.Launch).toMatchObject({ issueCount: 4, openIssueCount: 2 });
    expect(byName.Hardening).toMatchObject({ issueCount: 0, openIssueCount: 0 });
  });
});

describe('visibility', () => {
  it('shows a token only the containers of its granted projects', async () => {
    expect(names((await list('', TOKENS.bot)).body)).toEqual(['Hardening', 'Launch']);
    expect((await list('', TOKENS.idle)).body.issueContainers).toEqual([]);
    const hidden = await list(`?projectId=${acme.projects['OPS/INFRA']}`, TOKENS.bot);
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('PROJECT_NOT_FOUND');
    expect((await list('?projectKey=INFRA', TOKENS.bot)).body.code).toBe('PROJECT_NOT_FOUND');
  });

  it('lets an OAuth user see every project of the workspace', async () => {
    expect(names((await list('', TOKENS.alice)).body)).toEqual(['Hardening', 'Launch', 'Migration', 'Redesign']);
  });

  it('keeps workspaces apart', async () => {
    expect(names((await list('', TOKENS.globex)).body)).toEqual(['Globex launch']);
    const foreign = await list(`?projectId=${acme.projects['ENG/API']}`, TOKENS.globex);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('PROJECT_NOT_FOUND');
  });

  it('refuses a missing credential', async () => {
    expect((await h.call('GET', '/api/external/issue-containers')).status).toBe(401);
  });
});
