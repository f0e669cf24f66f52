import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/modules/workspace-file/apply.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * Reads tell a credential nothing about records it cannot see: no id or key of a project
 * outside a token's grants, of its issues, of its meetings' agenda items, or of topics in a
 * discussion group the caller cannot see. The token `bot` sees only ENG/API; everything
 * made in OPS/INFRA (and in the private "Inner circle" group) is hidden from it.
 */

const GROUPS = {
  workspace: ACME.workspace,
  discussionGroups: [
    { name: 'Open forum', owner: 'alice', visibility: 'workspace' },
    // Only alice (OAuth) sees it: not the all-projects token `admin`, not `bot`.
    { name: 'Inner circle', owner: 'alice', visibility: 'members' },
  ],
};

let h: Harness;
let acme: ApplyResult;
let forum: string;
let inner: string;

/** Every id and key that must never reach `bot` (and, for the inner-circle topic, `admin`). */
const hiddenFromBot = new Set<string>();
const hiddenFromAdmin = new Set<string>();

const api = (method: string, path: string, body?: unknown, token = TOKENS.admin) =>
  h.call(method, `/api/external${path}`, { token, ...(body === undefined ? {} : { body }) });

async function created(method: string, path: string, body: unknown, token = TOKENS.admin) {
  const reply = await api(method, path, body, token);
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return reply.body;
}

const issueIn = async (projectKey: 'API' | 'INFRA', title: string) =>
  (await created('POST', '/issues', { title, projectKey, teamKey: projectKey === 'API' ? 'ENG' : 'OPS' })).issue as {
    issueId: string;
    issueKey: string;
  };

const hide = (...values: string[]) => values.forEach((v) => hiddenFromBot.add(v));

/** Fails naming the first hidden id or key found anywhere in a response body. */
function expectNothingHidden(body: unknown, hidden: Set<string> = hiddenFromBot) {
  const text = JSON.stringify(body);
  expect([...hidden].filter((value) => text.includes(value))).toEqual([]);
}

let infraProject: string;
let apiProject: string;
let infraIssue: { issueId: string; issueKey: string };
let apiIssue: { issueId: string; issueKey: string };
let infraMeeting: string;
let infraItem: string;
let openMeeting: string;
let apiMeeting: string;
let apiItem: string;

beforeAll(async () => {
  h = await startHarness([ACME, GROUPS]);
  acme = { ...(await h.apply(ACME)), discussionGroups: (await h.apply(GROUPS)).discussionGroups };
  forum = acme.discussionGroups['Open forum'];
  inner = acme.discussionGroups['Inner circle'];
  infraProject = acme.projects['OPS/INFRA'];
  apiProject = acme.projects['ENG/API'];
  infraIssue = await issueIn('INFRA', 'Disk pressure');
  apiIssue = await issueIn('API', 'Rate limits');
  infraMeeting = (await created('POST', '/meetings', { title: 'Ops weekly', projectId: infraProject })).meeting
    .meetingId;
  infraItem = (await created('POST', `/meetings/${infraMeeting}/agenda-items`, { title: 'Capacity' })).agendaItem
    .agendaItemId;
  apiMeeting = (await created('POST', '/meetings', { title: 'API weekly', projectId: apiProject })).meeting.meetingId;
  apiItem = (await created('POST', `/meetings/${apiMeeting}/agenda-items`, { title: 'Quotas' })).agendaItem
    .agendaItemId;
  openMeeting = (await created('POST', '/meetings', { title: 'All hands' })).meeting.meetingId;
  hide(infraProject, 'INFRA', infraIssue.issueId, infraIssue.issueKey, infraMeeting, infraItem);
});
afterAll(() => h.close());

