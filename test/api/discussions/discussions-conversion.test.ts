import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

const ACME_GROUPS = {
  workspace: ACME.workspace,
  discussionGroups: [{ name: 'Town hall', owner: 'bob', visibility: 'workspace' }],
};

let h: Harness;
let acme: ApplyResult;
let townHall: string;

async function createTopic(body: Record<string, unknown>, token = TOKENS.admin): Promise<string> {
  const res = await h.call('POST', '/api/external/discussion/topics', { token, body: { groupId: townHall, ...body } });
  expect(res.status).toBe(201);
  return res.body.topic.topicId;
}
const convert = (topicId: string, body: unknown = {}, token = TOKENS.admin, headers: Record<string, string> = {}) =>
  h.call('POST', `/api/external/discussion/topics/${topicId}/convert`, { token, body, headers });

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = { ...(await h.apply(ACME)), discussionGroups: (await h.apply(ACME_GROUPS)).discussionGroups };
  townHall = acme.discussionGroups['Town hall'];
});
afterAll(() => h.close());

describe('POST /api/external/discussion/topics/{topicId}/convert', () => {
  it('creates the issue from the topic once, then answers it with created: false', async () => {
    const topicId = await createTopic({
      title: 'Offline mode',
      description: 'Customers ask for it',
      status: 'in-progress',
      tags: ['mobile', 'bug'],
    });
    const res = await convert(topicId, { projectKey: 'API', teamKey: 'ENG' });
    expect(res.status).toBe(201);
    expect(res.body.created).toBe(true);
    expect(res.body.issue).toMatchObject({
      issueId: expect.stringMatching(/^iss_/),
      issueKey: expect.stringMatching(/^ENG-\d+$/),
      title: 'Offline mode',
      description: 'Customers ask for it',
      projectId: acme.projects['ENG/API'],
      tags: ['mobile', 'bug'],
      source: { type: 'discussion_topic', id: topicId },
      createdBy: 'api-token:admin',
    });
    expect(res.body.topic).toMatchObject({
      topicId,
      status: 'in-progress',
      converted: true,
      convertedIssueId: res.body.issue.issueId,
    });

    const issue = await h.call('GET', `/api/external/issues/${res.body.issue.issueId}`, { token: TOKENS.admin });
    expect(issue.status).toBe(200);
    expect(issue.body.issue.source).toEqual({ type: 'discussion_topic', id: topicId });

    const again = await convert(topicId, { projectKey: 'WEB', teamKey: 'ENG', title: 'Ignored' }, TOKENS.alice);
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);
    expect(again.body.issue).toMatchObject({
      issueId: res.body.issue.issueId,
      projectId: acme.projects['ENG/API'],
      title: 'Offline mode',
    });
    expect(again.body.topic).toEqual(res.body.topic);
    const issues = await h.call('GET', '/api/external/issues?q=Offline%20mode', { token: TOKENS.admin });
    expect(issues.body.issues).toHaveLength(1);
  });

  it('takes the body title, dueDate, assignee and status', async () => {
    const topicId = await createTopic({ title: 'Rename me' });
    const res = await convert(topicId, {
      projectId: acme.projects['ENG/WEB'],
      title: 'Ship the rename',
      dueDate: '2026-06-30',
      assigneeId: acme.users.alice,
      statusKey: 'in-progress',
    });
    expect(res.status).toBe(201);
    expect(res.body.issue).toMatchObject({
      title: 'Ship the rename',
      projectId: acme.projects['ENG/WEB'],
      dueDate: '2026-06-30',
      assigneeId: acme.users.alice,
      statusKey: 'in-progress',
    });
    expect(res.body.topic.title).toBe('Rename me');
  });

  it('defaults the project to sourceProjectId, else the first linked project, else answers PROJECT_REQUIRED', async () => {
    const sourced = await createTopic({
      title: 'Sourced',
      sourceProjectId: acme.projects['OPS/INFRA'],
      links: [{ targetType: 'project', targetKey: 'WEB', teamKey: 'ENG' }],
    });
    expect((await convert(sourced)).body.issue.projectId).toBe(acme.projects['OPS/INFRA']);

    const linked = await createTopic({
      title: 'Linked',
      links: [
        { targetType: 'project', targetKey: 'WEB', teamKey: 'ENG' },
        { targetType: 'project', targetKey: 'API', teamKey: 'ENG' },
      ],
    });
    expect((await convert(linked)).body.issue.projectId).toBe(acme.projects['ENG/WEB']);

    const bare = await createTopic({ title: 'Nowhere to go' });
    const res = await convert(bare);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('PROJECT_REQUIRED');
    const topic = await h.call('GET', `/api/external/discussion/topics/${bare}`, { token: TOKENS.admin });
    expect(topic.body.topic).toMatchObject({ converted: false, convertedIssueId: null });
  });

  it('needs access to the source project at convert time, and skips linked projects the caller cannot see', async () => {
    const sourced = await createTopic({ title: 'Ops only', sourceProjectId: acme.projects['OPS/INFRA'] });
    const hidden = await convert(sourced, {}, TOKENS.bot);
    expect(hidden.status).toBe(404);
    // The source project reads as null to this caller, so the error does not name it either.
    expect(hidden.body).toMatchObject({ code: 'PROJECT_NOT_FOUND', details: { field: 'sourceProjectId' } });
    expect(JSON.stringify(hidden.body)).not.toContain(acme.projects['OPS/INFRA']);

    const linked = await createTopic({
      title: 'Mixed links',
      links: [
        { targetType: 'project', targetKey: 'INFRA' },
        { targetType: 'project', targetKey: 'API', teamKey: 'ENG' },
      ],
    });
    const res = await convert(linked, {}, TOKENS.bot);
    expect(res.status).toBe(201);
    expect(res.body.issue.projectId).toBe(acme.projects['ENG/API']);

    const onlyHidden = await createTopic({
      title: 'Only hidden links',
      links: [{ targetType: 'project', targetKey: 'INFRA' }],
    });
    expect((await convert(onlyHidden, {}, TOKENS.bot)).body.code).toBe('PROJECT_REQUIRED');
    const bodyProject = await convert(onlyHidden, { projectKey: 'INFRA' }, TOKENS.bot);
    expect(bodyProject.status).toBe(404);
    expect(bodyProject.body.code).toBe('PROJECT_NOT_FOUND');
  });

  it("answers a repeat with issue null when the converted issue is outside the caller's projects", async () => {
    const topicId = await createTopic({ title: 'Infra rollout' });
    const first = await convert(topicId, { projectKey: 'INFRA' });
    expect(first.status).toBe(201);
    const repeat = await convert(topicId, {}, TOKENS.idle);
    expect(repeat.status).toBe(200);
    // The issue is in a project this caller cannot see: neither it nor its id is shown.
    expect(repeat.body).toEqual({
      issue: null,
      topic: { ...first.body.topic, convertedIssueId: null },
      created: false,
    });
  });

  it('answers the issue codes for bad conversion fields, converting nothing', async () => {
    const topicId = await createTopic({ title: 'Validate me' });
    const cases: Array<[Record<string, unknown>, string, number]> = [
      [{ projectKey: 'API', teamKey: 'ENG', title: ' ' }, 'TITLE_REQUIRED', 400],
      [{ projectKey: 'API', teamKey: 'ENG', title: 3 }, 'TITLE_REQUIRED', 400],
      [{ projectKey: 'API', teamKey: 'ENG', dueDate: '2026-02-30' }, 'INVALID_SCHEDULE', 400],
      [{ projectKey: 'API', teamKey: 'ENG', assigneeId: 'usr_ghost' }, 'ASSIGNEE_NOT_IN_WORKSPACE', 400],
      [{ projectKey: 'API', teamKey: 'ENG', statusKey: 'nope' }, 'STATUS_NOT_FOUND', 404],
      [{ projectKey: 'API', teamKey: 'XYZ' }, 'TEAM_NOT_FOUND', 404],
      [{ projectId: 'prj_missing' }, 'PROJECT_NOT_FOUND', 404],
      [{ issueId: 'iss_x' }, 'VALIDATION_FAILED', 400],
    ];
    for (const [body, code, status] of cases) {
      const res = await convert(topicId, body);
      expect({ status: res.status, code: res.body.code }, JSON.stringify(body)).toEqual({ status, code });
    }
    const topic = await h.call('GET', `/api/external/discussion/topics/${topicId}`, { token: TOKENS.admin });
    expect(topic.body.topic).toMatchObject({ converted: false, convertedIssueId: null });
  });

  it('replays a conversion sent again with the same Idempotency-Key', async () => {
    const topicId = await createTopic({ title: 'Idempotent convert' });
    const headers = { 'idempotency-key': 'crm:topic:42' };
    const first = await convert(topicId, { projectKey: 'API', teamKey: 'ENG' }, TOKENS.admin, headers);
    expect(first.status).toBe(201);
    const replay = await convert(topicId, { projectKey: 'API', teamKey: 'ENG' }, TOKENS.admin, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const reused = await convert(topicId, { projectKey: 'WEB', teamKey: 'ENG' }, TOKENS.admin, headers);
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('answers DISCUSSION_TOPIC_NOT_FOUND for unknown and foreign topics', async () => {
    const topicId = await createTopic({ title: 'Acme only' });
    for (const [id, token] of [
      ['top_unknown', TOKENS.admin],
      [topicId, TOKENS.globex],
    ]) {
      const res = await convert(id, { projectKey: 'API' }, token);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'DISCUSSION_TOPIC_NOT_FOUND', details: { topicId: id } });
    }
  });
});
