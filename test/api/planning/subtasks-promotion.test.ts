import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/** A project whose workflow allows only three of the team's statuses. */
const ACME_FLOW = {
  workspace: ACME.workspace,
  projects: [{ team: 'ENG', key: 'FLOW', name: 'Flow', statuses: ['todo', 'in-progress', 'done'] }],
};

let h: Harness;
let acme: ApplyResult;
let opsTodoId: string;

const subtasksUrl = (issueId: string) => `/api/external/issues/${issueId}/subtasks`;
const promote = (issueId: string, subtaskId: string, body: unknown, token = TOKENS.admin) =>
  h.call('POST', `${subtasksUrl(issueId)}/${subtaskId}/promote`, { token, body });

async function issue(body: Record<string, unknown>) {
  const res = await h.call('POST', '/api/external/issues', { token: TOKENS.admin, body });
  expect(res.status).toBe(201);
  return res.body.issue;
}

async function subtask(issueId: string, body: Record<string, unknown>) {
  const res = await h.call('POST', subtasksUrl(issueId), { token: TOKENS.admin, body });
  expect(res.status).toBe(201);
  return res.body.subtask;
}

async function outbox(type: string) {
  const rows = await h.database.db.selectFrom('outbox_events').select('payload').where('type', '=', type).execute();
  return rows.map((r) => JSON.parse(r.payload));
}

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX, ACME_FLOW]);
  const [base, extra] = [await h.apply(ACME), await h.apply(ACME_FLOW)];
  acme = { ...base, projects: { ...base.projects, ...extra.projects } };
  const ops = await h.call('GET', '/api/external/statuses?teamKey=OPS', { token: TOKENS.admin });
  opsTodoId = ops.body.statuses.find((s: { statusKey: string }) => s.statusKey === 'todo').statusId;
});
afterAll(() => h.close());

