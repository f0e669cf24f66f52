import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/** A project with sub-tasks switched off, beside the standard fixture. */
const ACME_NO_SUBTASKS = {
  workspace: ACME.workspace,
  projects: [{ team: 'ENG', key: 'NOSUB', name: 'No sub-tasks', subtasks: false }],
};

let h: Harness;
let acme: ApplyResult;
let parent: { issueId: string; issueKey: string };
let otherParent: { issueId: string; issueKey: string };
let infraParent: { issueId: string; issueKey: string };

const url = (issueId: string, rest = '') => `/api/external/issues/${issueId}/subtasks${rest}`;
const createSub = (issueId: string, body: unknown, token = TOKENS.admin) =>
  h.call('POST', url(issueId), { token, body });

async function createIssue(body: Record<string, unknown>) {
  const res = await h.call('POST', '/api/external/issues', { token: TOKENS.admin, body });
  expect(res.status).toBe(201);
  return res.body.issue;
}

async function subtask(issueId: string, body: Record<string, unknown>) {
  const res = await createSub(issueId, body);
  expect(res.status).toBe(201);
  return res.body.subtask;
}

async function eventsFor(type: string, subtaskId: string) {
  const rows = await h.database.db
    .selectFrom('outbox_events')
    .select(['payload', 'project_id'])
    .where('type', '=', type)
    .execute();
  return rows
    .map((r) => ({ projectId: r.project_id, ...JSON.parse(r.payload) }))
    .filter((e) => e.data.subtask.subtaskId === subtaskId);
}

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX, ACME_NO_SUBTASKS]);
  const [base, extra] = [await h.apply(ACME), await h.apply(ACME_NO_SUBTASKS)];
  acme = { ...base, projects: { ...base.projects, ...extra.projects } };
  parent = await createIssue({
    title: 'Parent',
    projectId: acme.projects['ENG/API'],
    reporterId: acme.users.alice,
    epicId: acme.containers['ENG/API/Launch'],
  });
  otherParent = await createIssue({ title: 'Other parent', projectId: acme.projects['ENG/API'] });
  infraParent = await createIssue({ title: 'Ops parent', projectId: acme.projects['OPS/INFRA'] });
});
afterAll(() => h.close());

describe('POST /issues/{issueId}/subtasks', () => {
  it('creates a sub-task that inherits reporter, project and container from its parent', async () => {
    const res = await createSub(parent.issueId, { title: '  Write the docs ' });
    expect(res.status).toBe(201);
    expect(res.body.subtask).toEqual({
      subtaskId: expect.stringMatching(/^sub_/),
      parentIssueId: parent.issueId,
      title: 'Write the docs',
      status: 'to-do',
      assigneeId: null,
      reporterId: acme.users.alice,
      projectId: acme.projects['ENG/API'],
      epicId: acme.containers['ENG/API/Launch'],
      issueContainerId: acme.containers['ENG/API/Launch'],
      startDate: null,
      dueDate: null,
      durationDays: null,
      links: [],
      migrated: false,
      migratedIssueId: null,
      position: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      version: 1,
    });
    const [event] = await eventsFor('subtask.created', res.body.subtask.subtaskId);
    expect(event).toMatchObject({
      projectId: acme.projects['ENG/API'],
      data: { subtask: res.body.subtask, issue: { issueId: parent.issueId, issueKey: parent.issueKey } },
    });
  });

  it('takes status, assignee and a schedule, and goes last', async () => {
    const res = await createSub(parent.issueKey, {
      title: 'Review',
      status: 'in-progress',
      assigneeId: acme.users.carol,
      startDate: '2026-03-01',
      durationDays: 4,
    });
    expect(res.status).toBe(201);
    expect(res.body.subtask).toMatchObject({
      parentIssueId: parent.issueId,
      status: 'in-progress',
      assigneeId: acme.users.carol,
      startDate: '2026-03-01',
      dueDate: '2026-03-05',
      durationDays: 4,
      position: 1,
    });
    expect((await subtask(parent.issueId, { title: 'Agent work', assigneeId: 'api-token:bot' })).assigneeId).toBe(
      'api-token:bot',
    );
  });

  it('answers the codes of bad fields', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'SUBTASK_TITLE_REQUIRED'],
      [{ title: '' }, 'SUBTASK_TITLE_REQUIRED'],
      [{ title: '   ' }, 'SUBTASK_TITLE_REQUIRED'],
      [{ title: 12 }, 'SUBTASK_TITLE_REQUIRED'],
      [{ title: 'x'.repeat(501) }, 'VALIDATION_FAILED'],
      [{ title: 'Bad', status: 'blocked' }, 'VALIDATION_FAILED'],
      [{ title: 'Bad', startDate: '2026-03-10', dueDate: '2026-03-01' }, 'INVALID_SCHEDULE'],
      [{ title: 'Bad', startDate: '2026-13-01' }, 'INVALID_SCHEDULE'],
      [{ title: 'Bad', durationDays: -1, startDate: '2026-03-01' }, 'INVALID_SCHEDULE'],
      [{ title: 'Bad', startDate: '2026-03-01', dueDate: '2026-03-03', durationDays: 5 }, 'INVALID_SCHEDULE'],
      [{ title: 'Bad', assigneeId: 'usr_nobody' }, 'ASSIGNEE_NOT_IN_WORKSPACE'],
      [{ title: 'Bad', assigneeId: 'api-token:off' }, 'ASSIGNEE_NOT_IN_WORKSPACE'],
      [{ title: 'Bad', assigneeId: 'api-token:idle' }, 'ASSIGNEE_NOT_IN_PROJECT'],
      [{ title: 'Bad', reporterId: acme.users.bob }, 'VALIDATION_FAILED'],
    ];
    for (const [body, code] of cases) {
      const res = await createSub(parent.issueId, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code });
    }
    const outsider = await createSub(parent.issueId, { title: 'Bad', assigneeId: acme.users.bob });
    expect(outsider.body).toMatchObject({ code: 'ASSIGNEE_NOT_IN_PROJECT_TEAM' });
  });

  it('needs sub-tasks enabled on the parent issue and its project', async () => {
    const closed = await createIssue({
      title: 'No sub-tasks here',
      projectId: acme.projects['ENG/API'],
      subtasksEnabled: false,
    });
    const noSubProject = await createIssue({
      title: 'Project without sub-tasks',
      projectId: acme.projects['ENG/NOSUB'],
    });
    for (const issueId of [closed.issueId, noSubProject.issueId]) {
      const res = await createSub(issueId, { title: 'Refused' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('SUBTASK_DISABLED');
      const read = await h.call('GET', url(issueId), { token: TOKENS.admin });
      expect(read.status).toBe(200);
      expect(read.body.subtasks).toEqual([]);
    }
  });
});

