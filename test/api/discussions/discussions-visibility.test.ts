import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * Discussion visibility on every group and topic route, for tokens and an OAuth user.
 * Topics are written while their groups are visible, then the workspace file hides the
 * groups (private from the API, or members-only), so each hidden topic is known to exist:
 * an empty answer here is the filter at work, not a missing record.
 */
const groupsFile = (phase: 'open' | 'hidden') => ({
  workspace: ACME.workspace,
  discussionGroups: [
    { name: 'Advisory board', owner: 'alice', members: ['api-token:bot'], visibility: 'members' },
    { name: 'Town hall', owner: 'bob', visibility: 'workspace' },
    {
      name: 'Board secrets',
      owner: 'alice',
      members: ['api-token:admin', 'api-token:bot'],
      visibility: 'workspace',
      apiVisibility: phase === 'open' ? 'visible' : 'private',
    },
    { name: 'Ops circle', owner: 'bob', members: ['carol'], visibility: phase === 'open' ? 'workspace' : 'members' },
  ],
});
const GLOBEX_GROUPS = {
  workspace: GLOBEX.workspace,
  discussionGroups: [{ name: 'Globex board', owner: 'gina', visibility: 'workspace' }],
};

type Caller = 'admin' | 'bot' | 'idle' | 'alice' | 'globex';
const CALLERS: Caller[] = ['admin', 'bot', 'idle', 'alice', 'globex'];
type Place = 'Advisory board' | 'Town hall' | 'Board secrets' | 'Ops circle' | 'Globex board';

/** Who sees each group once the file has hidden them. */
const SEES: Record<Place, Caller[]> = {
  'Advisory board': ['bot', 'alice'],
  'Town hall': ['admin', 'bot', 'idle', 'alice'],
  'Board secrets': [],
  'Ops circle': [],
  'Globex board': ['globex'],
};
const PLACES = Object.keys(SEES) as Place[];

let h: Harness;
const groupIds = {} as Record<Place, string>;
const topicIds = {} as Record<Place, string>;
let acme: ApplyResult;

const topicTitle = (place: Place) => `Secret plans of ${place}`;
const topicTag = (place: Place) => `tag-${place.toLowerCase().replace(/\s+/g, '-')}`;

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
  Object.assign(
    groupIds,
    (await h.apply(groupsFile('open'))).discussionGroups,
    (await h.apply(GLOBEX_GROUPS)).discussionGroups,
  );
  for (const place of PLACES) {
    const token = place === 'Globex board' ? TOKENS.globex : place === 'Advisory board' ? TOKENS.bot : TOKENS.admin;
    const res = await h.call('POST', '/api/external/discussion/topics', {
      token,
      body: { groupId: groupIds[place], title: topicTitle(place), tags: [topicTag(place)] },
    });
    expect(res.status).toBe(201);
    topicIds[place] = res.body.topic.topicId;
  }
  await h.apply(groupsFile('hidden'));
});
afterAll(() => h.close());

