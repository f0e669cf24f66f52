import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/** Containers beyond the standard fixture, and a project that has containers switched off. */
const ACME_PLANNING = {
  workspace: ACME.workspace,
  projects: [
    { team: 'ENG', key: 'API', name: 'Public API', containers: [{ name: 'Launch' }, { name: 'Beta' }] },
    { team: 'ENG', key: 'WEB', name: 'Website', containers: [{ name: 'Redesign' }] },
    { team: 'OPS', key: 'INFRA', name: 'Infrastructure', containers: [{ name: 'Migration' }] },
    { team: 'ENG', key: 'DOCS', name: 'Docs', issueContainers: false, containers: [{ name: 'Hidden' }] },
  ],
};
const GLOBEX_PLANNING = {
  workspace: GLOBEX.workspace,
  projects: [{ team: 'ENG', key: 'API', name: 'Globex API', containers: [{ name: 'Globex launch' }] }],
};

const BASE = '/api/external/issue-container-milestones';

let h: Harness;
let acme: ApplyResult;
let globexContainer: string;
let launch: string;
let beta: string;

const post = (body: unknown, token = TOKENS.admin) => h.call('POST', BASE, { token, body });
const patch = (id: string, body: unknown, token = TOKENS.admin) => h.call('PATCH', `${BASE}/${id}`, { token, body });
const get = (id: string, token = TOKENS.admin) => h.call('GET', `${BASE}/${id}`, { token });
const list = (query: string, token = TOKENS.admin) => h.call('GET', `${BASE}${query}`, { token });
const titles = (body: { milestones: Array<{ title: string }> }) => body.milestones.map((m) => m.title);

async function createMilestone(body: Record<string, unknown>, token = TOKENS.admin) {
  const res = await post({ issueContainerId: launch, ...body }, token);
  expect(res.status).toBe(201);
  return res.body.milestone;
}

async function events(type: string) {
  const rows = await h.database.db
    .selectFrom('outbox_events')
    .select(['payload', 'project_id'])
    .where('type', '=', type)
    .execute();
  return rows.map((r) => ({ projectId: r.project_id, ...JSON.parse(r.payload) }));
}

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX, ACME_PLANNING, GLOBEX_PLANNING]);
  const [base, extra] = [await h.apply(ACME), await h.apply(ACME_PLANNING)];
  acme = {
    ...base,
    projects: { ...base.projects, ...extra.projects },
    containers: { ...base.containers, ...extra.containers },
  };
  globexContainer = (await h.apply(GLOBEX_PLANNING)).containers['ENG/API/Globex launch'];
  launch = acme.containers['ENG/API/Launch'];
  beta = acme.containers['ENG/API/Beta'];
});
afterAll(() => h.close());

describe('POST /issue-container-milestones', () => {
  it('creates a milestone with defaults', async () => {
    const res = await post({ title: '  Alpha ready ', issueContainerId: launch });
    expect(res.status).toBe(201);
    expect(res.body.milestone).toEqual({
      milestoneId: expect.stringMatching(/^ms_/),
      issueContainerId: launch,
      epicId: launch,
      projectId: acme.projects['ENG/API'],
      title: 'Alpha ready',
      ownerId: null,
      status: 'planned',
      startDate: null,
      dueDate: null,
      order: 0,
      tags: [],
      labels: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      version: 1,
    });
    const [event] = (await events('milestone.created')).filter(
      (e) => e.data.milestone.milestoneId === res.body.milestone.milestoneId,
    );
    expect(event).toMatchObject({ projectId: acme.projects['ENG/API'], data: { milestone: res.body.milestone } });
  });

  it('takes every field, epicId as the container alias, and puts new milestones last', async () => {
    const full = await createMilestone({
      title: 'Beta gate',
      issueContainerId: undefined,
      epicId: beta,
      ownerId: acme.users.alice,
      status: 'at-risk',
      startDate: '2026-02-01',
      dueDate: '2026-02-28',
      tags: ['Gate', ' gate ', 'release'],
    });
    expect(full).toMatchObject({
      issueContainerId: beta,
      epicId: beta,
      ownerId: acme.users.alice,
      status: 'at-risk',
      startDate: '2026-02-01',
      dueDate: '2026-02-28',
      order: 0,
      tags: ['Gate', 'release'],
    });
    const explicit = await createMilestone({ title: 'Explicit', issueContainerId: beta, order: 10 });
    expect(explicit.order).toBe(10);
    expect((await createMilestone({ title: 'After explicit', issueContainerId: beta })).order).toBe(11);
    const agent = await createMilestone({
      title: 'Agent owned',
      issueContainerId: beta,
      epicId: beta,
      ownerId: 'api-token:bot',
    });
    expect(agent.ownerId).toBe('api-token:bot');
  });

  it('needs a title', async () => {
    for (const title of [undefined, '', '   ', 42, null]) {
      const res = await post({ title, issueContainerId: launch });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('TITLE_REQUIRED');
    }
  });

  it('needs a usable container', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{}, 400, 'ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE'],
      [{ issueContainerId: null }, 400, 'ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE'],
      [{ epicId: '  ' }, 400, 'ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE'],
      [{ issueContainerId: 7 }, 400, 'ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE'],
      [{ issueContainerId: launch, epicId: beta }, 400, 'ISSUE_CONTAINER_FIELD_CONFLICT'],
      [{ issueContainerId: 'ic_unknown' }, 404, 'ISSUE_CONTAINER_NOT_FOUND'],
      [{ issueContainerId: globexContainer }, 404, 'ISSUE_CONTAINER_NOT_FOUND'],
      [{ issueContainerId: acme.containers['ENG/DOCS/Hidden'] }, 400, 'ISSUE_CONTAINER_DISABLED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await post({ title: 'No container', ...body });
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status, code });
    }
  });

  it('validates owner, status, dates, order, tags and unknown fields', async () => {
    const cases: Array<[Record<string, unknown>, string, string?]> = [
      [{ ownerId: 'usr_nobody' }, 'OWNER_NOT_IN_WORKSPACE'],
      [{ ownerId: 'api-token:off' }, 'OWNER_NOT_IN_WORKSPACE'],
      [{ ownerId: 5 }, 'OWNER_NOT_IN_WORKSPACE'],
      [{ status: 'done' }, 'VALIDATION_FAILED', 'status'],
      [{ startDate: '2026-02-30' }, 'INVALID_SCHEDULE'],
      [{ dueDate: 'tomorrow' }, 'INVALID_SCHEDULE'],
      [{ startDate: '2026-03-02', dueDate: '2026-03-01' }, 'INVALID_SCHEDULE'],
      [{ order: 1.5 }, 'VALIDATION_FAILED', 'order'],
      [{ tags: ['ok', ''] }, 'VALIDATION_FAILED', 'tags.1'],
    ];
    for (const [body, code, field] of cases) {
      const res = await post({ title: 'Checked', issueContainerId: launch, ...body });
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code });
      if (field) expect(res.body.details.field).toBe(field);
    }
    const unknown = await post({ title: 'Checked', issueContainerId: launch, colour: 'red' });
    expect(unknown.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { unknownFields: ['colour'] } });
  });

  it('refuses containers of projects the token cannot see', async () => {
    const res = await post({ title: 'Hidden', issueContainerId: acme.containers['OPS/INFRA/Migration'] }, TOKENS.bot);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('ISSUE_CONTAINER_NOT_FOUND');
  });
});

