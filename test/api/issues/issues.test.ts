import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { patFor, startHarness, type Harness } from '../../support/harness.js';

/**
 * Issue create, read, update and list (the reference at /docs, and docs/api.md). Beyond
 * the standard fixtures: team QA with transition rules, a project key shared by two teams
 * (API), a project with a restricted workflow and containers disabled (ENG/FLOW), and an
 * agent granted only OPS/INFRA.
 */
const EXTRA = {
  workspace: { slug: 'acme', name: 'Acme' },
  users: ACME.users,
  teams: [
    {
      key: 'QA',
      name: 'Quality',
      members: ['carol'],
      statuses: [
        { key: 'backlog', name: 'Backlog', category: 'backlog' },
        { key: 'todo', name: 'Todo', category: 'unstarted' },
        { key: 'doing', name: 'Doing', category: 'started' },
        { key: 'done', name: 'Done', category: 'completed' },
      ],
      transitions: { todo: ['doing'], doing: ['done', 'todo'] },
    },
  ],
  projects: [
    { team: 'QA', key: 'TEST', name: 'Testing' },
    { team: 'QA', key: 'API', name: 'QA API' },
    { team: 'ENG', key: 'FLOW', name: 'Flow', statuses: ['in-progress', 'done'], issueContainers: false },
  ],
  tokens: [{ name: 'ops-bot', secret: patFor('ops-bot'), projects: ['OPS/INFRA'] }],
};

let h: Harness;
let ids: {
  users: Record<string, string>;
  projects: Record<string, string>;
  containers: Record<string, string>;
  teams: Record<string, string>;
};

const post = (body: unknown, token = TOKENS.admin) => h.call('POST', '/api/external/issues', { token, body });
const patch = (issueId: string, body: unknown, token = TOKENS.admin) =>
  h.call('PATCH', `/api/external/issues/${issueId}`, { token, body });
const get = (path: string, token = TOKENS.admin) => h.call('GET', `/api/external${path}`, { token });
const create = async (body: Record<string, unknown>, token = TOKENS.admin) => {
  const reply = await post({ projectKey: 'API', teamKey: 'ENG', ...body }, token);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.issue;
};
const events = async (type: string, issueId: string) => {
  const rows = await h.database.db.selectFrom('outbox_events').selectAll().where('type', '=', type).execute();
  return rows.map((r) => JSON.parse(r.payload)).filter((e) => e.data.issue?.issueId === issueId);
};

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  const acme = await h.apply(ACME);
  const extra = await h.apply(EXTRA);
  ids = {
    users: acme.users,
    teams: { ...acme.teams, ...extra.teams },
    projects: { ...acme.projects, ...extra.projects },
    containers: acme.containers,
  };
});
afterAll(async () => h?.close());

