import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

const ACME_PLANNING = {
  workspace: ACME.workspace,
  projects: [
    { team: 'ENG', key: 'API', name: 'Public API', containers: [{ name: 'Launch' }, { name: 'Beta' }] },
    { team: 'OPS', key: 'INFRA', name: 'Infrastructure', containers: [{ name: 'Migration' }] },
    // Same project key in another team, to need `team` beside a `project` key.
    { team: 'OPS', key: 'WEB', name: 'Ops website', containers: [{ name: 'Status page' }] },
  ],
};

const BASE = '/api/external/issue-container-milestones';

let h: Harness;
let acme: ApplyResult;

const list = (query: string, token = TOKENS.admin) => h.call('GET', `${BASE}${query}`, { token });
const titles = (res: { body: { milestones: Array<{ title: string }> } }) => res.body.milestones.map((m) => m.title);

async function create(container: string, title: string, extra: Record<string, unknown> = {}) {
  const res = await h.call('POST', BASE, {
    token: TOKENS.admin,
    body: { title, issueContainerId: acme.containers[container], ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.milestone;
}

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX, ACME_PLANNING]);
  const [base, extra] = [await h.apply(ACME), await h.apply(ACME_PLANNING)];
  acme = {
    ...base,
    projects: { ...base.projects, ...extra.projects },
    containers: { ...base.containers, ...extra.containers },
  };
  await create('ENG/API/Launch', 'Launch first');
  await create('ENG/API/Launch', 'Launch second', { ownerId: acme.users.alice, status: 'at-risk' });
  await create('ENG/API/Beta', 'Beta kickoff', { order: 5, ownerId: acme.users.alice });
  await create('ENG/API/Beta', 'Beta early', { order: -1, status: 'complete' });
  await create('OPS/INFRA/Migration', 'Cut-over', { order: 1 });
  await create('OPS/WEB/Status page', 'Status live');
});
afterAll(() => h.close());

describe('GET /issue-container-milestones', () => {
  it('sorts by order, then creation', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(titles(res)).toEqual([
      'Beta early',
      'Launch first',
      'Status live',
      'Launch second',
      'Cut-over',
      'Beta kickoff',
    ]);
    expect(res.body.pageInfo).toEqual({ hasMore: false, nextCursor: null, limit: 50 });
    expect(res.body.milestones[0]).not.toHaveProperty('activity');
  });

  it('filters by project (id or key, with team), team and container', async () => {
    expect(titles(await list(`?project=${acme.projects['ENG/API']}`))).toEqual([
      'Beta early',
      'Launch first',
      'Launch second',
      'Beta kickoff',
    ]);
    expect(titles(await list('?project=API'))).toEqual(['Beta early', 'Launch first', 'Launch second', 'Beta kickoff']);
    expect(titles(await list('?project=web&team=OPS'))).toEqual(['Status live']);
    expect(titles(await list('?team=OPS'))).toEqual(['Status live', 'Cut-over']);
    expect(titles(await list(`?team=${acme.teams.ENG}`))).toEqual([
      'Beta early',
      'Launch first',
      'Launch second',
      'Beta kickoff',
    ]);
    expect(titles(await list(`?issueContainerId=${acme.containers['ENG/API/Beta']}`))).toEqual([
      'Beta early',
      'Beta kickoff',
    ]);
    expect(titles(await list(`?epicId=${acme.containers['ENG/API/Launch']}`))).toEqual([
      'Launch first',
      'Launch second',
    ]);
  });

  it('filters by owner, status and title text', async () => {
    expect(titles(await list(`?ownerId=${acme.users.alice}`))).toEqual(['Launch second', 'Beta kickoff']);
    expect(titles(await list('?status=complete'))).toEqual(['Beta early']);
    expect(titles(await list('?q=BETA'))).toEqual(['Beta early', 'Beta kickoff']);
    expect(titles(await list('?q=beta&status=planned'))).toEqual(['Beta kickoff']);
  });

  it('answers the codes of bad filters', async () => {
    const cases: Array<[string, number, string]> = [
      ['?project=prj_unknown', 404, 'PROJECT_NOT_FOUND'],
      ['?project=WEB', 400, 'PROJECT_KEY_AMBIGUOUS'],
      ['?team=NOPE', 404, 'TEAM_NOT_FOUND'],
      ['?issueContainerId=ic_unknown', 404, 'ISSUE_CONTAINER_NOT_FOUND'],
      [
        `?issueContainerId=${acme.containers['ENG/API/Beta']}&epicId=${acme.containers['ENG/API/Launch']}`,
        400,
        'ISSUE_CONTAINER_FIELD_CONFLICT',
      ],
      [`?project=INFRA&issueContainerId=${acme.containers['ENG/API/Beta']}`, 404, 'ISSUE_CONTAINER_NOT_FOUND'],
      ['?status=late', 400, 'VALIDATION_FAILED'],
      ['?limit=0', 400, 'VALIDATION_FAILED'],
    ];
    for (const [query, status, code] of cases) {
      const res = await list(query);
      expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status, code });
    }
  });

  it('walks pages in order with cursors bound to the filters', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(`?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...titles(res));
      cursor = res.body.pageInfo.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['Beta early', 'Launch first', 'Status live', 'Launch second', 'Cut-over', 'Beta kickoff']);
    const first = await list('?limit=2');
    const reused = await list(`?limit=2&status=planned&cursor=${first.body.pageInfo.nextCursor}`);
    expect(reused.status).toBe(400);
    expect(reused.body.code).toBe('INVALID_CURSOR');
  });

  it('lists only milestones of projects the caller can access', async () => {
    expect(titles(await list('', TOKENS.bot))).toEqual(['Beta early', 'Launch first', 'Launch second', 'Beta kickoff']);
    expect(titles(await list('', TOKENS.idle))).toEqual([]);
    expect((await list('?project=INFRA', TOKENS.bot)).body.code).toBe('PROJECT_NOT_FOUND');
    expect((await list(`?issueContainerId=${acme.containers['OPS/INFRA/Migration']}`, TOKENS.bot)).body.code).toBe(
      'ISSUE_CONTAINER_NOT_FOUND',
    );
    expect(titles(await list('', TOKENS.alice))).toHaveLength(6);
    expect(titles(await list('', TOKENS.globex))).toEqual([]);
    expect((await list(`?project=${acme.projects['ENG/API']}`, TOKENS.globex)).body.code).toBe('PROJECT_NOT_FOUND');
  });
});
