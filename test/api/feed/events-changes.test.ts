import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { startReceiver, startWorkerHarness, webhookTestConfig, type Receiver } from '../../support/webhook-receiver.js';

/**
 * `data.changes` on events about writes to existing records (docs/events.md): exactly the
 * fields of the record as the API presents it whose value the write changed. For issues,
 * every updatable field is written alone, and each event's changes are compared with the
 * difference between GET before and GET after the write (the oracle), and with the fields
 * named here. Read through the change feed, which shows what webhooks deliver.
 */

const API = '/api/external';
type Json = Record<string, any>;

/** The oracle: each field of the record whose value differs between two reads, bookkeeping aside. */
function difference(before: Json, after: Json): Json {
  const changes: Json = {};
  for (const field of Object.keys(after)) {
    if (field === 'updatedAt' || field === 'version') continue;
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      changes[field] = { from: before[field], to: after[field] };
  }
  return changes;
}

describe('changes on *.updated events', () => {
  let h: Harness;
  let projects: Record<string, string>;
  let users: Record<string, string>;
  let launch: string;
  const cursors = new Map<string, string | undefined>();

  const call = async (method: string, path: string, body?: unknown, token = TOKENS.admin) => {
    const res = await h.call(method, `${API}${path}`, { token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  /** The events after the reader's previous call (its first call reads past everything before). */
  const newEvents = async (token = TOKENS.admin): Promise<Json[]> => {
    const events: Json[] = [];
    let after = cursors.get(token);
    for (;;) {
      const query = `limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`;
      const res = await h.call('GET', `${API}/events?${query}`, { token });
      expect(res.status).toBe(200);
      events.push(...res.body.events);
      after = res.body.pageInfo.nextCursor;
      if (!res.body.pageInfo.hasMore) break;
    }
    cursors.set(token, after);
    return events;
  };
  const newIssue = async (body: Json) => {
    const issue = (await call('POST', '/issues', { projectId: projects['ENG/API'], ...body })).issue;
    await newEvents();
    return issue as Json;
  };
  const getIssue = async (issueId: string) => (await call('GET', `/issues/${issueId}`)).issue as Json;

  /**
   * PATCHes the issue, checks that exactly one event of `type` was recorded, carrying the
   * issue as GET now shows it and, as changes, the oracle's difference; answers the changes.
   */
  const patchIssue = async (issueId: string, body: Json, type = 'issue.updated') => {
    const before = await getIssue(issueId);
    await call('PATCH', `/issues/${issueId}`, body);
    const after = await getIssue(issueId);
    const events = await newEvents();
    expect(events.map((e) => e.type)).toEqual([type]);
    expect(events[0].data.issue).toEqual(after);
    expect(events[0].data.changes).toEqual(difference(before, after));
    return events[0].data.changes as Json;
  };
  const changedFields = (changes: Json) => Object.keys(changes).sort();

  beforeAll(async () => {
    h = await startHarness([ACME, GLOBEX]);
    const applied = await h.apply(ACME);
    projects = applied.projects;
    users = applied.users;
    launch = applied.containers['ENG/API/Launch'];
    await newEvents();
    await newEvents(TOKENS.bot);
  });
  afterAll(() => h.close());

  describe('issues: one PATCH per updatable field', () => {
    let issue: Json;
    beforeAll(async () => {
      issue = await newIssue({ title: 'Field by field' });
    });

    it('title', async () => {
      const changes = await patchIssue(issue.issueId, { title: 'Field by field, renamed' });
      expect(changes).toEqual({ title: { from: 'Field by field', to: 'Field by field, renamed' } });
    });

    it('description, set and cleared', async () => {
      expect(await patchIssue(issue.issueId, { description: 'Why it matters.' })).toEqual({
        description: { from: null, to: 'Why it matters.' },
      });
      expect(await patchIssue(issue.issueId, { description: null })).toEqual({
        description: { from: 'Why it matters.', to: null },
      });
    });

    it('status by statusKey, and by statusId', async () => {
      const byKey = await patchIssue(issue.issueId, { statusKey: 'in-progress' });
      expect(changedFields(byKey)).toEqual(['statusId', 'statusKey']);
      expect(byKey.statusKey).toEqual({ from: 'todo', to: 'in-progress' });
      const byId = await patchIssue(issue.issueId, { statusId: byKey.statusId.from });
      expect(byId.statusKey).toEqual({ from: 'in-progress', to: 'todo' });
      expect(byId.statusId).toEqual({ from: byKey.statusId.to, to: byKey.statusId.from });
    });

    it('assignee, set and cleared', async () => {
      expect(await patchIssue(issue.issueId, { assigneeId: users.alice })).toEqual({
        assigneeId: { from: null, to: users.alice },
      });
      expect(await patchIssue(issue.issueId, { assigneeId: null })).toEqual({
        assigneeId: { from: users.alice, to: null },
      });
    });

    it('reporter', async () => {
      const changes = await patchIssue(issue.issueId, { reporterId: users.bob });
      expect(changedFields(changes)).toEqual(['reporterId']);
      expect(changes.reporterId.to).toBe(users.bob);
    });

    it('priority', async () => {
      expect(await patchIssue(issue.issueId, { priority: 'urgent' })).toEqual({
        priority: { from: 'none', to: 'urgent' },
      });
    });

    it('tags, and labels (the same list under its legacy name)', async () => {
      expect(await patchIssue(issue.issueId, { tags: ['bug', 'api'] })).toEqual({
        tags: { from: [], to: ['bug', 'api'] },
        labels: { from: [], to: ['bug', 'api'] },
      });
      expect(await patchIssue(issue.issueId, { labels: ['api'] })).toEqual({
        tags: { from: ['bug', 'api'], to: ['api'] },
        labels: { from: ['bug', 'api'], to: ['api'] },
      });
    });

    it('startDate, dueDate and durationDays, with the schedule field each one moves', async () => {
      expect(await patchIssue(issue.issueId, { startDate: '2026-02-02' })).toEqual({
        startDate: { from: null, to: '2026-02-02' },
      });
      expect(await patchIssue(issue.issueId, { dueDate: '2026-02-12' })).toEqual({
        dueDate: { from: null, to: '2026-02-12' },
        durationDays: { from: null, to: 10 },
      });
      const duration = await patchIssue(issue.issueId, { durationDays: 4 });
      expect(duration.durationDays).toEqual({ from: 10, to: 4 });
      expect(changedFields(duration)).toEqual(['dueDate', 'durationDays']);
      expect(duration.dueDate).toEqual({ from: '2026-02-12', to: '2026-02-06' });
    });

    it('container (issueContainerId and its alias epicId), milestone, and the milestone leaving with the container', async () => {
      expect(await patchIssue(issue.issueId, { issueContainerId: launch })).toEqual({
        issueContainerId: { from: null, to: launch },
        epicId: { from: null, to: launch },
      });
      const milestone = (await call('POST', '/issue-container-milestones', { issueContainerId: launch, title: 'M1' }))
        .milestone;
      await newEvents();
      expect(await patchIssue(issue.issueId, { milestoneId: milestone.milestoneId })).toEqual({
        milestoneId: { from: null, to: milestone.milestoneId },
      });
      expect(await patchIssue(issue.issueId, { epicId: null })).toEqual({
        issueContainerId: { from: launch, to: null },
        epicId: { from: launch, to: null },
        milestoneId: { from: milestone.milestoneId, to: null },
      });
    });

    it('subtasksEnabled', async () => {
      expect(await patchIssue(issue.issueId, { subtasksEnabled: false })).toEqual({
        subtasksEnabled: { from: true, to: false },
      });
    });

    it('archived: issue.archived and issue.restored carry changes too', async () => {
      const archived = await patchIssue(issue.issueId, { archived: true }, 'issue.archived');
      expect(changedFields(archived)).toEqual(['archived', 'archivedAt']);
      expect(archived.archived).toEqual({ from: false, to: true });
      expect(archived.archivedAt.from).toBeNull();
      const restored = await patchIssue(issue.issueId, { archived: false }, 'issue.restored');
      expect(restored).toEqual({
        archived: { from: true, to: false },
        archivedAt: { from: archived.archivedAt.to, to: null },
      });
    });

    it('an archive written with other fields names them all in issue.archived', async () => {
      const changes = await patchIssue(issue.issueId, { archived: true, priority: 'low' }, 'issue.archived');
      expect(changedFields(changes)).toEqual(['archived', 'archivedAt', 'priority']);
      await patchIssue(issue.issueId, { archived: false }, 'issue.restored');
    });

    it('a move to a project of the same team', async () => {
      const changes = await patchIssue(issue.issueId, { projectId: projects['ENG/WEB'] });
      expect(changes).toEqual({
        projectId: { from: projects['ENG/API'], to: projects['ENG/WEB'] },
        projectKey: { from: 'API', to: 'WEB' },
      });
    });

    it('a move to another team: team and status change, the statusKey sent with its old value does not', async () => {
      const changes = await patchIssue(issue.issueId, { projectKey: 'INFRA', teamKey: 'OPS', statusKey: 'todo' });
      expect(changedFields(changes)).toEqual(['projectId', 'projectKey', 'statusId', 'teamId', 'teamKey']);
      expect(changes.teamKey).toEqual({ from: 'ENG', to: 'OPS' });
      expect(changes.statusKey).toBeUndefined();
      await patchIssue(issue.issueId, { projectKey: 'API', teamKey: 'ENG', statusKey: 'todo' });
    });

    it('the title through POST …/evolve', async () => {
      const before = await getIssue(issue.issueId);
      await call('POST', `/issues/${issue.issueId}/evolve`, { title: 'Evolved', reason: 'Scope grew.' });
      const [event] = await newEvents();
      expect(event.type).toBe('issue.updated');
      expect(event.data.changes).toEqual({ title: { from: before.title, to: 'Evolved' } });
    });

    it('a PATCH of several fields names exactly those that changed', async () => {
      const current = await getIssue(issue.issueId);
      const changes = await patchIssue(issue.issueId, {
        title: 'Several at once',
        priority: current.priority,
        assigneeId: users.alice,
        tags: current.tags,
        description: 'Now described.',
        dueDate: '2026-03-01',
      });
      expect(changedFields(changes)).toEqual(['assigneeId', 'description', 'dueDate', 'durationDays', 'title']);
    });

    it('a PATCH that changes nothing still records issue.updated, with empty changes', async () => {
      const current = await getIssue(issue.issueId);
      expect(await patchIssue(issue.issueId, { title: current.title, priority: current.priority })).toEqual({});
      expect(await patchIssue(issue.issueId, { teamKey: 'ENG' })).toEqual({});
    });

    it("a status that satisfies this issue's blocks links changes the links' isSatisfied", async () => {
      const blocked = await newIssue({ title: 'Waits' });
      await call('POST', `/issues/${issue.issueId}/links`, { type: 'blocks', targetIssueId: blocked.issueId });
      await newEvents();
      const changes = await patchIssue(issue.issueId, { statusKey: 'done' });
      expect(changedFields(changes)).toEqual(['links', 'statusId', 'statusKey']);
      expect(changes.links.from[0]).toMatchObject({ targetIssueId: blocked.issueId, isSatisfied: false });
      expect(changes.links.to[0]).toMatchObject({ targetIssueId: blocked.issueId, isSatisfied: true });
    });
  });

  describe('narrowed for a reader who cannot see some projects, as data is', () => {
    it('leaves out a changed link to a hidden project, and the change with it', async () => {
      const own = await newIssue({ title: 'Blocks a hidden one' });
      const hidden = (await call('POST', '/issues', { title: 'Hidden', projectId: projects['ENG/WEB'] })).issue;
      await call('POST', `/issues/${own.issueId}/links`, { type: 'blocks', targetIssueId: hidden.issueId });
      await newEvents();
      await newEvents(TOKENS.bot);
      await call('PATCH', `/issues/${own.issueId}`, { statusKey: 'done' });
      const [full] = await newEvents();
      expect(changedFields(full.data.changes)).toEqual(['links', 'statusId', 'statusKey']);
      const [narrowed] = await newEvents(TOKENS.bot);
      expect(narrowed.id).toBe(full.id);
      expect(narrowed.data.issue.links).toEqual([]);
      expect(changedFields(narrowed.data.changes)).toEqual(['statusId', 'statusKey']);
      expect(JSON.stringify(narrowed)).not.toContain(hidden.issueId);
    });

    it('leaves out the earlier project of an issue moved in from a project the reader cannot see', async () => {
      const moved = (await call('POST', '/issues', { title: 'Moves in', projectId: projects['ENG/WEB'] })).issue;
      const milestone = (await call('POST', '/issue-container-milestones', { issueContainerId: launch, title: 'M2' }))
        .milestone;
      await newEvents();
      await newEvents(TOKENS.bot);
      await call('PATCH', `/issues/${moved.issueId}`, {
        projectId: projects['ENG/API'],
        issueContainerId: launch,
        milestoneId: milestone.milestoneId,
        title: 'Moved in',
      });
      const [full] = await newEvents();
      expect(full.data.changes.projectKey).toEqual({ from: 'WEB', to: 'API' });
      const [narrowed] = await newEvents(TOKENS.bot);
      expect(narrowed.id).toBe(full.id);
      expect(narrowed.data.changes).toEqual({
        title: { from: 'Moves in', to: 'Moved in' },
        projectId: { to: projects['ENG/API'] },
        projectKey: { to: 'API' },
        epicId: { from: null, to: launch },
        issueContainerId: { from: null, to: launch },
        milestoneId: { from: null, to: milestone.milestoneId },
      });
      expect(JSON.stringify(narrowed)).not.toContain(projects['ENG/WEB']);
    });
  });

  describe('projects, sub-tasks and milestones', () => {
    it('project.updated names the fields that changed', async () => {
      const project = (await call('POST', '/projects', { name: 'Changes', teamKey: 'OPS' })).project;
      await newEvents();
      await call('PATCH', `/projects/${project.projectId}`, { name: 'Changes', description: 'Now with one.' });
      const [event] = await newEvents();
      expect(event.type).toBe('project.updated');
      expect(event.data.changes).toEqual({ description: { from: null, to: 'Now with one.' } });
    });

    it('subtask.updated names the fields that changed', async () => {
      const parent = await newIssue({ title: 'Parent' });
      const subtask = (await call('POST', `/issues/${parent.issueId}/subtasks`, { title: 'Step' })).subtask;
      await newEvents();
      await call('PATCH', `/issues/${parent.issueId}/subtasks/${subtask.subtaskId}`, {
        title: 'Step one',
        status: 'done',
        assigneeId: null,
      });
      const [event] = await newEvents();
      expect(event.type).toBe('subtask.updated');
      expect(event.data.changes).toEqual({
        title: { from: 'Step', to: 'Step one' },
        status: { from: 'to-do', to: 'done' },
      });
      expect(event.data.issue).toEqual({ issueId: parent.issueId, issueKey: parent.issueKey });
    });

    it('milestone.updated names the fields that changed', async () => {
      const milestone = (await call('POST', '/issue-container-milestones', { issueContainerId: launch, title: 'Beta' }))
        .milestone;
      await newEvents();
      await call('PATCH', `/issue-container-milestones/${milestone.milestoneId}`, {
        title: 'Beta',
        status: 'at-risk',
      });
      const [event] = await newEvents();
      expect(event.type).toBe('milestone.updated');
      expect(event.data.changes).toEqual({ status: { from: 'planned', to: 'at-risk' } });
    });
  });
});

describe('changes in webhook deliveries', () => {
  let h: Harness;
  let receiver: Receiver;
  let projects: Record<string, string>;

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startWorkerHarness([ACME], webhookTestConfig());
    projects = (await h.apply(ACME)).projects;
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it('deliver the same changes as the feed, narrowed for a subscription made by a narrowed token', async () => {
    for (const [path, token] of [
      ['/admin', TOKENS.admin],
      ['/bot', TOKENS.bot],
    ] as const) {
      const made = await h.call('POST', `${API}/webhooks`, {
        token,
        body: { url: receiver.url(path), events: ['issue.updated'] },
      });
      expect(made.status).toBe(201);
    }
    const issue = (
      await h.call('POST', `${API}/issues`, {
        token: TOKENS.admin,
        body: { title: 'Delivered', projectId: projects['ENG/WEB'] },
      })
    ).body.issue;
    const patched = await h.call('PATCH', `${API}/issues/${issue.issueId}`, {
      token: TOKENS.admin,
      body: { projectId: projects['ENG/API'], priority: 'high' },
    });
    expect(patched.status).toBe(200);
    const [full] = await receiver.waitFor('/admin');
    const [narrowed] = await receiver.waitFor('/bot');
    expect(full.json.data.changes).toEqual({
      projectId: { from: projects['ENG/WEB'], to: projects['ENG/API'] },
      projectKey: { from: 'WEB', to: 'API' },
      priority: { from: 'none', to: 'high' },
    });
    expect(narrowed.json.data.changes).toEqual({
      projectId: { to: projects['ENG/API'] },
      projectKey: { to: 'API' },
      priority: { from: 'none', to: 'high' },
    });
    const feed = await h.call('GET', `${API}/events?types=issue.updated`, { token: TOKENS.admin });
    expect(feed.body.events).toEqual([full.json]);
  });
});