describe('POST /issues', () => {
  it('creates an issue with every field presented and the defaults filled in', async () => {
    const reply = await post({ title: '  First issue  ', projectId: ids.projects['ENG/API'] });
    expect(reply.status).toBe(201);
    const issue = reply.body.issue;
    expect(issue).toMatchObject({
      issueKey: 'ENG-1',
      title: 'First issue',
      description: null,
      projectId: ids.projects['ENG/API'],
      projectKey: 'API',
      teamId: ids.teams.ENG,
      teamKey: 'ENG',
      statusKey: 'todo',
      assigneeId: null,
      reporterId: null,
      priority: 'none',
      startDate: null,
      dueDate: null,
      durationDays: null,
      tags: [],
      labels: [],
      archived: false,
      archivedAt: null,
      epicId: null,
      issueContainerId: null,
      milestoneId: null,
      subtasksEnabled: true,
      links: [],
      source: null,
      createdBy: 'api-token:admin',
      earliestStartDate: null,
    });
    expect(issue.issueId).toMatch(/^iss_/);
    expect(issue.createdAt).toBe(issue.updatedAt);
    expect(await events('issue.created', issue.issueId)).toHaveLength(1);
  });

  it('makes a human caller the default reporter and takes every optional field', async () => {
    const reply = await post(
      {
        title: 'Full',
        description: 'Body',
        projectKey: 'API',
        teamKey: 'ENG',
        statusKey: 'in-progress',
        assigneeId: ids.users.carol,
        priority: 'high',
        tags: ['bug', 'Backend'],
        startDate: '2026-03-01',
        durationDays: 4,
        issueContainerId: ids.containers['ENG/API/Launch'],
        subtasksEnabled: false,
      },
      TOKENS.alice,
    );
    expect(reply.status).toBe(201);
    expect(reply.body.issue).toMatchObject({
      reporterId: ids.users.alice,
      createdBy: ids.users.alice,
      statusKey: 'in-progress',
      assigneeId: ids.users.carol,
      priority: 'high',
      tags: ['bug', 'Backend'],
      labels: ['bug', 'Backend'],
      startDate: '2026-03-01',
      dueDate: '2026-03-05',
      durationDays: 4,
      epicId: ids.containers['ENG/API/Launch'],
      issueContainerId: ids.containers['ENG/API/Launch'],
      subtasksEnabled: false,
    });
  });

  it('answers TITLE_REQUIRED for a missing, empty, blank or non-string title and VALIDATION_FAILED over 500 characters', async () => {
    for (const title of [undefined, '', '   ', 42, null]) {
      const reply = await post({ title, projectKey: 'WEB' });
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 'TITLE_REQUIRED', details: { field: 'title' } });
    }
    const long = await post({ title: 'x'.repeat(501), projectKey: 'WEB' });
    expect(long.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'title' } });
    expect((await post({ title: 'x'.repeat(500), projectKey: 'WEB' })).status).toBe(201);
  });

  it('needs a project it can resolve', async () => {
    expect((await post({ title: 'T' })).body.code).toBe('PROJECT_REQUIRED');
    expect((await post({ title: 'T', teamKey: 'ENG' })).body.code).toBe('PROJECT_REQUIRED');
    const unknown = await post({ title: 'T', projectId: 'prj_unknown' });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'PROJECT_NOT_FOUND']);
    expect((await post({ title: 'T', projectKey: 'API' })).body.code).toBe('PROJECT_KEY_AMBIGUOUS');
    expect((await post({ title: 'T', projectKey: 'API', teamKey: 'NOPE' })).body.code).toBe('TEAM_NOT_FOUND');
    expect((await post({ title: 'T', projectId: ids.projects['ENG/API'], teamKey: 'OPS' })).body.code).toBe(
      'PROJECT_TEAM_MISMATCH',
    );
    // The bot sees only ENG/API: the key is not ambiguous for it, and OPS/INFRA does not exist for it.
    expect((await post({ title: 'T', projectKey: 'API' }, TOKENS.bot)).status).toBe(201);
    expect((await post({ title: 'T', projectId: ids.projects['OPS/INFRA'] }, TOKENS.bot)).body.code).toBe(
      'PROJECT_NOT_FOUND',
    );
  });

  it('checks the status against the project team and workflow', async () => {
    expect((await post({ title: 'T', projectKey: 'API', teamKey: 'ENG', statusKey: 'doing' })).body.code).toBe(
      'STATUS_INVALID_FOR_PROJECT',
    );
    const otherTeamStatus = (await get(`/statuses?teamKey=QA`)).body.statuses[0].statusId;
    expect((await post({ title: 'T', projectKey: 'WEB', statusId: otherTeamStatus })).body.code).toBe(
      'STATUS_INVALID_FOR_PROJECT',
    );
    const missing = await post({ title: 'T', projectKey: 'WEB', statusKey: 'nope' });
    expect([missing.status, missing.body.code]).toEqual([404, 'STATUS_NOT_FOUND']);
    expect((await post({ title: 'T', projectKey: 'WEB', statusId: 'st_nope' })).body.code).toBe('STATUS_NOT_FOUND');
    expect((await post({ title: 'T', projectKey: 'FLOW', statusKey: 'todo' })).body.code).toBe(
      'STATUS_INVALID_FOR_PROJECT_WORKFLOW',
    );
    const disagreeing = await post({ title: 'T', projectKey: 'WEB', statusId: otherTeamStatus, statusKey: 'todo' });
    expect(disagreeing.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'statusKey' } });
    // FLOW allows no unstarted status: the default is its first allowed one.
    expect((await post({ title: 'T', projectKey: 'FLOW' })).body.issue.statusKey).toBe('in-progress');
  });

  it('checks the assignee and the reporter', async () => {
    const code = async (body: Record<string, unknown>) =>
      (await post({ title: 'T', projectKey: 'API', teamKey: 'ENG', ...body })).body.code;
    expect(await code({ assigneeId: 'usr_unknown' })).toBe('ASSIGNEE_NOT_IN_WORKSPACE');
    expect(await code({ assigneeId: 'api-token:off' })).toBe('ASSIGNEE_NOT_IN_WORKSPACE');
    expect(await code({ assigneeId: 'api-token:idle' })).toBe('ASSIGNEE_NOT_IN_PROJECT');
    expect(await code({ assigneeId: ids.users.bob })).toBe('ASSIGNEE_NOT_IN_PROJECT_TEAM');
    // By id the project's lookup reads the assignee in the same statement: the same answers,
    // and a member of another workspace is no one here.
    const byId = async (assigneeId: string) =>
      (await post({ title: 'T', projectId: ids.projects['ENG/API'], assigneeId })).body;
    const [outsider] = await h.database.db
      .selectFrom('users')
      .select('id')
      .where('id', 'not in', Object.values(ids.users))
      .execute();
    expect(outsider).toBeDefined();
    expect(await byId('usr_unknown')).toMatchObject({ code: 'ASSIGNEE_NOT_IN_WORKSPACE' });
    expect(await byId(outsider.id)).toMatchObject({
      code: 'ASSIGNEE_NOT_IN_WORKSPACE',
      details: { assigneeId: outsider.id },
    });
    expect(await byId(ids.users.bob)).toMatchObject({
      code: 'ASSIGNEE_NOT_IN_PROJECT_TEAM',
      details: { teamKey: 'ENG' },
    });
    expect(await byId('api-token:idle')).toMatchObject({ code: 'ASSIGNEE_NOT_IN_PROJECT' });
    expect((await byId(ids.users.alice)).issue).toMatchObject({ assigneeId: ids.users.alice });
    expect(await code({ reporterId: 'api-token:bot' })).toBe('REPORTER_NOT_IN_WORKSPACE');
    expect(await code({ reporterId: 'usr_unknown' })).toBe('REPORTER_NOT_IN_WORKSPACE');
    expect(await code({ priority: 'critical' })).toBe('VALIDATION_FAILED');
    expect((await create({ title: 'T', assigneeId: 'api-token:bot', reporterId: ids.users.bob })).assigneeId).toBe(
      'api-token:bot',
    );
  });

  it('keeps tags and labels as one set and counts them in GET /tags', async () => {
    const conflict = await post({ title: 'T', projectKey: 'WEB', tags: ['a'], labels: ['b'] });
    expect([conflict.status, conflict.body.code]).toEqual([400, 'TAG_FIELD_CONFLICT']);
    const issue = await create({ title: 'Tagged', tags: ['Perf', 'perf', ' ux '], labels: ['UX', 'PERF'] });
    expect(issue.tags).toEqual(['Perf', 'ux']);
    expect(issue.labels).toEqual(['Perf', 'ux']);
    expect((await create({ title: 'Labels only', labels: ['perf'] })).tags).toEqual(['perf']);
    const perf = (await get('/tags')).body.tags.find((t: { name: string }) => t.name.toLowerCase() === 'perf');
    expect(perf).toMatchObject({ issueCount: 2, projectIds: [ids.projects['ENG/API']] });
  });

  it('checks the container and milestone', async () => {
    const launch = ids.containers['ENG/API/Launch'];
    const code = async (body: Record<string, unknown>, projectKey = 'API') =>
      (await post({ title: 'T', projectKey, teamKey: 'ENG', ...body })).body.code;
    expect(await code({ epicId: launch, issueContainerId: 'ic_other' })).toBe('ISSUE_CONTAINER_FIELD_CONFLICT');
    expect(await code({ epicId: launch }, 'FLOW')).toBe('ISSUE_CONTAINER_DISABLED');
    expect(await code({ epicId: launch }, 'WEB')).toBe('ISSUE_CONTAINER_NOT_FOUND');
    expect(await code({ milestoneId: 'ms_unknown' })).toBe('ISSUE_CONTAINER_MILESTONE_NOT_FOUND');
    await h.database.db
      .insertInto('milestones')
      .values({
        id: 'ms_launch_beta',
        workspace_id: (
          await h.database.db.selectFrom('workspaces').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow()
        ).id,
        project_id: ids.projects['ENG/API'],
        container_id: launch,
        title: 'Beta',
        owner_id: null,
        status: 'planned',
        start_date: null,
        due_date: null,
        order_index: 0,
        tags: '[]',
        created_by: null,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
    expect(await code({ milestoneId: 'ms_launch_beta' })).toBe('ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE');
    expect((await create({ title: 'In beta', epicId: launch, milestoneId: 'ms_launch_beta' })).milestoneId).toBe(
      'ms_launch_beta',
    );
  });

  it('completes schedules from any two fields and refuses inconsistent ones', async () => {
    expect(await create({ title: 'S', startDate: '2026-01-30', dueDate: '2026-02-02' })).toMatchObject({
      durationDays: 3,
    });
    expect(await create({ title: 'S', dueDate: '2026-03-10', durationDays: 9 })).toMatchObject({
      startDate: '2026-03-01',
    });
    expect(await create({ title: 'S', startDate: '2026-03-01', dueDate: '2026-03-01', durationDays: 0 })).toMatchObject(
      { durationDays: 0 },
    );
    for (const body of [
      { startDate: '2026-03-01', dueDate: '2026-03-05', durationDays: 3 },
      { startDate: '2026-03-05', dueDate: '2026-03-01' },
      { startDate: '2026-03-01', durationDays: -1 },
      { startDate: '2026-02-30' },
      { dueDate: '03/01/2026' },
      { startDate: 20260301 },
      { durationDays: 1.5 },
    ]) {
      const reply = await post({ title: 'S', projectKey: 'WEB', ...body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.code).toBe('INVALID_SCHEDULE');
    }
  });

  it('mints keys from the team counter and refuses unknown fields', async () => {
    const a = await post({ title: 'Q1', projectKey: 'TEST' });
    const b = await post({ title: 'Q2', projectKey: 'TEST' });
    expect([a.body.issue.issueKey, b.body.issue.issueKey]).toEqual(['QA-1', 'QA-2']);
    const unknown = await post({ title: 'T', projectKey: 'WEB', color: 'red' });
    expect(unknown.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { unknownFields: ['color'] } });
  });
});