/** One MCP tools/call on /api/mcp with the discussions toolset; answers the tool result. */
async function callTool(
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError?: boolean; structuredContent?: unknown }> {
  const res = await h.call('POST', '/api/mcp?toolsets=discussions', {
    token,
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
  expect(res.status).toBe(200);
  return res.body.result;
}

const cases = (visible: boolean) =>
  PLACES.flatMap((place) =>
    CALLERS.filter((caller) => SEES[place].includes(caller) === visible).map((caller) => [place, caller] as const),
  );

it('keeps every hidden topic stored: what the routes below do not answer exists', async () => {
  const rows = await h.database.db
    .selectFrom('discussion_topics')
    .select('id')
    .where('id', 'in', Object.values(topicIds))
    .execute();
  expect(rows).toHaveLength(PLACES.length);
});

describe.each(cases(false))('%s is hidden from %s', (place, caller) => {
  const token = () => TOKENS[caller];
  const notFoundTopic = (res: { status: number; body: any }, topicId: string) => {
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'Discussion topic not found.',
      code: 'DISCUSSION_TOPIC_NOT_FOUND',
      details: { topicId },
      suggestion: expect.any(String),
    });
  };
  const notFoundGroup = (res: { status: number; body: any }, groupId: string) => {
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'Discussion group not found.',
      code: 'DISCUSSION_GROUP_NOT_FOUND',
      details: { groupId },
      suggestion: expect.any(String),
    });
  };

  it('answers topic reads and writes exactly as for an unknown topic', async () => {
    const topicId = topicIds[place];
    const unknown = await h.call('GET', '/api/external/discussion/topics/top_00000000000000000000000000', {
      token: token(),
    });
    notFoundTopic(unknown, 'top_00000000000000000000000000');
    notFoundTopic(await h.call('GET', `/api/external/discussion/topics/${topicId}`, { token: token() }), topicId);
    notFoundTopic(
      await h.call('PATCH', `/api/external/discussion/topics/${topicId}`, {
        token: token(),
        body: { title: 'Leaked' },
      }),
      topicId,
    );
    notFoundTopic(
      await h.call('PATCH', `/api/external/discussion/topics/${topicId}`, { token: token(), body: {} }),
      topicId,
    );
    notFoundTopic(
      await h.call('POST', `/api/external/discussion/topics/${topicId}/convert`, {
        token: token(),
        body: { projectKey: 'API', teamKey: 'ENG' },
      }),
      topicId,
    );
  });

  it('cannot be the target of a meeting work link', async () => {
    const meeting = await h.call('POST', '/api/external/meetings', {
      token: token(),
      body: { title: `Sync of ${caller}` },
    });
    expect(meeting.status).toBe(201);
    const res = await h.call('POST', `/api/external/meetings/${meeting.body.meeting.meetingId}/links`, {
      token: token(),
      body: { targetType: 'discussion_topic', targetId: topicIds[place] },
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('DISCUSSION_TOPIC_NOT_FOUND');
  });

  it('answers the same through the MCP tools', async () => {
    const topicId = topicIds[place];
    const read = await callTool(token(), 'get_discussion_topic', { topicId });
    expect(read).toMatchObject({
      isError: true,
      structuredContent: { code: 'DISCUSSION_TOPIC_NOT_FOUND', details: { topicId } },
    });
    const search = await callTool(token(), 'list_discussion_topics', { q: topicTag(place) });
    expect(search).toMatchObject({ structuredContent: { topics: [] } });
    const convert = await callTool(token(), 'convert_discussion_topic', { topicId, projectKey: 'API', teamKey: 'ENG' });
    expect(convert).toMatchObject({ isError: true, structuredContent: { code: 'DISCUSSION_TOPIC_NOT_FOUND' } });
    const rename = await callTool(token(), 'update_discussion_group', { groupId: groupIds[place], name: 'Mine' });
    expect(rename).toMatchObject({ isError: true, structuredContent: { code: 'DISCUSSION_GROUP_NOT_FOUND' } });
  });

  it('leaves the topic out of every search', async () => {
    const byTitle = await h.call('GET', `/api/external/discussion/topics?q=${encodeURIComponent(topicTitle(place))}`, {
      token: token(),
    });
    expect(byTitle.status).toBe(200);
    expect(byTitle.body.topics).toEqual([]);
    const byTag = await h.call('GET', `/api/external/discussion/topics?q=${topicTag(place)}`, { token: token() });
    expect(byTag.body.topics).toEqual([]);
    const all = await h.call('GET', '/api/external/discussion/topics?limit=200', { token: token() });
    expect(all.body.topics.map((t: { topicId: string }) => t.topicId)).not.toContain(topicIds[place]);
  });

  it('answers DISCUSSION_GROUP_NOT_FOUND on every group route, before any ownership check', async () => {
    const groupId = groupIds[place];
    const list = await h.call('GET', '/api/external/discussion?limit=200', { token: token() });
    expect(list.body.groups.map((g: { groupId: string }) => g.groupId)).not.toContain(groupId);
    notFoundGroup(
      await h.call('PATCH', `/api/external/discussion/groups/${groupId}`, { token: token(), body: { name: 'Mine' } }),
      groupId,
    );
    notFoundGroup(
      await h.call('PATCH', `/api/external/discussion/groups/${groupId}`, { token: token(), body: {} }),
      groupId,
    );
    notFoundGroup(
      await h.call('GET', `/api/external/discussion/topics?groupId=${groupId}`, { token: token() }),
      groupId,
    );
    notFoundGroup(
      await h.call('POST', '/api/external/discussion/topics', { token: token(), body: { groupId, title: 'Sneak in' } }),
      groupId,
    );
  });

  it("does not count the topic's tag", async () => {
    const res = await h.call('GET', '/api/external/tags', { token: token() });
    expect(res.body.tags.map((t: { name: string }) => t.name)).not.toContain(topicTag(place));
  });
});

