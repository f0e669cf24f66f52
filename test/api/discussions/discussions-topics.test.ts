import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

const ACME_GROUPS = {
  workspace: ACME.workspace,
  discussionGroups: [
    { name: 'Advisory board', owner: 'alice', members: ['api-token:bot'], visibility: 'members' },
    { name: 'Town hall', owner: 'bob', visibility: 'workspace' },
  ],
};

let h: Harness;
let acme: ApplyResult;
let advisory: string;
let townHall: string;
let apiIssue: { issueId: string; issueKey: string };
let infraIssue: { issueId: string; issueKey: string };

const createTopic = (body: Record<string, unknown>, token = TOKENS.admin) =>
  h.call('POST', '/api/external/discussion/topics', { token, body: { groupId: townHall, ...body } });
const patchTopic = (topicId: string, body: unknown, token = TOKENS.admin) =>
  h.call('PATCH', `/api/external/discussion/topics/${topicId}`, { token, body });
const search = (query: string, token = TOKENS.admin) =>
  h.call('GET', `/api/external/discussion/topics${query}`, { token });
const titles = (body: { topics: Array<{ title: string }> }) => body.topics.map((t) => t.title);

async function createIssue(projectKey: string, title: string) {
  const res = await h.call('POST', '/api/external/issues', {
    token: TOKENS.admin,
    body: { title, projectKey, teamKey: projectKey === 'INFRA' ? 'OPS' : 'ENG' },
  });
  expect(res.status).toBe(201);
  return { issueId: res.body.issue.issueId as string, issueKey: res.body.issue.issueKey as string };
}

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = { ...(await h.apply(ACME)), discussionGroups: (await h.apply(ACME_GROUPS)).discussionGroups };
  advisory = acme.discussionGroups['Advisory board'];
  townHall = acme.discussionGroups['Town hall'];
  apiIssue = await createIssue('API', 'Rate limits');
  infraIssue = await createIssue('INFRA', 'Disk pressure');
});
afterAll(() => h.close());