describe('GET and PATCH /issue-container-milestones/{milestoneId}', () => {
  it('reads a milestone with its activity, one entry per changed field', async () => {
    const created = await createMilestone({ title: 'Tracked', startDate: '2026-01-10' });
    const updated = await patch(
      created.milestoneId,
      { title: 'Tracked well', status: 'blocked', startDate: '2026-01-10', tags: ['x'] },
      TOKENS.alice,
    );
    expect(updated.status).toBe(200);
    expect(updated.body.milestone).toMatchObject({
      title: 'Tracked well',
      status: 'blocked',
      startDate: '2026-01-10',
      tags: ['x'],
    });

    const res = await get(created.milestoneId);
    expect(res.status).toBe(200);
    const { activity, ...milestone } = res.body.milestone;
    expect(milestone).toEqual(updated.body.milestone);
    expect(activity).toEqual([
      {
        action: 'created',
        field: null,
        from: null,
        to: null,
        actorId: 'api-token:admin',
        createdAt: created.createdAt,
      },
      {
        action: 'updated',
        field: 'title',
        from: 'Tracked',
        to: 'Tracked well',
        actorId: acme.users.alice,
        createdAt: expect.any(String),
      },
      {
        action: 'updated',
        field: 'status',
        from: 'planned',
        to: 'blocked',
        actorId: acme.users.alice,
        createdAt: expect.any(String),
      },
      {
        action: 'updated',
        field: 'tags',
        from: [],
        to: ['x'],
        actorId: acme.users.alice,
        createdAt: expect.any(String),
      },
    ]);
    const [event] = (await events('milestone.updated')).filter(
      (e) => e.data.milestone.milestoneId === created.milestoneId,
    );
    expect(event.data.milestone).toEqual(updated.body.milestone);
  });

  it('clears ownerId, startDate and dueDate with null', async () => {
    const created = await createMilestone({
      title: 'Clearable',
      ownerId: acme.users.carol,
      startDate: '2026-01-01',
      dueDate: '2026-01-31',
    });
    const res = await patch(created.milestoneId, { ownerId: null, startDate: null, dueDate: null });
    expect(res.status).toBe(200);
    expect(res.body.milestone).toMatchObject({ ownerId: null, startDate: null, dueDate: null });
  });

  it('validates a PATCH against the stored values', async () => {
    const created = await createMilestone({ title: 'Windowed', startDate: '2026-05-10' });
    const early = await patch(created.milestoneId, { dueDate: '2026-05-01' });
    expect(early.status).toBe(400);
    expect(early.body.code).toBe('INVALID_SCHEDULE');
    expect((await patch(created.milestoneId, { dueDate: '2026-05-10' })).status).toBe(200);
    expect((await patch(created.milestoneId, { startDate: '2026-06-01' })).body.code).toBe('INVALID_SCHEDULE');
  });

  it('answers the codes of bad updates', async () => {
    const { milestoneId } = await createMilestone({ title: 'Guarded' });
    const cases: Array<[unknown, number, string]> = [
      [{}, 400, 'UNSUPPORTED_ACTION'],
      [{ title: ' ' }, 400, 'TITLE_REQUIRED'],
      [{ issueContainerId: null }, 400, 'ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE'],
      [{ epicId: null }, 400, 'ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE'],
      [{ issueContainerId: launch, epicId: beta }, 400, 'ISSUE_CONTAINER_FIELD_CONFLICT'],
      [{ issueContainerId: acme.containers['ENG/WEB/Redesign'] }, 404, 'ISSUE_CONTAINER_NOT_FOUND'],
      [{ ownerId: 'api-token:nobody' }, 400, 'OWNER_NOT_IN_WORKSPACE'],
      [{ status: 'finished' }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await patch(milestoneId, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status, code });
    }
    const missing = await patch('ms_unknown', { title: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('ISSUE_CONTAINER_MILESTONE_NOT_FOUND');
  });

  it('moves a milestone to another container of its project, taking its issues off it', async () => {
    const { milestoneId, order } = await createMilestone({ title: 'Movable' });
    const issue = await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body: { title: 'On the milestone', projectId: acme.projects['ENG/API'], issueContainerId: launch, milestoneId },
    });
    expect(issue.status).toBe(201);
    expect(issue.body.issue.milestoneId).toBe(milestoneId);

    const res = await patch(milestoneId, { epicId: beta, order: 3 });
    expect(res.status).toBe(200);
    expect(res.body.milestone).toMatchObject({ issueContainerId: beta, epicId: beta, order: 3 });
    const reread = await h.call('GET', `/api/external/issues/${issue.body.issue.issueId}`, { token: TOKENS.admin });
    expect(reread.body.issue).toMatchObject({ issueContainerId: launch, milestoneId: null });
    const activity = (await get(milestoneId)).body.milestone.activity;
    expect(activity.slice(1)).toMatchObject([
      { action: 'updated', field: 'issueContainerId', from: launch, to: beta },
      { action: 'updated', field: 'order', from: order, to: 3 },
    ]);
  });
});