describe('discussion topics', () => {
  let topicId: string;

  beforeAll(async () => {
    topicId = (
      await created('POST', '/discussion/topics', {
        groupId: forum,
        title: 'Cross-team plan',
        tags: ['plan'],
        sourceProjectId: infraProject,
        links: [
          { targetType: 'project', targetId: infraProject },
          { targetType: 'issue', targetId: infraIssue.issueId },
          { targetType: 'project', targetId: apiProject },
          { targetType: 'agenda_item', targetId: infraItem },
          { targetType: 'issue', targetKey: apiIssue.issueKey },
          { targetType: 'agenda_item', targetId: apiItem },
        ],
      })
    ).topic.topicId;
  });

  it('shows a restricted caller only the links it can see, and sourceProjectId null for a hidden project', async () => {
    const read = await api('GET', `/discussion/topics/${topicId}`, undefined, TOKENS.bot);
    expect(read.status).toBe(200);
    expect(read.body.topic.sourceProjectId).toBeNull();
    expect(
      read.body.topic.links.map(({ targetType, targetId, targetKey }: any) => ({ targetType, targetId, targetKey })),
    ).toEqual([
      { targetType: 'project', targetId: apiProject, targetKey: 'API' },
      { targetType: 'issue', targetId: apiIssue.issueId, targetKey: apiIssue.issueKey },
      { targetType: 'agenda_item', targetId: apiItem, targetKey: null },
    ]);
    expectNothingHidden(read.body);
    const list = await api('GET', '/discussion/topics?q=Cross-team', undefined, TOKENS.bot);
    expect(list.body.topics).toEqual([read.body.topic]);
    expectNothingHidden(list.body);
  });

  it('still shows every link and the source project to a caller that sees them', async () => {
    const read = await api('GET', `/discussion/topics/${topicId}`);
    expect(read.body.topic.sourceProjectId).toBe(infraProject);
    expect(read.body.topic.links.map((l: any) => l.targetId)).toEqual([
      infraProject,
      infraIssue.issueId,
      apiProject,
      infraItem,
      apiIssue.issueId,
      apiItem,
    ]);
  });

  it('keeps links a restricted caller cannot see when it replaces the links, after its own', async () => {
    const patched = await api(
      'PATCH',
      `/discussion/topics/${topicId}`,
      { links: [{ targetType: 'issue', targetId: apiIssue.issueId }] },
      TOKENS.bot,
    );
    expect(patched.status).toBe(200);
    expect(patched.body.topic.links.map((l: any) => l.targetId)).toEqual([apiIssue.issueId]);
    expectNothingHidden(patched.body);
    const full = await api('GET', `/discussion/topics/${topicId}`);
    expect(full.body.topic.links.map((l: any) => l.targetId)).toEqual([
      apiIssue.issueId,
      infraProject,
      infraIssue.issueId,
      infraItem,
    ]);

    const cleared = await api('PATCH', `/discussion/topics/${topicId}`, { links: [] }, TOKENS.bot);
    expect(cleared.body.topic.links).toEqual([]);
    expect((await api('GET', `/discussion/topics/${topicId}`)).body.topic.links.map((l: any) => l.targetId)).toEqual([
      infraProject,
      infraIssue.issueId,
      infraItem,
    ]);
  });

  it('keeps a hidden source project when a restricted caller rewrites the tags without naming one', async () => {
    const patched = await api('PATCH', `/discussion/topics/${topicId}`, { tags: ['plan', 'q3'] }, TOKENS.bot);
    expect(patched.status).toBe(200);
    expect(patched.body.topic).toMatchObject({ tags: ['plan', 'q3'], sourceProjectId: null });
    expect((await api('GET', `/discussion/topics/${topicId}`)).body.topic.sourceProjectId).toBe(infraProject);
  });

  it('refuses to convert into a hidden source project without naming it', async () => {
    const reply = await api('POST', `/discussion/topics/${topicId}/convert`, {}, TOKENS.bot);
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ code: 'PROJECT_NOT_FOUND', details: { field: 'sourceProjectId' } });
    expectNothingHidden(reply.body);
  });

  it('does not name an issue made in a hidden project when the topic was converted', async () => {
    const converted = (await created('POST', '/discussion/topics', { groupId: forum, title: 'Ops follow-up' })).topic
      .topicId;
    const made = await created('POST', `/discussion/topics/${converted}/convert`, {
      projectKey: 'INFRA',
      teamKey: 'OPS',
    });
    hide(made.issue.issueId, made.issue.issueKey);
    const read = await api('GET', `/discussion/topics/${converted}`, undefined, TOKENS.bot);
    expect(read.body.topic).toMatchObject({ converted: true, convertedIssueId: null });
    const repeat = await api('POST', `/discussion/topics/${converted}/convert`, {}, TOKENS.bot);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual({ issue: null, topic: read.body.topic, created: false });
    expectNothingHidden(repeat.body);
  });
});

