import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * Regression tests for places where the running API disagreed with its documented rules
 * (docs/api.md): list filters under every documented name, empty references, and timestamps
 * on every record.
 */

let h: Harness;
let ids: { projects: Record<string, string>; teams: Record<string, string>; containers: Record<string, string> };

const as = (token: string) => ({
  get: (url: string) => h.call('GET', url, { token }),
  post: (url: string, body: unknown) => h.call('POST', url, { token, body }),
  patch: (url: string, body: unknown) => h.call('PATCH', url, { token, body }),
});
const admin = () => as(TOKENS.admin);

async function createIssue(body: Record<string, unknown>) {
  const res = await admin().post('/api/external/issues', body);
  expect(res.status).toBe(201);
  return res.body.issue;
}

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  const teams = (await admin().get('/api/external/teams')).body.teams as Array<{ teamId: string; teamKey: string }>;
  const projects = (await admin().get('/api/external/projects')).body.projects as Array<{
    projectId: string;
    projectKey: string;
    teamKey: string;
  }>;
  const containers = (await admin().get('/api/external/issue-containers')).body.issueContainers as Array<{
    issueContainerId: string;
    name: string;
  }>;
  ids = {
    teams: Object.fromEntries(teams.map((t) => [t.teamKey, t.teamId])),
    projects: Object.fromEntries(projects.map((p) => [`${p.teamKey}/${p.projectKey}`, p.projectId])),
    containers: Object.fromEntries(containers.map((c) => [c.name, c.issueContainerId])),
  };
});

afterAll(async () => {
  await h.close();
});

