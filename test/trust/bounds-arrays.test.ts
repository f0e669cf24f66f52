import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { ACME, GLOBEX, TOKENS } from '../support/fixtures.js';
import { startCountingHarness, type CountingHarness, type Statement } from '../support/statements.js';

/**
 * Lists in a request are bounded (100 entries, tags 50, complete reorder lists 1,000), and
 * the references they hold resolve in one query per kind: a long list costs no more
 * statements than a short one, and no statement binds more than 400 variables.
 */

let h: CountingHarness;
let acme: Awaited<ReturnType<CountingHarness['apply']>>;
let globex: Awaited<ReturnType<CountingHarness['apply']>>;
const API = '/api/external';
const call = (method: string, path: string, body?: unknown, token = TOKENS.admin) =>
  h.call(method, `${API}${path}`, { token, body });
const measure = (method: string, path: string, body?: unknown) =>
  h.measure(method, `${API}${path}`, { token: TOKENS.admin, body });
const maxVariables = (statements: Statement[]) => Math.max(0, ...statements.map((s) => s.variables));

const expectOver = (reply: { status: number; body: any }, field: string, max: number, count: number) => {
  expect(reply.status, JSON.stringify(reply.body).slice(0, 200)).toBe(400);
  expect(reply.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field, max, count } });
};

let groupId: string;
let issues: Array<{ issueId: string; issueKey: string }>;
let meetingId: string;
let itemIds: string[];

beforeAll(async () => {
  h = await startCountingHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
  globex = await h.apply(GLOBEX);
  groupId = (await call('POST', '/discussion', { name: 'Links' })).body.group.groupId;
  issues = [];
  for (let n = 0; n < 25; n++)
    issues.push((await call('POST', '/issues', { title: `Target ${n}`, projectKey: 'API' })).body.issue);
  meetingId = (await call('POST', '/meetings', { title: 'Targets', projectId: acme.projects['ENG/API'] })).body.meeting
    .meetingId;
  itemIds = [];
  for (let n = 0; n < 25; n++)
    itemIds.push(
      (await call('POST', `/meetings/${meetingId}/agenda-items`, { title: `Item ${n}` })).body.agendaItem.agendaItemId,
    );
});
afterAll(async () => h.close());

/** `n` links cycling through issue ids, issue keys, project keys (with a team) and agenda items. */
const links = (n: number) =>
  Array.from({ length: n }, (_, i) => {
    switch (i % 4) {
      case 0:
        return { targetType: 'issue', targetId: issues[((i / 4) % 25) | 0].issueId };
      case 1:
        return { targetType: 'issue', targetKey: issues[((i / 4) % 25) | 0].issueKey };
      case 2:
        return { targetType: 'project', targetKey: i % 8 === 2 ? 'API' : 'WEB', teamKey: 'ENG' };
      default:
        return { targetType: 'agenda_item', targetId: itemIds[((i / 4) % 25) | 0] };
    }
  });