describe('GET /issues/{issueId} and /issues/by-key/{issueKey}', () => {
  it('reads by id, by key and by key in the id route', async () => {
    const issue = await create({ title: 'Readable' });
    expect((await get(`/issues/${issue.issueId}`)).body.issue).toEqual(issue);
    expect((await get(`/issues/by-key/${issue.issueKey}`)).body.issue).toEqual(issue);
    expect((await get(`/issues/${issue.issueKey.toLowerCase()}`)).body.issue.issueId).toBe(issue.issueId);
    const missing = await get('/issues/iss_missing');
    expect([missing.status, missing.body.code, missing.body.details]).toEqual([
      404,
      'ISSUE_NOT_FOUND',
      { issueId: 'iss_missing' },
    ]);
    expect((await get('/issues/by-key/ENG-9999')).body).toMatchObject({
      code: 'ISSUE_NOT_FOUND',
      details: { issueKey: 'ENG-9999' },
    });
  });

  it('hides issues of other workspaces and of projects outside the grants', async () => {
    const infra = (await post({ title: 'Ops work', projectKey: 'INFRA' })).body.issue;
    for (const path of [`/issues/${infra.issueId}`, `/issues/by-key/${infra.issueKey}`]) {
      expect((await get(path, TOKENS.bot)).body.code).toBe('ISSUE_NOT_FOUND');
      expect((await get(path, TOKENS.globex)).status).toBe(404);
    }
    expect((await patch(infra.issueId, { title: 'Mine now' }, TOKENS.bot)).status).toBe(404);
    expect((await get(`/issues/${infra.issueId}`, TOKENS.alice)).status).toBe(200);
  });
});