describe('DELETE /issue-container-milestones/{milestoneId}', () => {
  it('deletes the milestone and clears it from issues', async () => {
    const milestone = await createMilestone({ title: 'Doomed' });
    const issue = await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body: {
        title: 'Carries it',
        projectId: acme.projects['ENG/API'],
        epicId: launch,
        milestoneId: milestone.milestoneId,
      },
    });
    expect(issue.status).toBe(201);
    const res = await h.call('DELETE', `${BASE}/${milestone.milestoneId}`, { token: TOKENS.admin });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await get(milestone.milestoneId)).body.code).toBe('ISSUE_CONTAINER_MILESTONE_NOT_FOUND');
    const again = await h.call('DELETE', `${BASE}/${milestone.milestoneId}`, { token: TOKENS.admin });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('ISSUE_CONTAINER_MILESTONE_NOT_FOUND');
    const reread = await h.call('GET', `/api/external/issues/${issue.body.issue.issueId}`, { token: TOKENS.admin });
    expect(reread.body.issue).toMatchObject({ issueContainerId: launch, milestoneId: null });
    const [event] = (await events('milestone.deleted')).filter(
      (e) => e.data.milestone.milestoneId === milestone.milestoneId,
    );
    expect(event.data.milestone).toEqual(milestone);
  });
});

describe('visibility', () => {
  it('hides milestones of projects a token cannot see, and of other workspaces', async () => {
    const infra = await createMilestone({
      title: 'Ops only',
      issueContainerId: acme.containers['OPS/INFRA/Migration'],
    });
    for (const [token, id] of [
      [TOKENS.bot, infra.milestoneId],
      [TOKENS.globex, infra.milestoneId],
    ]) {
      const res = await get(id, token);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('ISSUE_CONTAINER_MILESTONE_NOT_FOUND');
      expect((await patch(id, { title: 'Taken over' }, token)).body.code).toBe('ISSUE_CONTAINER_MILESTONE_NOT_FOUND');
      expect((await h.call('DELETE', `${BASE}/${id}`, { token })).body.code).toBe(
        'ISSUE_CONTAINER_MILESTONE_NOT_FOUND',
      );
      expect((await h.call('GET', `${BASE}/${id}/comments`, { token })).body.code).toBe(
        'ISSUE_CONTAINER_MILESTONE_NOT_FOUND',
      );
      expect((await h.call('POST', `${BASE}/${id}/comments`, { token, body: { body: 'Hi' } })).body.code).toBe(
        'ISSUE_CONTAINER_MILESTONE_NOT_FOUND',
      );
    }
    expect((await get(infra.milestoneId, TOKENS.alice)).status).toBe(200);
    expect(titles((await list('', TOKENS.bot)).body)).not.toContain('Ops only');
    expect(titles((await list('', TOKENS.globex)).body)).toEqual([]);
    expect((await h.call('GET', BASE)).status).toBe(401);
  });
});