describe('meeting and agenda item work links', () => {
  let secretTopic: string;
  let meetingLinks: string[];

  beforeAll(async () => {
    secretTopic = (await created('POST', '/discussion/topics', { groupId: inner, title: 'Reorg' }, TOKENS.alice)).topic
      .topicId;
    hiddenFromAdmin.add(secretTopic);
    hide(secretTopic);
    meetingLinks = [];
    for (const [body, token] of [
      [{ targetType: 'issue', targetId: infraIssue.issueId }, TOKENS.admin],
      [{ targetType: 'project', targetKey: 'INFRA' }, TOKENS.admin],
      [{ targetType: 'agenda_item', targetId: infraItem }, TOKENS.admin],
      [{ targetType: 'discussion_topic', targetId: secretTopic }, TOKENS.alice],
      [{ targetType: 'issue', targetId: apiIssue.issueId }, TOKENS.admin],
    ] as const) {
      meetingLinks.push((await created('POST', `/meetings/${openMeeting}/links`, body, token)).link.linkId);
    }
    await created(
      'POST',
      `/meetings/${openMeeting}/agenda-items/${(await created('POST', `/meetings/${openMeeting}/agenda-items`, { title: 'Linked item' })).agendaItem.agendaItemId}/links`,
      { targetType: 'issue', targetId: infraIssue.issueId },
    );
  });

  it('lists on a meeting only the links whose target the caller can see', async () => {
    const bot = await api('GET', `/meetings/${openMeeting}`, undefined, TOKENS.bot);
    expect(bot.body.meeting.links.map((l: any) => l.targetId)).toEqual([apiIssue.issueId]);
    expectNothingHidden(bot.body);
    const botList = await api('GET', '/meetings?q=All%20hands', undefined, TOKENS.bot);
    expect(botList.body.meetings[0].links.map((l: any) => l.targetId)).toEqual([apiIssue.issueId]);
    expectNothingHidden(botList.body);
    const admin = await api('GET', `/meetings/${openMeeting}`);
    expect(admin.body.meeting.links.map((l: any) => l.targetId)).toEqual([
      infraIssue.issueId,
      infraProject,
      infraItem,
      apiIssue.issueId,
    ]);
    expectNothingHidden(admin.body, hiddenFromAdmin);
    const alice = await api('GET', `/meetings/${openMeeting}`, undefined, TOKENS.alice);
    expect(alice.body.meeting.links).toHaveLength(5);
  });

  it('lists on agenda items only visible links', async () => {
    const items = await api('GET', `/meetings/${openMeeting}/agenda-items`, undefined, TOKENS.bot);
    expect(items.status).toBe(200);
    expect(items.body.agendaItems.map((i: any) => i.links)).toEqual([[]]);
    expectNothingHidden(items.body);
    const one = await api(
      'GET',
      `/meetings/${openMeeting}/agenda-items/${items.body.agendaItems[0].agendaItemId}`,
      undefined,
      TOKENS.bot,
    );
    expect(one.body.agendaItem.links).toEqual([]);
  });

  it('answers MEETING_LINK_NOT_FOUND for a link whose target the caller cannot see, keeping it', async () => {
    const hiddenLink = meetingLinks[0];
    const reply = await api('DELETE', `/meetings/${openMeeting}/links/${hiddenLink}`, undefined, TOKENS.bot);
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ code: 'MEETING_LINK_NOT_FOUND', details: { linkId: hiddenLink } });
    const secretLink = meetingLinks[3];
    expect((await api('DELETE', `/meetings/${openMeeting}/links/${secretLink}`)).body.code).toBe(
      'MEETING_LINK_NOT_FOUND',
    );
    expect((await api('GET', `/meetings/${openMeeting}`, undefined, TOKENS.alice)).body.meeting.links).toHaveLength(5);
  });
});