describe('PATCH /issues/{issueId}', () => {
  it('answers UNSUPPORTED_ACTION for an update with no field', async () => {
    const issue = await create({ title: 'Idle' });
    const reply = await patch(issue.issueId, {});
    expect([reply.status, reply.body.code]).toEqual([400, 'UNSUPPORTED_ACTION']);
  });

  it('updates fields, records a title change as an evolution and emits issue.updated', async () => {
    const issue = await create({ title: 'Before' });
    const reply = await patch(issue.issueKey, {
      title: 'After',
      description: 'Now described',
      priority: 'urgent',
      assigneeId: ids.users.alice,
      reporterId: ids.users.carol,
      tags: ['x'],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.issue).toMatchObject({
      title: 'After',
      description: 'Now described',
      priority: 'urgent',
      assigneeId: ids.users.alice,
      reporterId: ids.users.carol,
      tags: ['x'],
      labels: ['x'],
    });
    const evolutions = (await get(`/issues/${issue.issueId}/evolve`)).body.evolutions;
    expect(evolutions).toMatchObject([
      { priorTitle: 'Before', newTitle: 'After', reason: null, actorId: 'api-token:admin' },
    ]);
    expect(await events('issue.updated', issue.issueId)).toHaveLength(1);
    expect((await patch(issue.issueId, { assigneeId: null })).body.issue.assigneeId).toBeNull();
    expect((await patch(issue.issueId, { title: '  ' })).body.code).toBe('TITLE_REQUIRED');
    expect((await patch(issue.issueId, { assigneeId: ids.users.bob })).body.code).toBe('ASSIGNEE_NOT_IN_PROJECT_TEAM');
    expect((await patch(issue.issueId, { tags: ['a'], labels: ['b'] })).body.code).toBe('TAG_FIELD_CONFLICT');
  });

  it('archives and restores, keeping archived issues readable and editable', async () => {
    const issue = await create({ title: 'Archivable' });
    for (const archived of ['yes', 1, null]) {
      const bad = await patch(issue.issueId, { archived });
      expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_ARCHIVE_STATE']);
    }
    const archived = (await patch(issue.issueId, { archived: true })).body.issue;
    expect(archived.archived).toBe(true);
    expect(archived.archivedAt).toEqual(expect.any(String));
    expect((await patch(issue.issueId, { priority: 'low' })).body.issue).toMatchObject({
      archived: true,
      archivedAt: archived.archivedAt,
      priority: 'low',
    });
    expect((await get(`/issues/${issue.issueId}`)).body.issue.archived).toBe(true);
    const restored = (await patch(issue.issueId, { archived: false })).body.issue;
    expect(restored).toMatchObject({ archived: false, archivedAt: null });
    expect(await events('issue.archived', issue.issueId)).toHaveLength(1);
    expect(await events('issue.restored', issue.issueId)).toHaveLength(1);
    expect(await events('issue.updated', issue.issueId)).toHaveLength(1);
  });

  it('keeps startDate as the schedule anchor', async () => {
    const issue = await create({ title: 'Plan', startDate: '2026-04-01', durationDays: 5 });
    const step = async (body: Record<string, unknown>) => {
      const reply = await patch(issue.issueId, body);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const { startDate, dueDate, durationDays } = reply.body.issue;
      return { startDate, dueDate, durationDays };
    };
    expect(await step({ dueDate: '2026-04-10' })).toEqual({
      startDate: '2026-04-01',
      dueDate: '2026-04-10',
      durationDays: 9,
    });
    expect(await step({ durationDays: 2 })).toEqual({
      startDate: '2026-04-01',
      dueDate: '2026-04-03',
      durationDays: 2,
    });
    expect(await step({ startDate: '2026-05-01' })).toEqual({
      startDate: '2026-05-01',
      dueDate: '2026-05-03',
      durationDays: 2,
    });
    expect(await step({ dueDate: null })).toEqual({ startDate: '2026-05-01', dueDate: null, durationDays: null });
    expect(await step({ dueDate: '2026-05-04' })).toEqual({
      startDate: '2026-05-01',
      dueDate: '2026-05-04',
      durationDays: 3,
    });
    expect(await step({ startDate: null })).toEqual({ startDate: null, dueDate: '2026-05-04', durationDays: null });
    expect((await patch(issue.issueId, { startDate: '2026-05-09' })).body.code).toBe('INVALID_SCHEDULE');
    expect((await patch(issue.issueId, { durationDays: -2 })).body.code).toBe('INVALID_SCHEDULE');
    expect((await patch(issue.issueId, { dueDate: 'soon' })).body.code).toBe('INVALID_SCHEDULE');
  });

  it('applies the team transition rules to moves inside the team only', async () => {
    const issue = (await post({ title: 'Flowing', projectKey: 'TEST' })).body.issue;
    expect(issue.statusKey).toBe('todo');
    const blocked = await patch(issue.issueId, { statusKey: 'done' });
    expect([blocked.status, blocked.body.code]).toEqual([409, 'WORKFLOW_TRANSITION_BLOCKED']);
    expect((await patch(issue.issueId, { statusKey: 'todo' })).status).toBe(200);
    expect((await patch(issue.issueId, { statusKey: 'doing' })).body.issue.statusKey).toBe('doing');
    expect((await patch(issue.issueId, { statusKey: 'done' })).body.issue.statusKey).toBe('done');
    expect((await patch(issue.issueId, { statusKey: 'in-progress' })).body.code).toBe('STATUS_INVALID_FOR_PROJECT');
    expect((await patch(issue.issueId, { statusKey: 'unknown' })).body.code).toBe('STATUS_NOT_FOUND');
    // ENG has no rules: any move is allowed there; a move into ENG only needs a valid status there.
    const moved = await patch(issue.issueId, { projectKey: 'API', teamKey: 'ENG', statusKey: 'backlog' });
    expect(moved.body.issue).toMatchObject({ issueKey: issue.issueKey, teamKey: 'ENG', statusKey: 'backlog' });
  });

  it("moves an issue to another team's project, keeping its key and clearing the old container", async () => {
    const launch = ids.containers['ENG/API/Launch'];
    const issue = await create({
      title: 'Traveller',
      assigneeId: ids.users.alice,
      epicId: launch,
      milestoneId: 'ms_launch_beta',
      tags: ['travel'],
    });
    expect((await patch(issue.issueId, { projectKey: 'TEST' })).body.code).toBe('STATUS_INVALID_FOR_PROJECT');
    expect((await patch(issue.issueId, { projectKey: 'TEST', statusKey: 'todo' })).body.code).toBe(
      'ASSIGNEE_NOT_IN_PROJECT_TEAM',
    );
    const moved = await patch(issue.issueId, { projectKey: 'TEST', statusKey: 'todo', assigneeId: ids.users.carol });
    expect(moved.status).toBe(200);
    expect(moved.body.issue).toMatchObject({
      issueKey: issue.issueKey,
      projectKey: 'TEST',
      teamKey: 'QA',
      teamId: ids.teams.QA,
      statusKey: 'todo',
      assigneeId: ids.users.carol,
      issueContainerId: null,
      epicId: null,
      milestoneId: null,
    });
    const travel = (await get('/tags')).body.tags.find((t: { name: string }) => t.name === 'travel');
    expect(travel.projectIds).toEqual([ids.projects['QA/TEST']]);
    expect((await get(`/issues/by-key/${issue.issueKey}`)).body.issue.projectKey).toBe('TEST');
    expect((await patch(issue.issueId, { epicId: launch })).body.code).toBe('ISSUE_CONTAINER_NOT_FOUND');
    expect((await patch(issue.issueId, { teamKey: 'ENG' })).body.code).toBe('PROJECT_TEAM_MISMATCH');
  });

  it('checks the current status against the workflow of a project in the same team', async () => {
    const issue = await create({ title: 'To flow' });
    const refused = await patch(issue.issueId, { projectKey: 'FLOW' });
    expect([refused.status, refused.body.code]).toEqual([400, 'STATUS_INVALID_FOR_PROJECT_WORKFLOW']);
    const moved = await patch(issue.issueId, { projectKey: 'FLOW', statusKey: 'in-progress' });
    expect(moved.body.issue).toMatchObject({
      projectKey: 'FLOW',
      teamKey: 'ENG',
      statusKey: 'in-progress',
      issueKey: issue.issueKey,
    });
  });

  it('clears a milestone when the issue leaves its container', async () => {
    const issue = await create({
      title: 'Milestoned',
      epicId: ids.containers['ENG/API/Launch'],
      milestoneId: 'ms_launch_beta',
    });
    expect((await patch(issue.issueId, { milestoneId: null })).body.issue.milestoneId).toBeNull();
    expect((await patch(issue.issueId, { milestoneId: 'ms_launch_beta' })).body.issue.milestoneId).toBe(
      'ms_launch_beta',
    );
    expect((await patch(issue.issueId, { issueContainerId: null })).body.issue).toMatchObject({
      issueContainerId: null,
      milestoneId: null,
    });
  });
});
