import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

let h: Harness;
let acme: Awaited<ReturnType<Harness['apply']>>;
let meetingId: string;
let itemId: string;

const api = (path: string) => `/api/external${path}`;
const get = (path: string, token = TOKENS.admin) => h.call('GET', api(path), { token });
const post = (path: string, body: unknown, token = TOKENS.admin) => h.call('POST', api(path), { token, body });
const patch = (path: string, body: unknown, token = TOKENS.admin) => h.call('PATCH', api(path), { token, body });
const del = (path: string, token = TOKENS.admin) => h.call('DELETE', api(path), { token });

const newIssue = async (title: string, project = 'ENG/API') =>
  (await post('/issues', { title, projectId: acme.projects[project] })).body.issue as {
    issueId: string;
    issueKey: string;
  };
const newItem = async (body: object, mtg = meetingId) =>
  (await post(`/meetings/${mtg}/agenda-items`, body)).body.agendaItem;

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
  meetingId = (await post('/meetings', { title: 'Work host', projectId: acme.projects['ENG/API'] })).body.meeting
    .meetingId;
  itemId = (await newItem({ title: 'Owned item' })).agendaItemId;
});
afterAll(() => h.close());

describe('agenda item owners', () => {
  const owners = (path = `/meetings/${meetingId}/agenda-items/${itemId}/owners`) => path;

  it('adds internal owners (humans and automation identities), once each', async () => {
    const first = await post(owners(), { userId: acme.users.alice });
    expect(first.status).toBe(201);
    expect(first.body.owner).toEqual({
      ownerId: expect.stringMatching(/^own_/),
      kind: 'internal',
      userId: acme.users.alice,
      presetId: null,
      externalName: null,
      externalEmail: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const again = await post(owners(), { userId: acme.users.alice });
    expect(again.status).toBe(200);
    expect(again.body.owner.ownerId).toBe(first.body.owner.ownerId);
    const agent = await post(owners(), { userId: 'api-token:bot' });
    expect(agent.status).toBe(201);
    expect(agent.body.owner).toMatchObject({ kind: 'internal', userId: 'api-token:bot' });
  });

  it('adds external owners from presets and by email, deduplicating case-insensitively', async () => {
    const preset = (
      await post('/meetings/settings/external-users', {
        name: 'Vendor PM',
        externalName: 'Dana Lee',
        externalEmail: 'dana@vendor.test',
      })
    ).body.externalOwnerPreset;
    const fromPreset = await post(owners(), { presetId: preset.presetId });
    expect(fromPreset.status).toBe(201);
    expect(fromPreset.body.owner).toMatchObject({
      kind: 'external',
      userId: null,
      presetId: preset.presetId,
      externalName: 'Dana Lee',
      externalEmail: 'dana@vendor.test',
    });
    expect((await post(owners(), { presetId: preset.presetId })).status).toBe(200);

    const byEmail = await post(owners(), { externalName: 'Sam', externalEmail: 'Sam@Client.test' });
    expect(byEmail.status).toBe(201);
    const sameEmail = await post(owners(), { externalEmail: 'sam@client.TEST' });
    expect(sameEmail.status).toBe(200);
    expect(sameEmail.body.owner.ownerId).toBe(byEmail.body.owner.ownerId);

    await patch(`/meetings/settings/external-users/${preset.presetId}`, { externalName: 'Dana Renamed' });
    expect((await del(`/meetings/settings/external-users/${preset.presetId}`)).status).toBe(204);
    const list = await get(owners());
    expect(list.status).toBe(200);
    // The copy keeps its values; only its presetId, which would name nothing now, is cleared.
    const dana = list.body.owners.find((o: { ownerId: string }) => o.ownerId === fromPreset.body.owner.ownerId);
    expect(dana).toMatchObject({ presetId: null, externalName: 'Dana Lee', externalEmail: 'dana@vendor.test' });
    expect(list.body.owners).toHaveLength(4);
    const item = await get(`/meetings/${meetingId}/agenda-items/${itemId}`);
    expect(item.body.agendaItem.owners).toEqual(list.body.owners);
  });

  it('answers the owner codes', async () => {
    for (const body of [{}, { externalName: '' }, { externalName: '  ', externalEmail: '' }]) {
      expect((await post(owners(), body)).body.code).toBe('OWNER_REQUIRED');
    }
    expect((await post(owners(), { userId: 'usr_nope' })).body.code).toBe('OWNER_NOT_IN_WORKSPACE');
    expect((await post(owners(), { userId: 'api-token:ghost' })).body.code).toBe('OWNER_NOT_IN_WORKSPACE');
    expect((await post(owners(), { userId: 17 })).body.code).toBe('OWNER_NOT_IN_WORKSPACE');
    expect((await post(owners(), { presetId: 'pre_nope' })).body.code).toBe('OWNER_NOT_FOUND');
    expect((await post(owners(), { externalEmail: 'not an email' })).body.code).toBe('VALIDATION_FAILED');
    expect((await post(owners(), { userId: acme.users.bob, externalName: 'Both' })).body.code).toBe(
      'VALIDATION_FAILED',
    );
    const globexUser = (await get('/users', TOKENS.globex)).body.users[0].userId;
    expect((await post(owners(), { userId: globexUser })).body.code).toBe('OWNER_NOT_IN_WORKSPACE');
    expect(
      (await post(`/meetings/${meetingId}/agenda-items/agi_nope/owners`, { userId: acme.users.bob })).body.code,
    ).toBe('AGENDA_ITEM_NOT_FOUND');
  });

  it('removes an owner (204) and answers OWNER_NOT_FOUND after', async () => {
    const owner = (await post(owners(), { userId: acme.users.carol })).body.owner;
    expect((await del(`${owners()}/${owner.ownerId}`)).status).toBe(204);
    expect((await del(`${owners()}/${owner.ownerId}`)).body.code).toBe('OWNER_NOT_FOUND');
  });

  it("lists a project's external owners on GET /users?projectId=", async () => {
    const reply = await get(`/users?projectId=${acme.projects['ENG/API']}`);
    expect(reply.status).toBe(200);
    expect(reply.body.externalOwners).toEqual(
      expect.arrayContaining([
        // Copied from a preset deleted since (above): the copy stays, without its presetId.
        { presetId: null, externalName: 'Dana Lee', externalEmail: 'dana@vendor.test' },
        { presetId: null, externalName: 'Sam', externalEmail: 'Sam@Client.test' },
      ]),
    );
    expect((await get(`/users?projectId=${acme.projects['ENG/WEB']}`)).body.externalOwners).toEqual([]);
  });
});

describe('agenda item attachments', () => {
  const path = () => `/meetings/${meetingId}/agenda-items/${itemId}/attachments`;

  it('adds link attachments and lists them oldest first', async () => {
    const one = await post(path(), { url: 'https://docs.test/one', name: 'One' });
    expect(one.status).toBe(201);
    expect(one.body.attachments).toEqual([
      {
        attachmentId: expect.stringMatching(/^att_/),
        url: 'https://docs.test/one',
        name: 'One',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        createdBy: 'api-token:admin',
      },
    ]);
    const two = await post(path(), {
      links: [{ url: 'http://docs.test/two' }, { url: 'https://docs.test/three', name: 'Three' }],
    });
    expect(two.body.attachments).toHaveLength(2);
    const list = await get(path());
    expect(list.status).toBe(200);
    expect(list.body.attachments.map((a: { url: string }) => a.url)).toEqual([
      'https://docs.test/one',
      'http://docs.test/two',
      'https://docs.test/three',
    ]);
    expect((await get(`/meetings/${meetingId}/agenda-items/${itemId}`)).body.agendaItem.attachments).toHaveLength(3);
  });

  it('refuses bad links all-or-nothing', async () => {
    const bad = await post(path(), { links: [{ url: 'https://ok.test' }, { url: 'ftp://no.test' }] });
    expect(bad.body).toMatchObject({ code: 'ATTACHMENT_URL_REQUIRED', details: { field: 'links.1.url' } });
    expect((await post(path(), { links: [] })).body.code).toBe('ATTACHMENT_URL_REQUIRED');
    expect((await post(path(), { url: `https://x.test/${'a'.repeat(2050)}` })).body.code).toBe(
      'ATTACHMENT_URL_REQUIRED',
    );
    const many = Array.from({ length: 21 }, (_, n) => ({ url: `https://x.test/${n}` }));
    expect((await post(path(), { links: many })).body.code).toBe('ATTACHMENT_LIMIT_EXCEEDED');
    expect((await get(path())).body.attachments).toHaveLength(3);
    expect((await get(path(), TOKENS.globex)).body.code).toBe('MEETING_NOT_FOUND');
  });
});

describe('work links', () => {
  let issue: { issueId: string; issueKey: string };
  let infraIssue: { issueId: string; issueKey: string };
  const meetingLinks = () => `/meetings/${meetingId}/links`;

  beforeAll(async () => {
    issue = await newIssue('Link target');
    infraIssue = await newIssue('Infra target', 'OPS/INFRA');
  });

  it('links a meeting to an issue by id or key; a duplicate answers the existing link', async () => {
    const byId = await post(meetingLinks(), { targetType: 'issue', targetId: issue.issueId });
    expect(byId.status).toBe(201);
    expect(byId.body.link).toEqual({
      linkId: expect.stringMatching(/^wl_/),
      targetType: 'issue',
      targetId: issue.issueId,
      targetKey: issue.issueKey,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const byKey = await post(meetingLinks(), { targetType: 'issue', targetKey: issue.issueKey });
    expect(byKey.status).toBe(200);
    expect(byKey.body.link.linkId).toBe(byId.body.link.linkId);
    const meeting = await get(`/meetings/${meetingId}`);
    expect(meeting.body.meeting.links).toEqual([byId.body.link]);
  });

  it('links projects (targetKey = projectKey, teamKey disambiguates), topics and agenda items', async () => {
    const project = await post(meetingLinks(), { targetType: 'project', targetKey: 'web', teamKey: 'ENG' });
    expect(project.status).toBe(201);
    expect(project.body.link).toMatchObject({
      targetType: 'project',
      targetId: acme.projects['ENG/WEB'],
      targetKey: 'WEB',
    });
    const projectById = await post(meetingLinks(), { targetType: 'project', targetId: acme.projects['OPS/INFRA'] });
    expect(projectById.body.link.targetKey).toBe('INFRA');

    const group = (await post('/discussion', { name: 'Links board' })).body.group;
    const topic = (await post('/discussion/topics', { groupId: group.groupId, title: 'A topic' })).body.topic;
    const topicLink = await post(meetingLinks(), { targetType: 'discussion_topic', targetId: topic.topicId });
    expect(topicLink.status).toBe(201);
    expect(topicLink.body.link).toEqual({
      linkId: expect.any(String),
      targetType: 'discussion_topic',
      targetId: topic.topicId,
      targetKey: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const item = await newItem({ title: 'Target item' });
    const itemLink = await post(meetingLinks(), { targetType: 'agenda_item', targetId: item.agendaItemId });
    expect(itemLink.body.link).toMatchObject({
      targetType: 'agenda_item',
      targetId: item.agendaItemId,
      targetKey: null,
    });
    expect(
      (await get(`/meetings/${meetingId}`)).body.meeting.links.map((l: { targetType: string }) => l.targetType),
    ).toEqual(['issue', 'project', 'project', 'discussion_topic', 'agenda_item']);

    await del(`/meetings/${meetingId}/agenda-items/${item.agendaItemId}`);
    expect(
      (await get(`/meetings/${meetingId}`)).body.meeting.links.map((l: { targetType: string }) => l.targetType),
    ).toEqual(['issue', 'project', 'project', 'discussion_topic']);
  });

  it('answers the target codes', async () => {
    for (const targetType of [undefined, 'milestone', 7]) {
      expect((await post(meetingLinks(), { targetType, targetId: issue.issueId })).body.code).toBe(
        'INVALID_TARGET_TYPE',
      );
    }
    expect((await post(meetingLinks(), { targetType: 'issue' })).body.code).toBe('TARGET_REQUIRED');
    expect((await post(meetingLinks(), { targetType: 'issue', targetId: '' })).body.code).toBe('TARGET_REQUIRED');
    expect((await post(meetingLinks(), { targetType: 'agenda_item', targetKey: 'X' })).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'targetKey' },
    });
    expect((await post(meetingLinks(), { targetType: 'discussion_topic', targetKey: 'X' })).body.code).toBe(
      'VALIDATION_FAILED',
    );
    expect((await post(meetingLinks(), { targetType: 'issue', targetId: 'iss_nope' })).body.code).toBe(
      'ISSUE_NOT_FOUND',
    );
    expect((await post(meetingLinks(), { targetType: 'issue', targetKey: 'ENG-999' })).body.code).toBe(
      'ISSUE_NOT_FOUND',
    );
    expect((await post(meetingLinks(), { targetType: 'project', targetId: 'prj_nope' })).body.code).toBe(
      'PROJECT_NOT_FOUND',
    );
    expect((await post(meetingLinks(), { targetType: 'discussion_topic', targetId: 'top_nope' })).body.code).toBe(
      'DISCUSSION_TOPIC_NOT_FOUND',
    );
    expect((await post(meetingLinks(), { targetType: 'agenda_item', targetId: 'agi_nope' })).body.code).toBe(
      'AGENDA_ITEM_NOT_FOUND',
    );
    expect((await post('/meetings/mtg_nope/links', { targetType: 'issue', targetId: issue.issueId })).body.code).toBe(
      'MEETING_NOT_FOUND',
    );
  });

  it('treats targets the caller cannot see as not found', async () => {
    const open = (await post('/meetings', { title: 'Open to all' })).body.meeting.meetingId;
    const asBot = (body: object) => post(`/meetings/${open}/links`, body, TOKENS.bot);
    expect((await asBot({ targetType: 'issue', targetId: infraIssue.issueId })).body.code).toBe('ISSUE_NOT_FOUND');
    expect((await asBot({ targetType: 'project', targetId: acme.projects['OPS/INFRA'] })).body.code).toBe(
      'PROJECT_NOT_FOUND',
    );
    const infraMeeting = (await post('/meetings', { title: 'Infra', projectId: acme.projects['OPS/INFRA'] })).body
      .meeting.meetingId;
    const infraItem = await newItem({ title: 'Infra item' }, infraMeeting);
    expect((await asBot({ targetType: 'agenda_item', targetId: infraItem.agendaItemId })).body.code).toBe(
      'AGENDA_ITEM_NOT_FOUND',
    );
    expect(
      (await post(`/meetings/${open}/links`, { targetType: 'issue', targetId: issue.issueId }, TOKENS.globex)).body
        .code,
    ).toBe('MEETING_NOT_FOUND');
  });

  it('removes meeting links (204) and answers MEETING_LINK_NOT_FOUND after', async () => {
    const [link] = (await get(`/meetings/${meetingId}`)).body.meeting.links;
    expect((await del(`${meetingLinks()}/${link.linkId}`)).status).toBe(204);
    expect((await del(`${meetingLinks()}/${link.linkId}`)).body.code).toBe('MEETING_LINK_NOT_FOUND');
    expect((await del(`${meetingLinks()}/wl_nope`)).body.code).toBe('MEETING_LINK_NOT_FOUND');
  });

  it('links and unlinks agenda items the same way', async () => {
    const item = await newItem({ title: 'Linked item' });
    const path = `/meetings/${meetingId}/agenda-items/${item.agendaItemId}/links`;
    const link = await post(path, { targetType: 'issue', targetKey: issue.issueKey });
    expect(link.status).toBe(201);
    expect(link.body.link).toMatchObject({ targetType: 'issue', targetId: issue.issueId, targetKey: issue.issueKey });
    expect((await post(path, { targetType: 'issue', targetId: issue.issueId })).status).toBe(200);
    expect((await post(path, { targetType: 'agenda_item', targetId: item.agendaItemId })).body.code).toBe(
      'VALIDATION_FAILED',
    );
    expect((await get(`/meetings/${meetingId}/agenda-items/${item.agendaItemId}`)).body.agendaItem.links).toEqual([
      link.body.link,
    ]);
    const meetingLink = (await post(meetingLinks(), { targetType: 'issue', targetId: issue.issueId })).body.link;
    expect((await del(`${path}/${meetingLink.linkId}`)).body.code).toBe('MEETING_LINK_NOT_FOUND');
    expect((await del(`${path}/${link.body.link.linkId}`)).status).toBe(204);
    expect((await get(`/meetings/${meetingId}/agenda-items/${item.agendaItemId}`)).body.agendaItem.links).toEqual([]);
  });
});

describe('convert, tasks and notes/publish', () => {
  const path = (id: string, action: string, mtg = meetingId) => `/meetings/${mtg}/agenda-items/${id}/${action}`;

  it('converts an item once; a repeat answers the same issue with 200 created: false', async () => {
    const item = await newItem({
      title: 'Ship it',
      description: 'desc',
      notes: 'The notes',
      tags: ['release'],
      checkInDate: '2026-07-01',
    });
    const reply = await post(path(item.agendaItemId, 'convert'), {});
    expect(reply.status).toBe(201);
    expect(reply.body.created).toBe(true);
    expect(reply.body.issue).toMatchObject({
      title: 'Ship it',
      description: 'The notes',
      tags: ['release'],
      dueDate: '2026-07-01',
      projectId: acme.projects['ENG/API'],
      source: { type: 'agenda_item', id: item.agendaItemId },
    });
    expect(reply.body.agendaItem).toMatchObject({
      converted: true,
      convertedIssueId: reply.body.issue.issueId,
      taskIssueIds: [],
    });
    const again = await post(path(item.agendaItemId, 'convert'), { title: 'Other' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      created: false,
      issue: { issueId: reply.body.issue.issueId, title: 'Ship it' },
    });
  });

  it('uses the body over item defaults and the description when notes are empty', async () => {
    const item = await newItem({
      title: 'Elsewhere',
      description: 'Only description',
      notes: '  ',
      sourceProjectId: null,
    });
    const reply = await post(path(item.agendaItemId, 'convert'), {
      projectKey: 'INFRA',
      teamKey: 'OPS',
      title: 'Custom title',
      dueDate: '2026-08-01',
      assigneeId: acme.users.bob,
      statusKey: 'in-progress',
    });
    expect(reply.status).toBe(201);
    expect(reply.body.issue).toMatchObject({
      title: 'Custom title',
      description: 'Only description',
      projectId: acme.projects['OPS/INFRA'],
      dueDate: '2026-08-01',
      assigneeId: acme.users.bob,
      statusKey: 'in-progress',
    });
  });

  it('needs a project from the body, the item or the meeting (PROJECT_REQUIRED)', async () => {
    const loose = (await post('/meetings', { title: 'Projectless' })).body.meeting.meetingId;
    const item = await newItem({ title: 'Nowhere' }, loose);
    expect((await post(path(item.agendaItemId, 'convert', loose), {})).body.code).toBe('PROJECT_REQUIRED');
    expect((await post(path(item.agendaItemId, 'tasks', loose), {})).body.code).toBe('PROJECT_REQUIRED');
    expect((await post(path(item.agendaItemId, 'convert', loose), { projectId: 'prj_nope' })).body.code).toBe(
      'PROJECT_NOT_FOUND',
    );
    expect(
      (await post(path(item.agendaItemId, 'convert', loose), { projectId: acme.projects['ENG/WEB'], title: '' })).body
        .code,
    ).toBe('TITLE_REQUIRED');
    expect((await post(path('agi_nope', 'convert'), {})).body.code).toBe('AGENDA_ITEM_NOT_FOUND');
    const afterFailures = await get(`/meetings/${loose}/agenda-items/${item.agendaItemId}`);
    expect(afterFailures.body.agendaItem).toMatchObject({ converted: false, taskIssueIds: [] });
  });

  it('creates task issues without marking the item converted', async () => {
    const item = await newItem({ title: 'Follow-ups', checkInDate: '2026-09-09' });
    const first = await post(path(item.agendaItemId, 'tasks'), {});
    expect(first.status).toBe(201);
    expect(first.body.issue).toMatchObject({
      title: 'Follow-ups',
      dueDate: '2026-09-09',
      source: { type: 'agenda_item', id: item.agendaItemId },
    });
    const second = await post(path(item.agendaItemId, 'tasks'), { title: 'Second task', dueDate: '2026-09-10' });
    expect(second.status).toBe(201);
    expect(second.body.agendaItem).toMatchObject({
      converted: false,
      convertedIssueId: null,
      taskIssueIds: [first.body.issue.issueId, second.body.issue.issueId],
    });
    const headers = { 'idempotency-key': 'meetings:tasks:1' };
    const keyed = await h.call('POST', api(path(item.agendaItemId, 'tasks')), {
      token: TOKENS.admin,
      body: {},
      headers,
    });
    const replay = await h.call('POST', api(path(item.agendaItemId, 'tasks')), {
      token: TOKENS.admin,
      body: {},
      headers,
    });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.issue.issueId).toBe(keyed.body.issue.issueId);
    expect(
      (await get(`/meetings/${meetingId}/agenda-items/${item.agendaItemId}`)).body.agendaItem.taskIssueIds,
    ).toHaveLength(3);
  });

  it('publishes notes to the given, converted, linked or newest task issue', async () => {
    const comments = async (issueId: string) =>
      (await get(`/issues/${issueId}/comments`)).body.comments.map((c: { body: string }) => c.body);

    const none = await newItem({ title: 'No issue yet', notes: 'Decided X' });
    const unsupported = await post(path(none.agendaItemId, 'notes/publish'), {});
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.code).toBe('UNSUPPORTED_ACTION');

    const taskIssues: string[] = [];
    for (let n = 0; n < 2; n++) taskIssues.push((await post(path(none.agendaItemId, 'tasks'), {})).body.issue.issueId);
    const toTask = await post(path(none.agendaItemId, 'notes/publish'), {});
    expect(toTask.status).toBe(201);
    expect(toTask.body.comment).toMatchObject({
      body: 'Decided X',
      issueId: taskIssues[1],
      authorId: 'api-token:admin',
    });
    expect(toTask.body.issue.issueId).toBe(taskIssues[1]);

    const linkedIssue = await newIssue('Linked for notes');
    await post(`/meetings/${meetingId}/agenda-items/${none.agendaItemId}/links`, {
      targetType: 'issue',
      targetId: linkedIssue.issueId,
    });
    const toLinked = await post(path(none.agendaItemId, 'notes/publish'), { body: 'Explicit body' });
    expect(toLinked.body.issue.issueId).toBe(linkedIssue.issueId);
    expect(await comments(linkedIssue.issueId)).toEqual(['Explicit body']);

    const converted = (await post(path(none.agendaItemId, 'convert'), {})).body.issue.issueId;
    expect((await post(path(none.agendaItemId, 'notes/publish'), {})).body.issue.issueId).toBe(converted);

    const given = await newIssue('Given target');
    const toGiven = await post(path(none.agendaItemId, 'notes/publish'), { issueKey: given.issueKey });
    expect(toGiven.body.issue.issueId).toBe(given.issueId);
    expect(await comments(given.issueId)).toEqual(['Decided X']);
    expect((await post(path(none.agendaItemId, 'notes/publish'), { issueId: 'iss_nope' })).body.code).toBe(
      'ISSUE_NOT_FOUND',
    );
    expect((await post(path(none.agendaItemId, 'notes/publish'), { issueKey: 'OPS-999' })).body.code).toBe(
      'ISSUE_NOT_FOUND',
    );
  });

  it('needs notes or a body to publish', async () => {
    const item = await newItem({ title: 'Silent' });
    const issue = await newIssue('Somewhere');
    const reply = await post(path(item.agendaItemId, 'notes/publish'), { issueId: issue.issueId });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('UNSUPPORTED_ACTION');
    expect(
      (await post(path(item.agendaItemId, 'notes/publish'), { issueId: issue.issueId, body: ' ' })).body.code,
    ).toBe('COMMENT_BODY_REQUIRED');
  });

  it('keeps issues made from a meeting when the meeting is deleted', async () => {
    const host = (await post('/meetings', { title: 'Short-lived', projectId: acme.projects['ENG/API'] })).body.meeting
      .meetingId;
    const item = await newItem({ title: 'Becomes an issue' }, host);
    const issue = (await post(path(item.agendaItemId, 'convert', host), {})).body.issue;
    expect((await del(`/meetings/${host}`)).status).toBe(204);
    expect((await get(`/issues/${issue.issueId}`)).status).toBe(200);
  });
});

describe('workspace file meetingSettings', () => {
  const file = {
    workspace: { slug: 'initech', name: 'Initech' },
    meetingSettings: {
      agendaStatuses: [{ name: 'Parked' }, { name: 'Blocked' }],
      externalOwnerPresets: [{ name: 'Vendor PM', externalName: 'Dana Lee', externalEmail: 'dana@vendor.test' }],
    },
  };

  it('creates custom statuses after the system ones and lists them all in the result', async () => {
    const result = await h.apply(file);
    expect(Object.keys(result.agendaStatuses)).toEqual(['To discuss', 'Done', 'Parked', 'Blocked']);
    expect(Object.keys(result.externalOwnerPresets)).toEqual(['Vendor PM']);
    const again = await h.apply(file);
    expect(again.agendaStatuses).toEqual(result.agendaStatuses);
    expect(again.externalOwnerPresets).toEqual(result.externalOwnerPresets);
  });

  it('converges preset values and never deletes', async () => {
    const result = await h.apply({
      workspace: file.workspace,
      meetingSettings: {
        agendaStatuses: [{ name: 'parked' }],
        externalOwnerPresets: [{ name: 'Vendor PM', externalEmail: 'dana@new.test' }],
      },
    });
    expect(Object.keys(result.agendaStatuses)).toEqual(['To discuss', 'Done', 'Parked', 'Blocked']);
    const presets = await h.database.db
      .selectFrom('external_owner_presets')
      .selectAll()
      .where('workspace_id', '=', result.workspaceId)
      .execute();
    expect(presets.map((p) => [p.name, p.external_name, p.external_email])).toEqual([
      ['Vendor PM', 'Dana Lee', 'dana@new.test'],
    ]);
  });

  it('gives every applied workspace its system statuses', async () => {
    const result = await h.apply({ workspace: { slug: 'hooli', name: 'Hooli' } });
    expect(Object.keys(result.agendaStatuses)).toEqual(['To discuss', 'Done']);
  });

  it('refuses an invalid section, naming the path', async () => {
    await expect(
      h.apply({ workspace: file.workspace, meetingSettings: { agendaStatuses: [{ name: '' }] } }),
    ).rejects.toThrow(/meetingSettings.agendaStatuses\[0\].name/);
    await expect(h.apply({ workspace: file.workspace, meetingSettings: { colours: [] } })).rejects.toThrow(
      /meetingSettings.colours/,
    );
    await expect(
      h.apply({
        workspace: file.workspace,
        meetingSettings: { externalOwnerPresets: [{ name: 'X', externalEmail: 'nope' }] },
      }),
    ).rejects.toThrow(/externalOwnerPresets\[0\].externalEmail/);
  });
});