describe('POST /issues/{issueId}/subtasks/{subtaskId}/promote', () => {
  it('creates an issue from the sub-task, linked related to the parent, and marks the sub-task migrated', async () => {
    const launch = acme.containers['ENG/API/Launch'];
    const parent = await issue({
      title: 'Parent',
      projectId: acme.projects['ENG/API'],
      reporterId: acme.users.alice,
      epicId: launch,
    });
    const sub = await subtask(parent.issueId, {
      title: 'Grow into an issue',
      assigneeId: acme.users.carol,
      startDate: '2026-02-02',
      dueDate: '2026-02-09',
    });
    const res = await promote(parent.issueKey, sub.subtaskId, { statusMapping: { 'to-do': 'todo', done: 'done' } });
    expect(res.status).toBe(201);
    const { issue: promoted, subtask: migrated } = res.body;
    expect(promoted).toMatchObject({
      issueId: expect.stringMatching(/^iss_/),
      title: 'Grow into an issue',
      projectId: acme.projects['ENG/API'],
      statusKey: 'todo',
      assigneeId: acme.users.carol,
      reporterId: acme.users.alice,
      startDate: '2026-02-02',
      dueDate: '2026-02-09',
      durationDays: 7,
      issueContainerId: launch,
      epicId: launch,
      source: { type: 'subtask', id: sub.subtaskId },
    });
    expect(promoted.links).toEqual([
      expect.objectContaining({ type: 'related', targetIssueId: parent.issueId, isSatisfied: null }),
    ]);
    expect(migrated).toEqual({
      ...sub,
      migrated: true,
      migratedIssueId: promoted.issueId,
      updatedAt: expect.any(String),
      version: 2,
    });

    const parentNow = await h.call('GET', `/api/external/issues/${parent.issueId}`, { token: TOKENS.admin });
    expect(parentNow.body.issue.links).toEqual([
      expect.objectContaining({ type: 'related', targetIssueId: promoted.issueId }),
    ]);
    const listed = await h.call('GET', subtasksUrl(parent.issueId), { token: TOKENS.admin });
    expect(listed.body.subtasks).toEqual([migrated]);

    expect((await outbox('issue.created')).some((e) => e.data.issue.issueId === promoted.issueId)).toBe(true);
    const promotedEvent = (await outbox('subtask.promoted')).find((e) => e.data.subtask.subtaskId === sub.subtaskId);
    expect(promotedEvent.data).toEqual({
      subtask: migrated,
      issue: { issueId: parent.issueId, issueKey: parent.issueKey },
      changes: { migrated: { from: false, to: true }, migratedIssueId: { from: null, to: promoted.issueId } },
    });

    const again = await promote(parent.issueId, sub.subtaskId, { statusMapping: { 'to-do': 'todo' } });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('UNSUPPORTED_ACTION');
  });

  it('needs only the entry for the current status, by statusKey or statusId', async () => {
    const parent = await issue({ title: 'Plain parent', projectId: acme.projects['ENG/API'] });
    const started = await subtask(parent.issueId, { title: 'Started', status: 'in-progress' });
    const res = await promote(parent.issueId, started.subtaskId, { statusMapping: { 'in-progress': 'IN-PROGRESS' } });
    expect(res.status).toBe(201);
    expect(res.body.issue).toMatchObject({
      statusKey: 'in-progress',
      reporterId: null,
      assigneeId: null,
      issueContainerId: null,
      startDate: null,
    });

    const statuses = await h.call('GET', '/api/external/statuses?teamKey=ENG', { token: TOKENS.admin });
    const doneId = statuses.body.statuses.find((s: { statusKey: string }) => s.statusKey === 'done').statusId;
    const finished = await subtask(parent.issueId, { title: 'Finished', status: 'done' });
    const byId = await promote(parent.issueId, finished.subtaskId, { statusMapping: { done: doneId } }, TOKENS.bot);
    expect(byId.status).toBe(201);
    expect(byId.body.issue).toMatchObject({ statusId: doneId, createdBy: 'api-token:bot' });
  });

  it('answers SUBTASK_STATUS_MAPPING_REQUIRED when the mapping cannot be used, and changes nothing', async () => {
    const parent = await issue({ title: 'Flow parent', projectId: acme.projects['ENG/FLOW'] });
    const sub = await subtask(parent.issueId, { title: 'Unmapped' });
    const mappings: unknown[] = [
      undefined,
      {},
      { statusMapping: {} },
      { statusMapping: 'todo' },
      { statusMapping: { done: 'done' } },
      { statusMapping: { 'to-do': '' } },
      { statusMapping: { 'to-do': 'nope' } },
      { statusMapping: { 'to-do': 'in-review' } },
      { statusMapping: { 'to-do': opsTodoId } },
    ];
    for (const body of mappings) {
      const res = await promote(parent.issueId, sub.subtaskId, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 400,
        code: 'SUBTASK_STATUS_MAPPING_REQUIRED',
      });
    }
    const unchanged = await h.call('GET', `${subtasksUrl(parent.issueId)}/${sub.subtaskId}`, { token: TOKENS.admin });
    expect(unchanged.body.subtask).toMatchObject({ migrated: false, migratedIssueId: null });
    const issues = await h.call('GET', `/api/external/issues?project=${acme.projects['ENG/FLOW']}`, {
      token: TOKENS.admin,
    });
    expect(issues.body.issues).toHaveLength(1);
    expect((await promote(parent.issueId, sub.subtaskId, { statusMapping: { 'to-do': 'todo' } })).status).toBe(201);
  });

  it('answers not-found codes for unknown, foreign and hidden sub-tasks', async () => {
    const parent = await issue({ title: 'Owner', projectId: acme.projects['ENG/API'] });
    const other = await issue({ title: 'Other', projectId: acme.projects['ENG/API'] });
    const foreign = await subtask(other.issueId, { title: 'Not yours' });
    const mapping = { statusMapping: { 'to-do': 'todo' } };
    expect((await promote(parent.issueId, foreign.subtaskId, mapping)).body.code).toBe('SUBTASK_NOT_FOUND');
    expect((await promote(parent.issueId, 'sub_unknown', mapping)).body.code).toBe('SUBTASK_NOT_FOUND');
    const infra = await issue({ title: 'Ops', projectId: acme.projects['OPS/INFRA'] });
    const hidden = await subtask(infra.issueId, { title: 'Hidden' });
    for (const token of [TOKENS.bot, TOKENS.globex]) {
      const res = await promote(infra.issueId, hidden.subtaskId, mapping, token);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('ISSUE_NOT_FOUND');
    }
  });
});