describe('reading, updating and deleting', () => {
  it('lists sub-tasks by position and reads one', async () => {
    const issue = await createIssue({ title: 'Ordered parent', projectId: acme.projects['ENG/API'] });
    const [a, b, c] = [
      await subtask(issue.issueId, { title: 'A' }),
      await subtask(issue.issueId, { title: 'B' }),
      await subtask(issue.issueId, { title: 'C' }),
    ];
    const res = await h.call('GET', url(issue.issueKey), { token: TOKENS.bot });
    expect(res.status).toBe(200);
    expect(res.body.subtasks.map((s: { title: string; position: number }) => [s.title, s.position])).toEqual([
      ['A', 0],
      ['B', 1],
      ['C', 2],
    ]);
    const one = await h.call('GET', url(issue.issueId, `/${b.subtaskId}`), { token: TOKENS.alice });
    expect(one.status).toBe(200);
    expect(one.body.subtask).toEqual(res.body.subtasks[1]);
    expect([a.position, c.position]).toEqual([0, 2]);
  });

  it('answers SUBTASK_NOT_FOUND for a sub-task of another parent', async () => {
    const foreign = await subtask(otherParent.issueId, { title: 'Belongs elsewhere' });
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { title: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await h.call(method, url(parent.issueId, `/${foreign.subtaskId}`), { token: TOKENS.admin, body });
      expect({ method, status: res.status, code: res.body.code }).toEqual({
        method,
        status: 404,
        code: 'SUBTASK_NOT_FOUND',
      });
    }
    expect((await h.call('GET', url(parent.issueId, '/sub_unknown'), { token: TOKENS.admin })).body.code).toBe(
      'SUBTASK_NOT_FOUND',
    );
  });

  it('updates fields, keeping startDate as the schedule anchor', async () => {
    const created = await subtask(parent.issueId, {
      title: 'Plan',
      startDate: '2026-04-01',
      dueDate: '2026-04-03',
      assigneeId: acme.users.alice,
    });
    const patch = (body: unknown) =>
      h.call('PATCH', url(parent.issueId, `/${created.subtaskId}`), { token: TOKENS.admin, body });
    const res = await patch({ title: 'Plan it', status: 'done', assigneeId: null, dueDate: '2026-04-06' });
    expect(res.status).toBe(200);
    expect(res.body.subtask).toMatchObject({
      title: 'Plan it',
      status: 'done',
      assigneeId: null,
      startDate: '2026-04-01',
      dueDate: '2026-04-06',
      durationDays: 5,
      reporterId: acme.users.alice,
      position: created.position,
    });
    expect((await patch({ startDate: '2026-04-10' })).body.subtask).toMatchObject({
      startDate: '2026-04-10',
      dueDate: '2026-04-15',
      durationDays: 5,
    });
    expect((await patch({ durationDays: 1 })).body.subtask).toMatchObject({ dueDate: '2026-04-11', durationDays: 1 });
    expect((await patch({ dueDate: null })).body.subtask).toMatchObject({
      startDate: '2026-04-10',
      dueDate: null,
      durationDays: null,
    });
    const last = (await patch({ title: 'Plan it well' })).body.subtask;
    const [event] = (await eventsFor('subtask.updated', created.subtaskId)).slice(-1);
    expect(event.data).toEqual({
      subtask: last,
      issue: { issueId: parent.issueId, issueKey: parent.issueKey },
      changes: { title: { from: 'Plan it', to: 'Plan it well' } },
    });
  });

  it('answers the codes of bad updates', async () => {
    const created = await subtask(parent.issueId, { title: 'Guarded', startDate: '2026-05-10' });
    const cases: Array<[unknown, string]> = [
      [{}, 'UNSUPPORTED_ACTION'],
      [{ title: ' ' }, 'SUBTASK_TITLE_REQUIRED'],
      [{ title: null }, 'SUBTASK_TITLE_REQUIRED'],
      [{ status: 'todo' }, 'VALIDATION_FAILED'],
      [{ dueDate: '2026-05-01' }, 'INVALID_SCHEDULE'],
      [{ assigneeId: acme.users.bob }, 'ASSIGNEE_NOT_IN_PROJECT_TEAM'],
      [{ parentIssueId: otherParent.issueId }, 'VALIDATION_FAILED'],
    ];
    for (const [body, code] of cases) {
      const res = await h.call('PATCH', url(parent.issueId, `/${created.subtaskId}`), { token: TOKENS.admin, body });
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code });
    }
  });

  it('deletes a sub-task', async () => {
    const created = await subtask(parent.issueId, { title: 'Short-lived' });
    const res = await h.call('DELETE', url(parent.issueId, `/${created.subtaskId}`), { token: TOKENS.admin });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await h.call('GET', url(parent.issueId, `/${created.subtaskId}`), { token: TOKENS.admin })).body.code).toBe(
      'SUBTASK_NOT_FOUND',
    );
    expect((await h.call('DELETE', url(parent.issueId, `/${created.subtaskId}`), { token: TOKENS.admin })).status).toBe(
      404,
    );
    const [event] = await eventsFor('subtask.deleted', created.subtaskId);
    expect(event.data).toEqual({ subtask: created, issue: { issueId: parent.issueId, issueKey: parent.issueKey } });
  });

  it('keeps reads open but refuses every write once sub-tasks are disabled', async () => {
    const issue = await createIssue({ title: 'Closing soon', projectId: acme.projects['ENG/API'] });
    const [a, b] = [await subtask(issue.issueId, { title: 'A' }), await subtask(issue.issueId, { title: 'B' })];
    const disable = await h.call('PATCH', `/api/external/issues/${issue.issueId}`, {
      token: TOKENS.admin,
      body: { subtasksEnabled: false },
    });
    expect(disable.status).toBe(200);
    const one = url(issue.issueId, `/${a.subtaskId}`);
    const writes: Array<[string, string, unknown]> = [
      ['POST', url(issue.issueId), { title: 'C' }],
      ['PATCH', one, { title: 'A2' }],
      ['DELETE', one, undefined],
      ['POST', `${one}/links`, { type: 'related', targetSubtaskId: b.subtaskId }],
      ['DELETE', `${one}/links`, { linkId: 'lnk_any' }],
      ['POST', `${one}/promote`, { statusMapping: { 'to-do': 'todo' } }],
    ];
    for (const [method, path, body] of writes) {
      const res = await h.call(method, path, { token: TOKENS.admin, body });
      expect({ method, path, status: res.status, code: res.body.code }).toEqual({
        method,
        path,
        status: 400,
        code: 'SUBTASK_DISABLED',
      });
    }
    expect((await h.call('GET', url(issue.issueId), { token: TOKENS.admin })).body.subtasks).toHaveLength(2);
    expect((await h.call('GET', one, { token: TOKENS.admin })).status).toBe(200);
  });
});

describe('visibility', () => {
  it('answers ISSUE_NOT_FOUND for parents the caller cannot see', async () => {
    const infraSub = await subtask(infraParent.issueId, { title: 'Ops work' });
    const cases: Array<[string, string]> = [
      [TOKENS.bot, infraParent.issueId],
      [TOKENS.globex, parent.issueId],
      [TOKENS.admin, 'iss_unknown'],
    ];
    for (const [token, issueId] of cases) {
      const list = await h.call('GET', url(issueId), { token });
      expect(list.status).toBe(404);
      expect(list.body.code).toBe('ISSUE_NOT_FOUND');
      expect((await createSub(issueId, { title: 'Sneaky' }, token)).body.code).toBe('ISSUE_NOT_FOUND');
      expect((await h.call('GET', url(issueId, `/${infraSub.subtaskId}`), { token })).body.code).toBe(
        'ISSUE_NOT_FOUND',
      );
    }
    expect((await h.call('GET', url(infraParent.issueId), { token: TOKENS.alice })).body.subtasks).toHaveLength(1);
  });
});