describe('POST /api/external/discussion/topics', () => {
  it('creates a topic with defaults', async () => {
    const res = await createTopic({ title: '  Pricing model ' });
    expect(res.status).toBe(201);
    expect(res.body.topic).toEqual({
      topicId: expect.stringMatching(/^top_/),
      groupId: townHall,
      title: 'Pricing model',
      description: null,
      status: 'open',
      tags: [],
      labels: [],
      sourceProjectId: null,
      links: [],
      converted: false,
      convertedIssueId: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      version: 1,
    });
    const read = await h.call('GET', `/api/external/discussion/topics/${res.body.topic.topicId}`, {
      token: TOKENS.idle,
    });
    expect(read.status).toBe(200);
    expect(read.body.topic).toEqual(res.body.topic);
  });

  it('creates a topic with every field, links answered with their keys', async () => {
    const res = await createTopic({
      title: 'Partner SLAs',
      description: 'What we promise',
      status: 'in-progress',
      tags: ['sla', ' Partners ', 'SLA'],
      links: [
        { targetType: 'issue', targetKey: apiIssue.issueKey },
        { targetType: 'project', targetKey: 'WEB', teamKey: 'ENG' },
        { targetType: 'project', targetId: acme.projects['ENG/API'] },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.topic).toMatchObject({
      title: 'Partner SLAs',
      description: 'What we promise',
      status: 'in-progress',
      tags: ['sla', 'Partners'],
      // Tags without sourceProjectId take the first linked project.
      sourceProjectId: acme.projects['ENG/WEB'],
    });
    expect(res.body.topic.links).toEqual([
      {
        linkId: expect.any(String),
        targetType: 'issue',
        targetId: apiIssue.issueId,
        targetKey: apiIssue.issueKey,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      {
        linkId: expect.any(String),
        targetType: 'project',
        targetId: acme.projects['ENG/WEB'],
        targetKey: 'WEB',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      {
        linkId: expect.any(String),
        targetType: 'project',
        targetId: acme.projects['ENG/API'],
        targetKey: 'API',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);
  });

  it('keeps no source project with an explicit null, and takes an explicit accessible one', async () => {
    const links = [{ targetType: 'project', targetKey: 'WEB', teamKey: 'ENG' }];
    const none = await createTopic({ title: 'No source', tags: ['x'], links, sourceProjectId: null });
    expect(none.body.topic.sourceProjectId).toBeNull();
    const explicit = await createTopic({
      title: 'Explicit source',
      tags: ['x'],
      links,
      sourceProjectId: acme.projects['OPS/INFRA'],
    });
    expect(explicit.body.topic.sourceProjectId).toBe(acme.projects['OPS/INFRA']);
    const linksOnly = await createTopic({ title: 'Links only', links });
    expect(linksOnly.body.topic.sourceProjectId).toBeNull();
  });

  it('lets a group member create topics, and refuses groups the caller cannot see', async () => {
    const member = await createTopic({ title: 'Bot topic', groupId: advisory }, TOKENS.bot);
    expect(member.status).toBe(201);
    for (const [groupId, token] of [
      [advisory, TOKENS.admin],
      [advisory, TOKENS.idle],
      [townHall, TOKENS.globex],
      ['dgr_nope', TOKENS.admin],
    ]) {
      const res = await createTopic({ title: 'Intruder', groupId }, token);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'DISCUSSION_GROUP_NOT_FOUND', details: { groupId } });
    }
  });

  it.each([
    ['missing', {}],
    ['empty', { title: '' }],
    ['whitespace', { title: '  ' }],
    ['not a string', { title: 7 }],
    ['null', { title: null }],
  ])('answers TITLE_REQUIRED for a %s title', async (_case, body) => {
    const res = await createTopic(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'TITLE_REQUIRED', details: { field: 'title' } });
  });

  it('answers VALIDATION_FAILED for a missing groupId, a bad status, bad tags and unknown fields', async () => {
    const noGroup = await h.call('POST', '/api/external/discussion/topics', {
      token: TOKENS.admin,
      body: { title: 'Orphan' },
    });
    expect(noGroup.status).toBe(400);
    expect(noGroup.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'groupId' } });
    const status = await createTopic({ title: 'S', status: 'done' });
    expect(status.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'status' } });
    const long = await createTopic({ title: 't'.repeat(501) });
    expect(long.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'title' } });
    const tag = await createTopic({ title: 'T', tags: ['ok', ''] });
    expect(tag.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'tags.1' } });
    const unknown = await createTopic({ title: 'U', converted: true });
    expect(unknown.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { unknownFields: ['converted'] } });
    const linkField = await createTopic({
      title: 'L',
      links: [{ targetType: 'issue', targetId: apiIssue.issueId, note: 'x' }],
    });
    expect(linkField.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'links.0.note' } });
  });

  it('answers the work-link codes for bad links, creating nothing', async () => {
    const cases: Array<[unknown, string, Record<string, unknown>]> = [
      [{ targetType: 'discussion_topic', targetId: 'top_x' }, 'INVALID_TARGET_TYPE', { field: 'links.0.targetType' }],
      [{ targetType: 'meeting', targetId: 'mtg_x' }, 'INVALID_TARGET_TYPE', { field: 'links.0.targetType' }],
      [{ targetId: apiIssue.issueId }, 'INVALID_TARGET_TYPE', { field: 'links.0.targetType' }],
      [{ targetType: 5, targetId: apiIssue.issueId }, 'INVALID_TARGET_TYPE', { field: 'links.0.targetType' }],
      [{ targetType: 'issue' }, 'TARGET_REQUIRED', { field: 'links.0.targetId' }],
      [{ targetType: 'issue', targetId: '  ' }, 'TARGET_REQUIRED', { field: 'links.0.targetId' }],
      [{ targetType: 'issue', targetId: 'iss_missing' }, 'ISSUE_NOT_FOUND', {}],
      [{ targetType: 'issue', targetKey: 'ENG-999' }, 'ISSUE_NOT_FOUND', {}],
      [{ targetType: 'project', targetId: 'prj_missing' }, 'PROJECT_NOT_FOUND', {}],
      [{ targetType: 'project', targetKey: 'NOPE' }, 'PROJECT_NOT_FOUND', {}],
      [{ targetType: 'agenda_item', targetId: 'agi_missing' }, 'AGENDA_ITEM_NOT_FOUND', {}],
    ];
    for (const [link, code, details] of cases) {
      const res = await createTopic({ title: 'Bad link', links: [link] });
      expect(res.body, JSON.stringify(link)).toMatchObject({ code, details });
    }
    const second = await createTopic({
      title: 'Bad link',
      links: [{ targetType: 'issue', targetId: apiIssue.issueId }, { targetType: 'issue' }],
    });
    expect(second.body).toMatchObject({ code: 'TARGET_REQUIRED', details: { field: 'links.1.targetId' } });
    expect(titles((await search('?q=Bad%20link')).body)).toEqual([]);
  });

  it('links agenda items of meetings the caller can see', async () => {
    const agendaItem = async (projectKey: string) => {
      const meeting = await h.call('POST', '/api/external/meetings', {
        token: TOKENS.admin,
        body: { title: `${projectKey} sync`, projectKey },
      });
      expect(meeting.status).toBe(201);
      const item = await h.call('POST', `/api/external/meetings/${meeting.body.meeting.meetingId}/agenda-items`, {
        token: TOKENS.admin,
        body: { title: 'Review' },
      });
      expect(item.status).toBe(201);
      return item.body.agendaItem.agendaItemId as string;
    };
    const [apiItem, infraItem] = [await agendaItem('API'), await agendaItem('INFRA')];
    const res = await createTopic(
      { title: 'From the agenda', groupId: advisory, links: [{ targetType: 'agenda_item', targetId: apiItem }] },
      TOKENS.bot,
    );
    expect(res.status).toBe(201);
    expect(res.body.topic.links).toEqual([
      {
        linkId: expect.any(String),
        targetType: 'agenda_item',
        targetId: apiItem,
        targetKey: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);
    const keyed = await createTopic({ title: 'Keyed item', links: [{ targetType: 'agenda_item', targetKey: 'X-1' }] });
    expect(keyed.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'links.0.targetKey' } });
    const hidden = await createTopic(
      { title: 'Hidden item', groupId: advisory, links: [{ targetType: 'agenda_item', targetId: infraItem }] },
      TOKENS.bot,
    );
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('AGENDA_ITEM_NOT_FOUND');
  });

  it("hides projects and issues outside a token's grants from links and sourceProjectId", async () => {
    const issue = await createTopic(
      { title: 'Hidden issue', groupId: advisory, links: [{ targetType: 'issue', targetId: infraIssue.issueId }] },
      TOKENS.bot,
    );
    expect(issue.status).toBe(404);
    expect(issue.body.code).toBe('ISSUE_NOT_FOUND');
    const project = await createTopic(
      { title: 'Hidden project', groupId: advisory, links: [{ targetType: 'project', targetKey: 'INFRA' }] },
      TOKENS.bot,
    );
    expect(project.body.code).toBe('PROJECT_NOT_FOUND');
    const source = await createTopic(
      { title: 'Hidden source', groupId: advisory, sourceProjectId: acme.projects['OPS/INFRA'] },
      TOKENS.bot,
    );
    expect(source.status).toBe(404);
    expect(source.body).toMatchObject({
      code: 'PROJECT_NOT_FOUND',
      details: { projectId: acme.projects['OPS/INFRA'] },
    });
  });
});