describe('agenda item facts', () => {
  let itemId: string;
  let apiTask: string;

  beforeAll(async () => {
    itemId = (
      await created('POST', `/meetings/${openMeeting}/agenda-items`, {
        title: 'Storage budget',
        notes: 'Agreed',
        tags: ['budget'],
        sourceProjectId: infraProject,
      })
    ).agendaItem.agendaItemId;
    const converted = await created('POST', `/meetings/${openMeeting}/agenda-items/${itemId}/convert`, {});
    expect(converted.issue.projectId).toBe(infraProject);
    const infraTask = await created('POST', `/meetings/${openMeeting}/agenda-items/${itemId}/tasks`, {});
    apiTask = (
      await created('POST', `/meetings/${openMeeting}/agenda-items/${itemId}/tasks`, {
        projectKey: 'API',
        teamKey: 'ENG',
      })
    ).issue.issueId;
    hide(converted.issue.issueId, converted.issue.issueKey, infraTask.issue.issueId, infraTask.issue.issueKey);
  });

  it('hides the source project and the issues made in hidden projects', async () => {
    const read = await api('GET', `/meetings/${openMeeting}/agenda-items/${itemId}`, undefined, TOKENS.bot);
    expect(read.body.agendaItem).toMatchObject({
      sourceProjectId: null,
      converted: true,
      convertedIssueId: null,
      taskIssueIds: [apiTask],
    });
    expectNothingHidden(read.body);
    const list = await api('GET', `/meetings/${openMeeting}/agenda-items`, undefined, TOKENS.bot);
    expect(list.body.agendaItems.find((i: any) => i.agendaItemId === itemId)).toEqual(read.body.agendaItem);
    expectNothingHidden(list.body);
    const admin = await api('GET', `/meetings/${openMeeting}/agenda-items/${itemId}`);
    expect(admin.body.agendaItem.sourceProjectId).toBe(infraProject);
    expect(admin.body.agendaItem.taskIssueIds).toHaveLength(2);
  });

  it('answers a repeat conversion into a hidden issue with ISSUE_NOT_FOUND, naming no hidden id', async () => {
    const reply = await api('POST', `/meetings/${openMeeting}/agenda-items/${itemId}/convert`, {}, TOKENS.bot);
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ code: 'ISSUE_NOT_FOUND', details: { agendaItemId: itemId } });
    expectNothingHidden(reply.body);
  });

  it('refuses to convert into a hidden source project without naming it', async () => {
    const fresh = (
      await created('POST', `/meetings/${openMeeting}/agenda-items`, { title: 'Racks', sourceProjectId: infraProject })
    ).agendaItem.agendaItemId;
    for (const action of ['convert', 'tasks']) {
      const reply = await api('POST', `/meetings/${openMeeting}/agenda-items/${fresh}/${action}`, {}, TOKENS.bot);
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ code: 'PROJECT_NOT_FOUND', details: { field: 'sourceProjectId' } });
      expectNothingHidden(reply.body);
    }
  });

  it('publishes notes to the first issue the caller can see, never to a hidden one', async () => {
    const reply = await api('POST', `/meetings/${openMeeting}/agenda-items/${itemId}/notes/publish`, {}, TOKENS.bot);
    expect(reply.status).toBe(201);
    expect(reply.body.issue.issueId).toBe(apiTask);
    expect(reply.body.comment.body).toBe('Agreed');
  });

  it('keeps a hidden source project when a restricted caller rewrites the tags', async () => {
    const patched = await api(
      'PATCH',
      `/meetings/${openMeeting}/agenda-items/${itemId}`,
      { tags: ['budget', 'q3'] },
      TOKENS.bot,
    );
    expect(patched.status).toBe(200);
    expect(patched.body.agendaItem.sourceProjectId).toBeNull();
    expect((await api('GET', `/meetings/${openMeeting}/agenda-items/${itemId}`)).body.agendaItem.sourceProjectId).toBe(
      infraProject,
    );
  });
});