describe('list bounds', () => {
  it('refuses more than 50 tags, and 6,000 tags with a 400 instead of a database error', async () => {
    const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag-${i}`);
    expectOver(await call('POST', '/issues', { title: 'Tags', projectKey: 'API', tags: tags(51) }), 'tags', 50, 51);
    expectOver(
      await call('POST', '/issues', { title: 'Tags', projectKey: 'API', labels: tags(6_000) }),
      'labels',
      50,
      6_000,
    );
    expectOver(
      await call('POST', `/meetings/${meetingId}/agenda-items`, { title: 'Tags', tags: tags(51) }),
      'tags',
      50,
      51,
    );
    const created = await call('POST', '/issues', { title: 'Tags', projectKey: 'API', tags: tags(50) });
    expect(created.status).toBe(201);
    expect(created.body.issue.tags).toHaveLength(50);
  });

  it('refuses more than 100 entries in other lists', async () => {
    expectOver(
      await call('POST', '/discussion/topics', { groupId, title: 'Many', links: links(101) }),
      'links',
      100,
      101,
    );
    expectOver(
      await call('POST', '/discussion', {
        name: 'Crowd',
        memberIds: Array.from({ length: 101 }, () => acme.users.bob),
      }),
      'memberIds',
      100,
      101,
    );
    expectOver(
      await call('POST', '/webhooks', {
        url: 'https://hooks.example.com/x',
        events: Array.from({ length: 101 }, () => 'issue.created'),
      }),
      'events',
      100,
      101,
    );
    expectOver(
      await call('PATCH', `/meetings/${meetingId}/agenda-groups`, {
        agendaGroupIds: Array.from({ length: 1_001 }, (_, i) => `agp_${i}`),
      }),
      'agendaGroupIds',
      1_000,
      1_001,
    );
    expectOver(
      await call('PATCH', '/meetings/settings/agenda-statuses', {
        orderedStatusIds: Array.from({ length: 1_001 }, (_, i) => `ags_${i}`),
      }),
      'orderedStatusIds',
      1_000,
      1_001,
    );
  });
});

describe('references in lists resolve in one query per kind', () => {
  it('creates a topic with 100 links in as many statements as with 4, none over 400 variables', async () => {
    const few = await measure('POST', '/discussion/topics', { groupId, title: 'Few links', links: links(4) });
    expect(few.reply.status).toBe(201);
    const many = await measure('POST', '/discussion/topics', { groupId, title: 'Many links', links: links(100) });
    expect(many.reply.status).toBe(201);
    // Duplicates collapse: 25 issues (by id and by key alike), 2 projects, 25 items.
    expect(many.reply.body.topic.links).toHaveLength(52);
    expect(many.statements.length).toBeLessThanOrEqual(few.statements.length + 1);
    expect(maxVariables(many.statements)).toBeLessThanOrEqual(400);

    // A replace costs the same whatever the list's length: compare it with a replace of 4.
    const replacedFew = await measure('PATCH', `/discussion/topics/${few.reply.body.topic.topicId}`, {
      links: links(4).reverse(),
    });
    expect(replacedFew.reply.status).toBe(200);
    const replaced = await measure('PATCH', `/discussion/topics/${many.reply.body.topic.topicId}`, {
      links: links(100).reverse(),
    });
    expect(replaced.reply.status).toBe(200);
    expect(replaced.statements.length).toBeLessThanOrEqual(replacedFew.statements.length + 1);
    expect(maxVariables(replaced.statements)).toBeLessThanOrEqual(400);
  });

  it('reports the first bad entry in list order with its path, and writes nothing', async () => {
    const list = links(40);
    list[9] = { targetType: 'issue', targetId: 'iss_missing' };
    list[30] = { targetType: 'project', targetKey: 'NOPE', teamKey: 'ENG' };
    const first = await call('POST', '/discussion/topics', { groupId, title: 'Bad list', links: list });
    expect(first.status).toBe(404);
    expect(first.body).toMatchObject({
      code: 'ISSUE_NOT_FOUND',
      details: { field: 'links.9.targetId', issueId: 'iss_missing' },
    });
    list[9] = { targetType: 'agenda_item', targetId: itemIds[0] };
    const second = await call('POST', '/discussion/topics', { groupId, title: 'Bad list', links: list });
    expect(second.body).toMatchObject({
      code: 'PROJECT_NOT_FOUND',
      details: { field: 'links.30.targetKey', projectKey: 'NOPE' },
    });
    list[30] = { targetType: 'project', targetKey: 'API', teamKey: 'NOPE' };
    const third = await call('POST', '/discussion/topics', { groupId, title: 'Bad list', links: list });
    expect(third.body).toMatchObject({
      code: 'TEAM_NOT_FOUND',
      details: { field: 'links.30.teamKey', teamKey: 'NOPE' },
    });
    const found = await call('GET', '/discussion/topics?q=Bad%20list');
    expect(found.body.topics).toEqual([]);
  });

  it('keeps tenants and project grants apart inside a batch', async () => {
    const foreign = (await call('POST', '/issues', { title: 'Globex issue', projectKey: 'API' }, TOKENS.globex)).body
      .issue;
    const withForeign = [...links(8), { targetType: 'issue', targetId: foreign.issueId }];
    const reply = await call('POST', '/discussion/topics', { groupId, title: 'Foreign', links: withForeign });
    expect(reply.body).toMatchObject({ code: 'ISSUE_NOT_FOUND', details: { field: 'links.8.targetId' } });
    const byKey = await call('POST', '/discussion/topics', {
      groupId,
      title: 'Foreign',
      links: [{ targetType: 'project', targetId: globex.projects['ENG/API'] }],
    });
    expect(byKey.body.code).toBe('PROJECT_NOT_FOUND');
    // The bot token sees ENG/API only: a WEB project link does not exist for it.
    const botGroup = (await call('POST', '/discussion', { name: 'Bot links', visibility: 'workspace' })).body.group
      .groupId;
    const hidden = await call(
      'POST',
      '/discussion/topics',
      {
        groupId: botGroup,
        title: 'Hidden',
        links: [
          { targetType: 'project', targetKey: 'API', teamKey: 'ENG' },
          { targetType: 'project', targetKey: 'WEB', teamKey: 'ENG' },
        ],
      },
      TOKENS.bot,
    );
    expect(hidden.body).toMatchObject({ code: 'PROJECT_NOT_FOUND', details: { field: 'links.1.targetKey' } });
  });

  it('resolves 100 group members in as many statements as 2', async () => {
    const members = [acme.users.alice, acme.users.bob, 'api-token:bot', 'api-token:off'];
    const few = await measure('POST', '/discussion', { name: 'Two', memberIds: members.slice(0, 2) });
    expect(few.reply.status).toBe(201);
    const many = await measure('POST', '/discussion', {
      name: 'Hundred',
      memberIds: Array.from({ length: 100 }, (_, i) => members[i % 4]),
    });
    expect(many.reply.status).toBe(201);
    expect(many.reply.body.group.memberIds.sort()).toEqual([...members].sort());
    expect(many.statements.length).toBeLessThanOrEqual(few.statements.length + 1);
    const bad = await call('POST', '/discussion', {
      name: 'Bad',
      memberIds: [...members, 'usr_nobody', globex.users.gina],
    });
    expect(bad.body).toMatchObject({
      code: 'OWNER_NOT_IN_WORKSPACE',
      details: { field: 'memberIds.4', memberId: 'usr_nobody' },
    });
  });

  it('writes 50 tags in one statement of at most 400 variables', async () => {
    const tags = Array.from({ length: 50 }, (_, i) => `bulk-${i}`);
    const { reply, statements } = await measure('POST', '/issues', { title: 'Bulk tags', projectKey: 'API', tags });
    expect(reply.status).toBe(201);
    expect(statements.filter((s) => /insert into "tag_usages"/.test(s.sql))).toHaveLength(1);
    expect(maxVariables(statements)).toBeLessThanOrEqual(400);
  });
});

describe('complete reorder lists', () => {
  /** Adds rows straight to the table: a thousand records through the API would only be slow. */
  const addGroups = async (meeting: string, count: number) => {
    const now = new Date().toISOString();
    const rows = Array.from({ length: count }, (_, i) => ({
      id: newId('agp'),
      workspace_id: acme.workspaceId,
      meeting_id: meeting,
      name: `Group ${i}`,
      description: null,
      position: i,
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += 50)
      await h.database.db
        .insertInto('agenda_groups')
        .values(rows.slice(i, i + 50))
        .execute();
  };

  it('reorders 1,000 agenda groups in a few statements, and refuses a 1,001st group', async () => {
    const meeting = (await call('POST', '/meetings', { title: 'Big' })).body.meeting.meetingId;
    await addGroups(meeting, 1_000);
    const ids = (await call('GET', `/meetings/${meeting}/agenda-groups`)).body.agendaGroups.map(
      (g: { agendaGroupId: string }) => g.agendaGroupId,
    );
    expect(ids).toHaveLength(1_000);
    const { reply, statements } = await measure('PATCH', `/meetings/${meeting}/agenda-groups`, {
      agendaGroupIds: [...ids].reverse(),
    });
    expect(reply.status).toBe(200);
    expect(reply.body.agendaGroups.map((g: { agendaGroupId: string }) => g.agendaGroupId)).toEqual([...ids].reverse());
    expect(reply.body.agendaGroups.map((g: { position: number }) => g.position)).toEqual(
      ids.map((_: string, i: number) => i),
    );
    expect(statements.length).toBeLessThanOrEqual(12);
    expect(maxVariables(statements)).toBeLessThanOrEqual(400);
    const after = (await call('GET', `/meetings/${meeting}/agenda-groups`)).body.agendaGroups;
    expect(after.map((g: { agendaGroupId: string }) => g.agendaGroupId)).toEqual([...ids].reverse());

    const full = await call('POST', `/meetings/${meeting}/agenda-groups`, { name: 'One too many' });
    expect(full.status).toBe(409);
    expect(full.body).toMatchObject({
      code: 'AGENDA_GROUP_LIMIT_REACHED',
      details: { meetingId: meeting, max: 1_000 },
    });
  });

  it('reorders agenda statuses in a few statements, and refuses a status past 1,000', async () => {
    const statuses = (await call('GET', '/meetings/settings')).body.settings.agendaStatuses;
    const now = new Date().toISOString();
    const rows = Array.from({ length: 1_000 - statuses.length }, (_, i) => ({
      id: newId('ags'),
      workspace_id: acme.workspaceId,
      name: `Status ${i}`,
      name_lower: `status ${i}`,
      system: 0,
      position: statuses.length + i,
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += 50)
      await h.database.db
        .insertInto('agenda_statuses')
        .values(rows.slice(i, i + 50))
        .execute();
    const ids = (await call('GET', '/meetings/settings')).body.settings.agendaStatuses.map(
      (s: { statusId: string }) => s.statusId,
    );
    expect(ids).toHaveLength(1_000);
    const { reply, statements } = await measure('PATCH', '/meetings/settings/agenda-statuses', {
      orderedStatusIds: [...ids].reverse(),
    });
    expect(reply.status).toBe(200);
    expect(reply.body.agendaStatuses.map((s: { statusId: string }) => s.statusId)).toEqual([...ids].reverse());
    expect(statements.length).toBeLessThanOrEqual(12);
    expect(maxVariables(statements)).toBeLessThanOrEqual(400);

    const full = await call('POST', '/meetings/settings/agenda-statuses', { name: 'One too many' });
    expect(full.status).toBe(409);
    expect(full.body).toMatchObject({ code: 'AGENDA_STATUS_LIMIT_REACHED', details: { max: 1_000 } });
  });
});