describe('PATCH /api/external/discussion/topics/{topicId}', () => {
  it('updates title, description and status', async () => {
    const { body } = await createTopic({ title: 'Roadmap' });
    const res = await patchTopic(
      body.topic.topicId,
      { title: 'Roadmap 2027', description: 'Draft', status: 'resolved' },
      TOKENS.idle,
    );
    expect(res.status).toBe(200);
    expect(res.body.topic).toMatchObject({
      topicId: body.topic.topicId,
      title: 'Roadmap 2027',
      description: 'Draft',
      status: 'resolved',
    });
    const cleared = await patchTopic(body.topic.topicId, { description: null, status: 'closed' });
    expect(cleared.body.topic).toMatchObject({ description: null, status: 'closed' });
    expect(
      (await h.call('GET', `/api/external/discussion/topics/${body.topic.topicId}`, { token: TOKENS.alice })).body
        .topic,
    ).toMatchObject({ title: 'Roadmap 2027', description: null, status: 'closed' });
  });

  it('replaces the links; a links-only write keeps sourceProjectId, a tags write re-derives it', async () => {
    const { body } = await createTopic({
      title: 'Linked',
      tags: ['a'],
      links: [{ targetType: 'project', targetKey: 'API', teamKey: 'ENG' }],
    });
    const topicId = body.topic.topicId;
    expect(body.topic.sourceProjectId).toBe(acme.projects['ENG/API']);
    const relinked = await patchTopic(topicId, {
      links: [
        { targetType: 'issue', targetId: apiIssue.issueId },
        { targetType: 'project', targetKey: 'WEB', teamKey: 'ENG' },
      ],
    });
    expect(relinked.status).toBe(200);
    expect(
      relinked.body.topic.links.map((l: { targetType: string; targetKey: string }) => `${l.targetType}:${l.targetKey}`),
    ).toEqual([`issue:${apiIssue.issueKey}`, 'project:WEB']);
    expect(relinked.body.topic.sourceProjectId).toBe(acme.projects['ENG/API']);
    const retagged = await patchTopic(topicId, { tags: ['b'] });
    expect(retagged.body.topic).toMatchObject({ tags: ['b'], sourceProjectId: acme.projects['ENG/WEB'] });
    const detached = await patchTopic(topicId, { sourceProjectId: null });
    expect(detached.body.topic).toMatchObject({ tags: ['b'], sourceProjectId: null });
    const unlinked = await patchTopic(topicId, { links: [], tags: ['c'] });
    expect(unlinked.body.topic).toMatchObject({ links: [], tags: ['c'], sourceProjectId: null });
  });

  it('answers UNSUPPORTED_ACTION for an empty update and the field codes for bad values', async () => {
    const { body } = await createTopic({ title: 'Strict topic' });
    const topicId = body.topic.topicId;
    const empty = await patchTopic(topicId, {});
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('UNSUPPORTED_ACTION');
    expect((await patchTopic(topicId, { title: '' })).body).toMatchObject({
      code: 'TITLE_REQUIRED',
      details: { field: 'title' },
    });
    expect((await patchTopic(topicId, { title: null })).body).toMatchObject({
      code: 'TITLE_REQUIRED',
      details: { field: 'title' },
    });
    expect((await patchTopic(topicId, { status: 'archived' })).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'status' },
    });
    expect(
      (await patchTopic(topicId, { links: [{ targetType: 'discussion_topic', targetId: topicId }] })).body.code,
    ).toBe('INVALID_TARGET_TYPE');
    expect((await patchTopic(topicId, { sourceProjectId: 'prj_missing' })).body.code).toBe('PROJECT_NOT_FOUND');
    expect((await patchTopic(topicId, { groupId: advisory })).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['groupId'] },
    });
    const unchanged = await h.call('GET', `/api/external/discussion/topics/${topicId}`, { token: TOKENS.admin });
    expect(unchanged.body.topic).toMatchObject({
      title: 'Strict topic',
      status: 'open',
      links: [],
      sourceProjectId: null,
    });
  });

  it('answers DISCUSSION_TOPIC_NOT_FOUND for an unknown topic', async () => {
    const res = await patchTopic('top_unknown', { title: 'X' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'DISCUSSION_TOPIC_NOT_FOUND', details: { topicId: 'top_unknown' } });
  });
});