describe.each(cases(true))('%s is visible to %s', (place, caller) => {
  const token = () => TOKENS[caller];

  it('answers the topic on every topic route', async () => {
    const topicId = topicIds[place];
    const read = await h.call('GET', `/api/external/discussion/topics/${topicId}`, { token: token() });
    expect(read.status).toBe(200);
    expect(read.body.topic).toMatchObject({ topicId, groupId: groupIds[place], title: topicTitle(place) });
    const search = await h.call('GET', `/api/external/discussion/topics?q=${topicTag(place)}`, { token: token() });
    expect(search.body.topics.map((t: { topicId: string }) => t.topicId)).toEqual([topicId]);
    const inGroup = await h.call('GET', `/api/external/discussion/topics?groupId=${groupIds[place]}`, {
      token: token(),
    });
    expect(inGroup.body.topics.map((t: { topicId: string }) => t.topicId)).toContain(topicId);
    const patch = await h.call('PATCH', `/api/external/discussion/topics/${topicId}`, {
      token: token(),
      body: { description: `seen by ${caller}` },
    });
    expect(patch.status).toBe(200);
    expect(patch.body.topic.description).toBe(`seen by ${caller}`);
  });

  it('answers the topic through the MCP tools and can be a meeting work-link target', async () => {
    const topicId = topicIds[place];
    expect(await callTool(token(), 'get_discussion_topic', { topicId })).toMatchObject({
      structuredContent: { topic: { topicId } },
    });
    const listed = await callTool(token(), 'list_discussion_groups', {});
    expect((listed.structuredContent as { groups: Array<{ groupId: string }> }).groups.map((g) => g.groupId)).toContain(
      groupIds[place],
    );
    const meeting = await h.call('POST', '/api/external/meetings', {
      token: token(),
      body: { title: `Sync of ${caller}` },
    });
    const link = await h.call('POST', `/api/external/meetings/${meeting.body.meeting.meetingId}/links`, {
      token: token(),
      body: { targetType: 'discussion_topic', targetId: topicId },
    });
    expect(link.status).toBe(201);
    expect(link.body.link).toMatchObject({ targetType: 'discussion_topic', targetId: topicId });
  });

  it("lists the group and counts the topic's tag", async () => {
    const list = await h.call('GET', '/api/external/discussion?limit=200', { token: token() });
    expect(list.body.groups.map((g: { groupId: string }) => g.groupId)).toContain(groupIds[place]);
    const tags = await h.call('GET', '/api/external/tags', { token: token() });
    expect(tags.body.tags.find((t: { name: string }) => t.name === topicTag(place))).toMatchObject({
      discussionTopicCount: 1,
    });
  });
});

describe('MCP tools', () => {
  it('lists one tool per discussion route', async () => {
    const res = await h.call('POST', '/api/mcp?toolsets=discussions', {
      token: TOKENS.admin,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    });
    const names = res.body.result.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'list_discussion_groups',
        'create_discussion_group',
        'update_discussion_group',
        'list_discussion_topics',
        'create_discussion_topic',
        'get_discussion_topic',
        'update_discussion_topic',
        'convert_discussion_topic',
      ]),
    );
  });
});

describe('conversion of a visible topic', () => {
  it('converts for a member token and for the OAuth user alike', async () => {
    const bot = await h.call('POST', `/api/external/discussion/topics/${topicIds['Advisory board']}/convert`, {
      token: TOKENS.bot,
      body: { projectKey: 'API', teamKey: 'ENG' },
    });
    expect(bot.status).toBe(201);
    expect(bot.body.issue.projectId).toBe(acme.projects['ENG/API']);
    const alice = await h.call('POST', `/api/external/discussion/topics/${topicIds['Advisory board']}/convert`, {
      token: TOKENS.alice,
      body: {},
    });
    expect(alice.status).toBe(200);
    expect(alice.body).toMatchObject({ created: false, issue: { issueId: bot.body.issue.issueId } });
  });
});
