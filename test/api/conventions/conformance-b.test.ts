import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discussionsOperations } from '../../../src/modules/discussions/discussions.operations.js';
import { meetingsOperations } from '../../../src/modules/meetings/meetings.operations.js';
import { webhooksOperations } from '../../../src/modules/webhooks/webhooks.operations.js';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * Regression tests for places where meetings and discussions disagreed with the documents:
 * every record carries createdAt and updatedAt (docs/api.md, "Conventions"), the tag rule
 * holds on agenda item updates as it does on topics (docs/api.md, "Conventions"), `labels`
 * is the legacy name of `tags` on every tagged record (docs/api.md, "Legacy and alias
 * names"), and no route of these areas answers 500 to odd input.
 */

let h: Harness;
let acme: ApplyResult;

const call = (method: string, url: string, body?: unknown, token = TOKENS.admin) =>
  h.call(method, `/api/external${url}`, { token, body });
const timestamps = { createdAt: expect.stringMatching(/Z$/), updatedAt: expect.stringMatching(/Z$/) };

async function newMeeting(
  body: object = { title: 'Conformance', projectId: acme.projects['ENG/API'] },
): Promise<string> {
  return (await call('POST', '/meetings', body)).body.meeting.meetingId;
}

async function newItem(
  meetingId: string,
  body: object,
): Promise<{ agendaItemId: string; sourceProjectId: string | null }> {
  const reply = await call('POST', `/meetings/${meetingId}/agenda-items`, body);
  expect(reply.status).toBe(201);
  return reply.body.agendaItem;
}

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
});
afterAll(() => h.close());