describe('GET /api/external/discussion/topics', () => {
  let board: string;

  beforeAll(async () => {
    board = (
      await h.call('POST', '/api/external/discussion', {
        token: TOKENS.admin,
        body: { name: 'Search board', visibility: 'workspace' },
      })
    ).body.group.groupId;
    const make = (title: string, extra: Record<string, unknown> = {}) =>
      createTopic({ title, groupId: board, ...extra });
    await make('Alpha launch', { description: 'Go-to-market PLAN' });
    await make('Beta feedback', { tags: ['Customer-Voice'], status: 'resolved' });
    await make('Gamma 100% done', { status: 'closed' });
    await make('Delta pricing', { description: 'plans and tiers', tags: ['money'] });
  });

  it("lists a group's topics newest first with every field", async () => {
    const res = await search(`?groupId=${board}`);
    expect(res.status).toBe(200);
    expect(titles(res.body)).toEqual(['Delta pricing', 'Gamma 100% done', 'Beta feedback', 'Alpha launch']);
    expect(res.body.topics[0]).toMatchObject({
      groupId: board,
      tags: ['money'],
      description: 'plans and tiers',
      links: [],
      converted: false,
    });
    expect(res.body.pageInfo).toEqual({ hasMore: false, nextCursor: null, limit: 50 });
  });

  it('matches q case-insensitively in title, description and tags', async () => {
    expect(titles((await search(`?groupId=${board}&q=PLAN`)).body)).toEqual(['Delta pricing', 'Alpha launch']);
    expect(titles((await search(`?groupId=${board}&q=customer-voice`)).body)).toEqual(['Beta feedback']);
    expect(titles((await search(`?groupId=${board}&q=voice`)).body)).toEqual(['Beta feedback']);
    expect(titles((await search(`?groupId=${board}&q=gAmMa`)).body)).toEqual(['Gamma 100% done']);
    // LIKE wildcards in q are plain text.
    expect(titles((await search(`?groupId=${board}&q=${encodeURIComponent('100%')}`)).body)).toEqual([
      'Gamma 100% done',
    ]);
    expect(titles((await search(`?groupId=${board}&q=${encodeURIComponent('%')}`)).body)).toEqual(['Gamma 100% done']);
    expect(titles((await search(`?groupId=${board}&q=_`)).body)).toEqual([]);
  });

  it('filters by status, across groups without groupId', async () => {
    expect(titles((await search(`?groupId=${board}&status=resolved`)).body)).toEqual(['Beta feedback']);
    expect(titles((await search('?status=closed&q=gamma')).body)).toEqual(['Gamma 100% done']);
    const bad = await search('?status=done');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'status' } });
  });

  it('pages newest first with a cursor bound to the filters', async () => {
    const first = await search(`?groupId=${board}&limit=3`);
    expect(titles(first.body)).toEqual(['Delta pricing', 'Gamma 100% done', 'Beta feedback']);
    expect(first.body.pageInfo).toMatchObject({ hasMore: true, limit: 3 });
    const cursor = encodeURIComponent(first.body.pageInfo.nextCursor);
    const second = await search(`?groupId=${board}&limit=3&cursor=${cursor}`);
    expect(titles(second.body)).toEqual(['Alpha launch']);
    expect(second.body.pageInfo).toEqual({ hasMore: false, nextCursor: null, limit: 3 });
    const otherFilter = await search(`?groupId=${board}&status=open&cursor=${cursor}`);
    expect(otherFilter.status).toBe(400);
    expect(otherFilter.body.code).toBe('INVALID_CURSOR');
  });

  it('answers DISCUSSION_GROUP_NOT_FOUND for a groupId filter the caller cannot see', async () => {
    for (const [groupId, token] of [
      ['dgr_unknown', TOKENS.admin],
      [advisory, TOKENS.admin],
      [board, TOKENS.globex],
    ]) {
      const res = await search(`?groupId=${groupId}`, token);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'DISCUSSION_GROUP_NOT_FOUND', details: { groupId } });
    }
  });
});

describe('GET /api/external/tags discussionTopicCount', () => {
  it('counts tags on visible topics, naming only projects the caller can access', async () => {
    const tagged = { tags: ['Vendor-risk'], sourceProjectId: acme.projects['OPS/INFRA'] };
    await createTopic({ title: 'Town tag', ...tagged });
    await createTopic({ title: 'Board tag', groupId: advisory, tags: ['vendor-risk'] }, TOKENS.bot);
    const count = async (token: string) => {
      const res = await h.call('GET', '/api/external/tags', { token });
      expect(res.status).toBe(200);
      return res.body.tags.find((t: { name: string }) => t.name.toLowerCase() === 'vendor-risk');
    };
    expect(await count(TOKENS.admin)).toMatchObject({
      discussionTopicCount: 1,
      usageCount: 1,
      projectIds: [acme.projects['OPS/INFRA']],
    });
    expect(await count(TOKENS.alice)).toMatchObject({
      discussionTopicCount: 2,
      usageCount: 2,
      projectIds: [acme.projects['OPS/INFRA']],
    });
    expect(await count(TOKENS.bot)).toMatchObject({ discussionTopicCount: 2, usageCount: 2, projectIds: [] });
    expect(await count(TOKENS.globex)).toBeUndefined();
  });
});