describe('issue list project and team filters under their explicit names', () => {
  let apiIssue: { issueId: string };
  let webIssue: { issueId: string };
  let infraIssue: { issueId: string };

  beforeAll(async () => {
    apiIssue = await createIssue({ title: 'Filter API', projectKey: 'API', teamKey: 'ENG' });
    webIssue = await createIssue({ title: 'Filter WEB', projectKey: 'WEB', teamKey: 'ENG' });
    infraIssue = await createIssue({ title: 'Filter INFRA', projectKey: 'INFRA', teamKey: 'OPS' });
  });

  const idsOf = (body: { issues: Array<{ issueId: string }> }) => body.issues.map((i) => i.issueId);

  it('filters by projectId', async () => {
    const res = await admin().get(`/api/external/issues?projectId=${ids.projects['ENG/WEB']}`);
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([webIssue.issueId]);
  });

  it('filters by projectKey (lower case too) with teamKey', async () => {
    const res = await admin().get('/api/external/issues?projectKey=api&teamKey=eng');
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toContain(apiIssue.issueId);
    expect(idsOf(res.body)).not.toContain(webIssue.issueId);
  });

  it('filters by teamId and teamKey', async () => {
    const byId = await admin().get(`/api/external/issues?teamId=${ids.teams.OPS}`);
    expect(byId.status).toBe(200);
    expect(idsOf(byId.body)).toEqual([infraIssue.issueId]);
    const byKey = await admin().get('/api/external/issues?teamKey=OPS');
    expect(idsOf(byKey.body)).toEqual([infraIssue.issueId]);
  });

  it('answers PROJECT_NOT_FOUND and TEAM_NOT_FOUND for unknown explicit filters', async () => {
    const project = await admin().get('/api/external/issues?projectId=prj_unknown');
    expect(project.status).toBe(404);
    expect(project.body.code).toBe('PROJECT_NOT_FOUND');
    const team = await admin().get('/api/external/issues?teamKey=NOPE');
    expect(team.status).toBe(404);
    expect(team.body.code).toBe('TEAM_NOT_FOUND');
  });

  it('hides a project the token has no grant for behind PROJECT_NOT_FOUND', async () => {
    const res = await as(TOKENS.bot).get(`/api/external/issues?projectId=${ids.projects['OPS/INFRA']}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('PROJECT_NOT_FOUND');
  });

  it('keeps the short names project and team working', async () => {
    const res = await admin().get('/api/external/issues?project=WEB&team=ENG');
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([webIssue.issueId]);
  });
});

describe('planning lists take both filter spellings', () => {
  it('milestone list filters by projectId and projectKey', async () => {
    const created = await admin().post('/api/external/issue-container-milestones', {
      title: 'Scoped',
      issueContainerId: ids.containers.Launch,
    });
    expect(created.status).toBe(201);
    const byId = await admin().get(`/api/external/issue-container-milestones?projectId=${ids.projects['ENG/API']}`);
    expect(byId.status).toBe(200);
    expect(byId.body.milestones.map((m: { milestoneId: string }) => m.milestoneId)).toContain(
      created.body.milestone.milestoneId,
    );
    const other = await admin().get(`/api/external/issue-container-milestones?projectId=${ids.projects['ENG/WEB']}`);
    expect(other.body.milestones).toEqual([]);
    const unknown = await admin().get('/api/external/issue-container-milestones?projectKey=NOPE&teamKey=ENG');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('PROJECT_NOT_FOUND');
  });

  it('container list filters by project and team', async () => {
    const api = await admin().get('/api/external/issue-containers?project=API&team=ENG');
    expect(api.status).toBe(200);
    expect(api.body.issueContainers.map((c: { name: string }) => c.name)).toEqual(['Launch']);
    const ops = await admin().get('/api/external/issue-containers?team=OPS');
    expect(ops.body.issueContainers).toEqual([]);
  });
});

describe('an empty reference is a reference, not an omission', () => {
  it('answers STATUS_NOT_FOUND for an empty statusKey or statusId on create', async () => {
    for (const field of ['statusKey', 'statusId']) {
      const res = await admin().post('/api/external/issues', { title: 'Empty status', projectKey: 'API', [field]: '' });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('STATUS_NOT_FOUND');
    }
  });

  it('answers STATUS_NOT_FOUND and PROJECT_NOT_FOUND for empty references on PATCH, changing nothing', async () => {
    const issue = await createIssue({ title: 'Empty refs', projectKey: 'API' });
    const status = await admin().patch(`/api/external/issues/${issue.issueId}`, { statusKey: '' });
    expect(status.status).toBe(404);
    expect(status.body.code).toBe('STATUS_NOT_FOUND');
    const project = await admin().patch(`/api/external/issues/${issue.issueId}`, { projectId: '' });
    expect(project.status).toBe(404);
    expect(project.body.code).toBe('PROJECT_NOT_FOUND');
    const read = await admin().get(`/api/external/issues/${issue.issueId}`);
    expect(read.body.issue).toMatchObject({ statusKey: 'todo', projectKey: 'API', updatedAt: issue.updatedAt });
  });

  it('answers PROJECT_NOT_FOUND for an empty projectKey on create', async () => {
    const res = await admin().post('/api/external/issues', { title: 'Empty project', projectKey: '' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('PROJECT_NOT_FOUND');
  });
});

describe('small documented details', () => {
  it('reads a blank evolution reason back as null, like an omitted one', async () => {
    const issue = await createIssue({ title: 'Reasonless', projectKey: 'API' });
    const res = await admin().post(`/api/external/issues/${issue.issueId}/evolve`, {
      title: 'Still reasonless',
      reason: '   ',
    });
    expect(res.status).toBe(201);
    expect(res.body.evolution).toMatchObject({ priorTitle: 'Reasonless', newTitle: 'Still reasonless', reason: null });
  });

  it("returns and accepts labels as the legacy name of a milestone's tags", async () => {
    const created = await admin().post('/api/external/issue-container-milestones', {
      title: 'Labelled',
      issueContainerId: ids.containers.Launch,
      labels: ['Beta'],
    });
    expect(created.status).toBe(201);
    expect(created.body.milestone).toMatchObject({ tags: ['Beta'], labels: ['Beta'] });
    const milestoneId = created.body.milestone.milestoneId;
    const relabelled = await admin().patch(`/api/external/issue-container-milestones/${milestoneId}`, {
      labels: ['GA'],
    });
    expect(relabelled.status).toBe(200);
    expect(relabelled.body.milestone).toMatchObject({ tags: ['GA'], labels: ['GA'] });
    const conflict = await admin().patch(`/api/external/issue-container-milestones/${milestoneId}`, {
      tags: ['a'],
      labels: ['b'],
    });
    expect(conflict.status).toBe(400);
    expect(conflict.body).toMatchObject({ code: 'TAG_FIELD_CONFLICT', details: { field: 'labels' } });
    const read = await admin().get(`/api/external/issue-container-milestones/${milestoneId}`);
    expect(read.body.milestone).toMatchObject({ tags: ['GA'], labels: ['GA'] });
    expect(read.body.milestone.activity.filter((a: { field: string | null }) => a.field === 'tags')).toHaveLength(1);
  });

  it('names the field of a milestone epicId / issueContainerId conflict', async () => {
    const res = await admin().post('/api/external/issue-container-milestones', {
      title: 'Both',
      issueContainerId: ids.containers.Launch,
      epicId: 'ic_other',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'ISSUE_CONTAINER_FIELD_CONFLICT', details: { field: 'epicId' } });
  });
});

describe('odd input answers 400, never 500 (PostgreSQL refuses U+0000 and out-of-range integers)', () => {
  it("answers a field's own code, or VALIDATION_FAILED naming it, for text holding U+0000", async () => {
    const title = await admin().post('/api/external/issues', { title: 'Nul\u0000title', projectKey: 'API' });
    expect(title.status).toBe(400);
    expect(title.body).toMatchObject({ code: 'TITLE_REQUIRED', details: { field: 'title' } });
    const description = await admin().post('/api/external/issues', {
      title: 'Fine',
      projectKey: 'API',
      description: 'a\u0000b',
    });
    expect(description.status).toBe(400);
    expect(description.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'description' } });
    const name = await admin().post('/api/external/projects', { name: '\u0000' });
    expect(name.body.code).toBe('NAME_REQUIRED');
    const tag = await admin().post('/api/external/issues', {
      title: 'Fine',
      projectKey: 'API',
      tags: ['ok', 'b\u0000d'],
    });
    expect(tag.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'tags.1' } });
  });

  it('refuses U+0000 in query and path parameters', async () => {
    const query = await admin().get('/api/external/issues?q=a%00b');
    expect(query.status).toBe(400);
    expect(query.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'q' } });
    const path = await admin().get('/api/external/issues/iss_%00');
    expect(path.status).toBe(400);
    expect(path.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'issueId' } });
  });

  it('answers INVALID_SCHEDULE for a duration that leaves the calendar, on create and update', async () => {
    const created = await admin().post('/api/external/issues', {
      title: 'Long',
      projectKey: 'API',
      startDate: '2026-01-01',
      durationDays: 1e12,
    });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ code: 'INVALID_SCHEDULE', details: { field: 'durationDays' } });
    const issue = await createIssue({ title: 'Late', projectKey: 'API', dueDate: '9999-12-01' });
    const moved = await admin().patch(`/api/external/issues/${issue.issueId}`, {
      durationDays: 60,
      startDate: '9999-12-01',
    });
    expect(moved.status).toBe(400);
    expect(moved.body).toMatchObject({ code: 'INVALID_SCHEDULE', details: { field: 'dueDate' } });
    const subtask = await admin().post(`/api/external/issues/${issue.issueId}/subtasks`, {
      title: 'Far',
      dueDate: '0100-01-10',
      durationDays: 3_000_000,
    });
    expect(subtask.body).toMatchObject({ code: 'INVALID_SCHEDULE', details: { field: 'startDate' } });
  });

  it('answers VALIDATION_FAILED for a milestone order outside 32 bits', async () => {
    const res = await admin().post('/api/external/issue-container-milestones', {
      title: 'Far',
      issueContainerId: ids.containers.Launch,
      order: 2 ** 31,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'order' } });
  });
});

describe('createdAt and updatedAt on every record', () => {
  const stamped = { createdAt: expect.any(String), updatedAt: expect.any(String) };

  it('on title evolutions, from the POST and the list', async () => {
    const issue = await createIssue({ title: 'Stamp me', projectKey: 'API' });
    const evolved = await admin().post(`/api/external/issues/${issue.issueId}/evolve`, { title: 'Stamped' });
    expect(evolved.status).toBe(201);
    expect(evolved.body.evolution).toMatchObject(stamped);
    expect(evolved.body.evolution.updatedAt).toBe(evolved.body.evolution.createdAt);
    const list = await admin().get(`/api/external/issues/${issue.issueId}/evolve`);
    expect(list.body.evolutions[0]).toMatchObject(stamped);
  });

  it('on attachments, from the POST and the list', async () => {
    const issue = await createIssue({ title: 'Attach', projectKey: 'API' });
    const added = await admin().post(`/api/external/issues/${issue.issueId}/attachments`, {
      url: 'https://example.test/spec',
    });
    expect(added.status).toBe(201);
    expect(added.body.attachments[0]).toMatchObject(stamped);
    const list = await admin().get(`/api/external/issues/${issue.issueId}/attachments`);
    expect(list.body.attachments[0]).toMatchObject({ ...stamped, createdBy: 'api-token:admin' });
  });

  it('on human users', async () => {
    const res = await admin().get('/api/external/users');
    expect(res.status).toBe(200);
    for (const user of res.body.users) expect(user).toMatchObject({ ...stamped, kind: 'human' });
  });
});