describe('createdAt and updatedAt on every record', () => {
  it('agenda statuses carry them on the settings read, create, rename and reorder', async () => {
    const settings = await call('GET', '/meetings/settings');
    expect(settings.status).toBe(200);
    for (const status of settings.body.settings.agendaStatuses) expect(status).toMatchObject(timestamps);

    const created = await call('POST', '/meetings/settings/agenda-statuses', { name: 'Stamped' });
    expect(created.status).toBe(201);
    expect(created.body.agendaStatus).toMatchObject({ name: 'Stamped', system: false, ...timestamps });
    const statusId = created.body.agendaStatus.statusId;

    const renamed = await call('PATCH', `/meetings/settings/agenda-statuses/${statusId}`, { name: 'Stamped again' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.agendaStatus).toMatchObject({
      name: 'Stamped again',
      createdAt: created.body.agendaStatus.createdAt,
      updatedAt: expect.any(String),
    });

    const ids = (await call('GET', '/meetings/settings')).body.settings.agendaStatuses.map(
      (s: { statusId: string }) => s.statusId,
    );
    const reordered = await call('PATCH', '/meetings/settings/agenda-statuses', {
      orderedStatusIds: [...ids].reverse(),
    });
    expect(reordered.status).toBe(200);
    expect(reordered.body.agendaStatuses.map((s: { statusId: string }) => s.statusId)).toEqual([...ids].reverse());
    for (const status of reordered.body.agendaStatuses) expect(status).toMatchObject(timestamps);
    // The stored values are what the reorder answered.
    expect((await call('GET', '/meetings/settings')).body.settings.agendaStatuses).toEqual(
      reordered.body.agendaStatuses,
    );
  });

  it('agenda owners carry them on add, list and the agenda item read', async () => {
    const meetingId = await newMeeting();
    const { agendaItemId } = await newItem(meetingId, { title: 'Owned' });
    const itemPath = `/meetings/${meetingId}/agenda-items/${agendaItemId}`;

    const added = await call('POST', `${itemPath}/owners`, {
      externalName: 'Dana Lee',
      externalEmail: 'dana@vendor.test',
    });
    expect(added.status).toBe(201);
    expect(added.body.owner).toMatchObject({ kind: 'external', ...timestamps });
    const again = await call('POST', `${itemPath}/owners`, { externalEmail: 'DANA@vendor.test' });
    expect(again.status).toBe(200);
    expect(again.body.owner).toEqual(added.body.owner);

    expect((await call('GET', `${itemPath}/owners`)).body.owners).toEqual([added.body.owner]);
    expect((await call('GET', itemPath)).body.agendaItem.owners).toEqual([added.body.owner]);
  });

  it('meeting and agenda item work links carry them on POST and on every read', async () => {
    const meetingId = await newMeeting();
    const { agendaItemId } = await newItem(meetingId, { title: 'Linked' });

    const meetingLink = await call('POST', `/meetings/${meetingId}/links`, {
      targetType: 'project',
      targetKey: 'API',
      teamKey: 'ENG',
    });
    expect(meetingLink.status).toBe(201);
    expect(meetingLink.body.link).toEqual({
      linkId: expect.stringMatching(/^wl_/),
      targetType: 'project',
      targetId: acme.projects['ENG/API'],
      targetKey: 'API',
      ...timestamps,
    });
    const duplicate = await call('POST', `/meetings/${meetingId}/links`, {
      targetType: 'project',
      targetId: acme.projects['ENG/API'],
    });
    expect(duplicate.status).toBe(200);
    expect(duplicate.body.link).toEqual(meetingLink.body.link);
    expect((await call('GET', `/meetings/${meetingId}`)).body.meeting.links).toEqual([meetingLink.body.link]);
    expect(
      (await call('GET', `/meetings?q=${encodeURIComponent('Conformance')}`)).body.meetings.find(
        (m: { meetingId: string }) => m.meetingId === meetingId,
      ).links,
    ).toEqual([meetingLink.body.link]);

    const itemLink = await call('POST', `/meetings/${meetingId}/agenda-items/${agendaItemId}/links`, {
      targetType: 'project',
      targetKey: 'WEB',
    });
    expect(itemLink.status).toBe(201);
    expect(itemLink.body.link).toMatchObject({ targetType: 'project', targetKey: 'WEB', ...timestamps });
    expect((await call('GET', `/meetings/${meetingId}/agenda-items/${agendaItemId}`)).body.agendaItem.links).toEqual([
      itemLink.body.link,
    ]);
  });

  it('discussion topic links carry them on create, update, read and search', async () => {
    const groupId = (await call('POST', '/discussion', { name: 'Stamped links', visibility: 'workspace' })).body.group
      .groupId;
    const created = await call('POST', '/discussion/topics', {
      groupId,
      title: 'Linked topic',
      links: [{ targetType: 'project', targetKey: 'API' }],
    });
    expect(created.status).toBe(201);
    expect(created.body.topic.links).toEqual([
      {
        linkId: expect.stringMatching(/^wl_/),
        targetType: 'project',
        targetId: acme.projects['ENG/API'],
        targetKey: 'API',
        ...timestamps,
      },
    ]);
    const topicId = created.body.topic.topicId;

    const updated = await call('PATCH', `/discussion/topics/${topicId}`, {
      links: [{ targetType: 'project', targetId: acme.projects['ENG/WEB'] }],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.topic.links).toEqual([
      {
        linkId: expect.stringMatching(/^wl_/),
        targetType: 'project',
        targetId: acme.projects['ENG/WEB'],
        targetKey: 'WEB',
        ...timestamps,
      },
    ]);
    expect((await call('GET', `/discussion/topics/${topicId}`)).body.topic.links).toEqual(updated.body.topic.links);
    const found = (await call('GET', '/discussion/topics?q=linked%20topic')).body.topics;
    expect(found.find((t: { topicId: string }) => t.topicId === topicId).links).toEqual(updated.body.topic.links);
  });
});

describe('tag rule on agenda item updates', () => {
  const tagProjects = async (name: string): Promise<string[] | undefined> =>
    (await call('GET', '/tags')).body.tags.find((t: { name: string }) => t.name === name)?.projectIds;

  it("a write of tags without sourceProjectId takes the meeting's project, as a new item does", async () => {
    const meetingId = await newMeeting();
    const item = await newItem(meetingId, { title: 'Agenda only at first', tags: ['rule-one'], sourceProjectId: null });
    expect(item.sourceProjectId).toBeNull();
    expect(await tagProjects('rule-one')).toEqual([]);

    const retagged = await call('PATCH', `/meetings/${meetingId}/agenda-items/${item.agendaItemId}`, {
      tags: ['rule-two'],
    });
    expect(retagged.status).toBe(200);
    expect(retagged.body.agendaItem).toMatchObject({ tags: ['rule-two'], sourceProjectId: acme.projects['ENG/API'] });
    expect(await tagProjects('rule-two')).toEqual([acme.projects['ENG/API']]);
    // The replaced tag no longer counts anywhere.
    expect(await tagProjects('rule-one')).toBeUndefined();
  });

  it('explicit null keeps tags agenda-only, and a write without tags keeps the current source', async () => {
    const meetingId = await newMeeting();
    const item = await newItem(meetingId, { title: 'Linked at first', tags: ['rule-three'] });
    expect(item.sourceProjectId).toBe(acme.projects['ENG/API']);
    const path = `/meetings/${meetingId}/agenda-items/${item.agendaItemId}`;

    const agendaOnly = await call('PATCH', path, { tags: ['rule-four'], sourceProjectId: null });
    expect(agendaOnly.body.agendaItem).toMatchObject({ tags: ['rule-four'], sourceProjectId: null });
    expect(await tagProjects('rule-four')).toEqual([]);

    const renamed = await call('PATCH', path, { title: 'Renamed only' });
    expect(renamed.body.agendaItem).toMatchObject({ tags: ['rule-four'], sourceProjectId: null });

    const explicit = await call('PATCH', path, { tags: ['rule-four'], sourceProjectId: acme.projects['ENG/WEB'] });
    expect(explicit.body.agendaItem.sourceProjectId).toBe(acme.projects['ENG/WEB']);
    expect(await tagProjects('rule-four')).toEqual([acme.projects['ENG/WEB']]);
  });

  it('in a meeting without a project a tags write keeps the tags agenda-only', async () => {
    const meetingId = await newMeeting({ title: 'No project' });
    const item = await newItem(meetingId, { title: 'Loose', tags: ['rule-five'] });
    expect(item.sourceProjectId).toBeNull();
    const retagged = await call('PATCH', `/meetings/${meetingId}/agenda-items/${item.agendaItemId}`, {
      tags: ['rule-five', 'rule-six'],
    });
    expect(retagged.body.agendaItem).toMatchObject({ tags: ['rule-five', 'rule-six'], sourceProjectId: null });
  });

  it("a tags write by a caller without access to the meeting's project finds no meeting", async () => {
    const meetingId = await newMeeting({ title: 'Infra', projectId: acme.projects['OPS/INFRA'] });
    const item = await newItem(meetingId, { title: 'Infra item', tags: ['rule-seven'] });
    const reply = await call(
      'PATCH',
      `/meetings/${meetingId}/agenda-items/${item.agendaItemId}`,
      { tags: ['x'] },
      TOKENS.bot,
    );
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('MEETING_NOT_FOUND');
    const foreign = await call(
      'PATCH',
      `/meetings/${meetingId}/agenda-items/${item.agendaItemId}`,
      { tags: ['x'] },
      TOKENS.globex,
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('MEETING_NOT_FOUND');
  });
});

describe('labels, the legacy name of tags, on agenda items and topics', () => {
  it('agenda items accept labels as tags, answer both, and refuse a disagreeing pair', async () => {
    const meetingId = await newMeeting();
    const created = await call('POST', `/meetings/${meetingId}/agenda-items`, {
      title: 'Legacy',
      labels: ['Legacy-One'],
    });
    expect(created.status).toBe(201);
    expect(created.body.agendaItem).toMatchObject({
      tags: ['Legacy-One'],
      labels: ['Legacy-One'],
      sourceProjectId: acme.projects['ENG/API'],
    });
    const path = `/meetings/${meetingId}/agenda-items/${created.body.agendaItem.agendaItemId}`;

    const same = await call('PATCH', path, { tags: ['legacy-two'], labels: ['LEGACY-TWO'] });
    expect(same.status).toBe(200);
    expect(same.body.agendaItem).toMatchObject({ tags: ['legacy-two'], labels: ['legacy-two'] });

    const relabelled = await call('PATCH', path, { labels: ['legacy-three'] });
    expect(relabelled.body.agendaItem).toMatchObject({ tags: ['legacy-three'], labels: ['legacy-three'] });
    expect((await call('GET', `/meetings/${meetingId}/agenda-items`)).body.agendaItems[0]).toMatchObject({
      tags: ['legacy-three'],
      labels: ['legacy-three'],
    });

    const conflict = await call('PATCH', path, { tags: ['a'], labels: ['b'] });
    expect(conflict.status).toBe(400);
    expect(conflict.body).toMatchObject({ code: 'TAG_FIELD_CONFLICT', details: { field: 'labels' } });
    const wrongType = await call('POST', `/meetings/${meetingId}/agenda-items`, { title: 'Bad', labels: 'x' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'labels' } });
    expect((await call('GET', path)).body.agendaItem.tags).toEqual(['legacy-three']);
  });

  it('topics accept labels as tags (with the tag rule), answer both, and refuse a disagreeing pair', async () => {
    const groupId = (await call('POST', '/discussion', { name: 'Legacy labels', visibility: 'workspace' })).body.group
      .groupId;
    const created = await call('POST', '/discussion/topics', {
      groupId,
      title: 'Legacy topic',
      labels: ['legacy-topic'],
      links: [{ targetType: 'project', targetKey: 'API' }],
    });
    expect(created.status).toBe(201);
    expect(created.body.topic).toMatchObject({
      tags: ['legacy-topic'],
      labels: ['legacy-topic'],
      sourceProjectId: acme.projects['ENG/API'],
    });
    const path = `/discussion/topics/${created.body.topic.topicId}`;

    const relabelled = await call('PATCH', path, { labels: ['legacy-other'] });
    expect(relabelled.status).toBe(200);
    expect(relabelled.body.topic).toMatchObject({ tags: ['legacy-other'], labels: ['legacy-other'] });
    const found = (await call('GET', '/discussion/topics?q=legacy-other')).body.topics;
    expect(found.map((t: { topicId: string }) => t.topicId)).toEqual([created.body.topic.topicId]);
    expect(found[0].labels).toEqual(['legacy-other']);

    const conflict = await call('POST', '/discussion/topics', { groupId, title: 'Clash', tags: ['a'], labels: ['b'] });
    expect(conflict.status).toBe(400);
    expect(conflict.body).toMatchObject({ code: 'TAG_FIELD_CONFLICT', details: { field: 'labels' } });
  });
});

describe('odd input never crashes a meetings, discussions or webhooks route', () => {
  const oddValues: unknown[] = [
    null,
    1,
    -1,
    1.5,
    9007199254740991,
    true,
    [],
    [1],
    ['a\u0000'],
    {},
    { a: 1 },
    '',
    '   ',
    'x'.repeat(20_000),
    'a\u0000b',
  ];

  it('answers every odd field value, path id and query value with a 4xx, never a 500', async () => {
    const meetingId = await newMeeting();
    const agendaGroupId = (await call('POST', `/meetings/${meetingId}/agenda-groups`, { name: 'Odd' })).body.agendaGroup
      .agendaGroupId;
    const { agendaItemId } = await newItem(meetingId, { title: 'Odd', agendaGroupId, notes: 'n' });
    const groupId = (await call('POST', '/discussion', { name: 'Odd input' })).body.group.groupId;
    const topicId = (await call('POST', '/discussion/topics', { groupId, title: 'Odd' })).body.topic.topicId;
    const ids: Record<string, string> = { meetingId, agendaGroupId, agendaItemId, groupId, topicId };
    const failures: string[] = [];
    const check = async (label: string, method: string, url: string, body?: unknown) => {
      // Bodies go as JSON text, so a body that is not an object reaches the route as such.
      const json =
        body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
      const reply = await h.call(method, url, { token: TOKENS.admin, ...json });
      if (reply.status >= 500 || (reply.status >= 400 && typeof reply.body?.code !== 'string'))
        failures.push(`${label} -> ${reply.status}`);
    };
    for (const op of [...meetingsOperations, ...discussionsOperations, ...webhooksOperations]) {
      const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? 'unknown');
      for (const odd of ['%00', 'x'.repeat(3000)]) {
        if (op.path.includes('{'))
          await check(
            `${op.id} path ${odd.slice(0, 5)}`,
            op.method,
            op.path.replace(/\{(\w+)\}/g, odd),
            op.method === 'GET' || op.method === 'DELETE' ? undefined : {},
          );
      }
      for (const name of Object.keys((op.query as { properties?: object } | undefined)?.properties ?? {})) {
        for (const odd of ['', '%00', '[]', '99999999999999999999'])
          await check(`${op.id} ?${name}=${odd}`, 'GET', `${url}?${name}=${odd}`);
      }
      if (op.method === 'GET' || op.method === 'DELETE') continue;
      for (const body of [[], [{}], 'text', 1, null])
        await check(`${op.id} body ${JSON.stringify(body)}`, op.method, url, body);
      for (const field of Object.keys((op.body as { properties?: object } | undefined)?.properties ?? {})) {
        for (const value of oddValues)
          await check(`${op.id} ${field}=${JSON.stringify(value).slice(0, 12)}`, op.method, url, { [field]: value });
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

describe('references and links that are present but unusable', () => {
  it('answers PROJECT_NOT_FOUND for an empty projectId on a meeting instead of creating it without a project', async () => {
    const reply = await call('POST', '/meetings', { title: 'Nowhere', projectId: '' });
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('PROJECT_NOT_FOUND');
  });

  it('answers ATTACHMENT_URL_REQUIRED for a link URL with a NUL character on agenda items and issues', async () => {
    const meetingId = await newMeeting();
    const { agendaItemId } = await newItem(meetingId, { title: 'Evidence' });
    const onItem = await call('POST', `/meetings/${meetingId}/agenda-items/${agendaItemId}/attachments`, {
      url: 'https://example.com/\u0000',
    });
    expect(onItem.status).toBe(400);
    expect(onItem.body.code).toBe('ATTACHMENT_URL_REQUIRED');
    const issue = (await call('POST', '/issues', { title: 'Evidence', projectId: acme.projects['ENG/API'] })).body
      .issue;
    const onIssue = await call('POST', `/issues/${issue.issueId}/attachments`, {
      links: [{ url: 'https://example.com/\u0000' }],
    });
    expect(onIssue.status).toBe(400);
    expect(onIssue.body.code).toBe('ATTACHMENT_URL_REQUIRED');
  });
});