describe('issues, sub-tasks and containers', () => {
  it('leaves links to issues of hidden projects out of issue reads', async () => {
    await created('POST', `/issues/${apiIssue.issueId}/links`, {
      type: 'blocked_by',
      targetIssueId: infraIssue.issueId,
    });
    const read = await api('GET', `/issues/${apiIssue.issueId}`, undefined, TOKENS.bot);
    expect(read.body.issue.links).toEqual([]);
    expectNothingHidden(read.body);
    const list = await api('GET', '/issues?project=API&limit=200', undefined, TOKENS.bot);
    expectNothingHidden(list.body);
    expect(
      (await api('GET', `/issues/${apiIssue.issueId}`)).body.issue.links.map((l: any) => l.targetIssueKey),
    ).toEqual([infraIssue.issueKey]);
  });

  it('derives earliestStartDate only from blockers the caller can see', async () => {
    const blocked = await issueIn('API', 'Waits on infrastructure');
    const blocker = await issueIn('INFRA', 'Hidden blocker with a due date');
    hide(blocker.issueId, blocker.issueKey);
    await created('PATCH', `/issues/${blocker.issueId}`, { dueDate: '2026-09-30' });
    await created('POST', `/issues/${blocked.issueId}/links`, { type: 'blocked_by', targetIssueId: blocker.issueId });
    expect((await api('GET', `/issues/${blocked.issueId}`)).body.issue.earliestStartDate).toBe('2026-10-01');
    const read = await api('GET', `/issues/${blocked.issueId}`, undefined, TOKENS.bot);
    expect(read.body.issue).toMatchObject({ links: [], earliestStartDate: null });
    const listed = (await api('GET', '/issues?project=API&limit=200', undefined, TOKENS.bot)).body.issues;
    expect(listed.find((issue: { issueId: string }) => issue.issueId === blocked.issueId).earliestStartDate).toBeNull();
  });

  it('does not name a source record the caller cannot see', async () => {
    // An issue of a visible project made from an agenda item of a hidden project's meeting.
    const fromHiddenItem = (
      await created('POST', `/meetings/${infraMeeting}/agenda-items/${infraItem}/tasks`, {
        projectKey: 'API',
        teamKey: 'ENG',
      })
    ).issue;
    expect(fromHiddenItem.source).toEqual({ type: 'agenda_item', id: infraItem });
    const asBot = await api('GET', `/issues/${fromHiddenItem.issueId}`, undefined, TOKENS.bot);
    expect(asBot.status).toBe(200);
    expect(asBot.body.issue.source).toBeNull();
    expectNothingHidden(asBot.body);

    // One made from a topic of a group only alice sees: hidden even from the all-projects token.
    const secret = (await created('POST', '/discussion/topics', { groupId: inner, title: 'Quiet fix' }, TOKENS.alice))
      .topic.topicId;
    hiddenFromAdmin.add(secret);
    const fromSecret = (
      await created('POST', `/discussion/topics/${secret}/convert`, { projectKey: 'API', teamKey: 'ENG' }, TOKENS.alice)
    ).issue;
    expect((await api('GET', `/issues/${fromSecret.issueId}`, undefined, TOKENS.alice)).body.issue.source).toEqual({
      type: 'discussion_topic',
      id: secret,
    });
    const asAdmin = await api('GET', `/issues/${fromSecret.issueId}`);
    expect(asAdmin.body.issue.source).toBeNull();
    const listed = await api('GET', '/issues?limit=200');
    expectNothingHidden(listed.body, hiddenFromAdmin);
  });

  it('hides the issue a sub-task became once it is in a hidden project, and the sub-task an issue came from', async () => {
    const parent = await issueIn('API', 'Parent');
    const first = (await created('POST', `/issues/${parent.issueId}/subtasks`, { title: 'First' })).subtask.subtaskId;
    const second = (await created('POST', `/issues/${parent.issueId}/subtasks`, { title: 'Second' })).subtask.subtaskId;
    const promoted = (
      await created('POST', `/issues/${parent.issueId}/subtasks/${first}/promote`, {
        statusMapping: { 'to-do': 'todo' },
      })
    ).issue;
    await created('PATCH', `/issues/${promoted.issueId}`, { projectKey: 'INFRA', teamKey: 'OPS', statusKey: 'todo' });
    hide(promoted.issueId, promoted.issueKey);
    const subtasks = await api('GET', `/issues/${parent.issueId}/subtasks`, undefined, TOKENS.bot);
    expect(subtasks.body.subtasks.find((s: any) => s.subtaskId === first)).toMatchObject({
      migrated: true,
      migratedIssueId: null,
    });
    expectNothingHidden(subtasks.body);
    const one = await api('GET', `/issues/${parent.issueId}/subtasks/${first}`, undefined, TOKENS.bot);
    expect(one.body.subtask.migratedIssueId).toBeNull();
    expect((await api('GET', `/issues/${parent.issueId}/subtasks/${first}`)).body.subtask.migratedIssueId).toBe(
      promoted.issueId,
    );

    // The other way round: the promoted issue stays visible, its parent moves out of sight.
    const stays = (
      await created('POST', `/issues/${parent.issueId}/subtasks/${second}/promote`, {
        statusMapping: { 'to-do': 'todo' },
      })
    ).issue;
    await created('PATCH', `/issues/${parent.issueId}`, { projectKey: 'INFRA', teamKey: 'OPS', statusKey: 'todo' });
    hide(parent.issueId, parent.issueKey, first, second);
    const read = await api('GET', `/issues/${stays.issueId}`, undefined, TOKENS.bot);
    expect(read.body.issue.source).toBeNull();
    expectNothingHidden(read.body);
    expect((await api('GET', `/issues/${stays.issueId}`)).body.issue.source).toEqual({ type: 'subtask', id: second });
  });

  it('counts only visible issues in a container, which the store keeps to its own project', async () => {
    const container = acme.containers['ENG/API/Launch'];
    await created('POST', '/issues', {
      title: 'In launch',
      projectKey: 'API',
      teamKey: 'ENG',
      issueContainerId: container,
    });
    // No route puts an issue in another project's container, and the store refuses it too
    // (a foreign key on the pair), so a count cannot take in a hidden project's issue.
    const stray = await issueIn('INFRA', 'Stray');
    hide(stray.issueId, stray.issueKey);
    await expect(
      h.database.db.updateTable('issues').set({ container_id: container }).where('id', '=', stray.issueId).execute(),
    ).rejects.toThrow(/foreign key/i);
    const asBot = await api('GET', '/issue-containers?projectKey=API&teamKey=ENG', undefined, TOKENS.bot);
    expect(asBot.body.issueContainers[0]).toMatchObject({
      issueContainerId: container,
      issueCount: 1,
      openIssueCount: 1,
    });
    const asAdmin = await api('GET', '/issue-containers?projectKey=API&teamKey=ENG');
    expect(asAdmin.body.issueContainers[0]).toMatchObject({ issueCount: 1, openIssueCount: 1 });
  });
});

describe('directory reads', () => {
  it('name no hidden record in tags, users, agenda tag suggestions and lists', async () => {
    await created('POST', `/meetings/${infraMeeting}/agenda-items`, { title: 'Vendor call', tags: ['vendor'] });
    await created('POST', `/meetings/${infraMeeting}/agenda-items/${infraItem}/owners`, {
      externalName: 'Dana Lee',
      externalEmail: 'dana@vendor.test',
    });
    await created('POST', `/meetings/${openMeeting}/agenda-items`, {
      title: 'Open tagged',
      tags: ['vendor'],
      sourceProjectId: infraProject,
    });
    for (const path of [
      '/tags',
      `/users?projectId=${apiProject}`,
      `/meetings/${openMeeting}/agenda-tags`,
      `/meetings/${apiMeeting}/agenda-tags`,
      '/meetings?limit=200',
      '/projects?limit=200',
      '/issues?limit=200',
      '/issue-containers',
      '/issue-container-milestones',
      '/discussion/topics?limit=200',
      `/meetings/${openMeeting}/agenda-items`,
    ]) {
      const reply = await api('GET', path, undefined, TOKENS.bot);
      expect(reply.status, path).toBe(200);
      expectNothingHidden(reply.body);
    }
  });
});
