import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import type { Ctx } from '../../../src/db/context.js';
import { listAgendaItems } from '../../../src/modules/meetings/agenda-items.service.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

let h: Harness;
let acme: Awaited<ReturnType<Harness['apply']>>;
let meetingId: string;
let infraMeetingId: string;

const api = (path: string) => `/api/external/meetings${path}`;
const get = (path: string, token = TOKENS.admin) => h.call('GET', api(path), { token });
const post = (path: string, body: unknown, token = TOKENS.admin) => h.call('POST', api(path), { token, body });
const patch = (path: string, body: unknown, token = TOKENS.admin) => h.call('PATCH', api(path), { token, body });
const del = (path: string, token = TOKENS.admin) => h.call('DELETE', api(path), { token });

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
  meetingId = (await post('', { title: 'Agenda host', projectId: acme.projects['ENG/API'] })).body.meeting.meetingId;
  infraMeetingId = (await post('', { title: 'Infra host', projectId: acme.projects['OPS/INFRA'] })).body.meeting
    .meetingId;
});
afterAll(() => h.close());

const createItem = (body: object, id = meetingId, token = TOKENS.admin) => post(`/${id}/agenda-items`, body, token);
const itemTitles = async (id = meetingId) =>
  (await get(`/${id}/agenda-items`)).body.agendaItems.map((i: { title: string }) => i.title);

describe('meeting settings: agenda statuses', () => {
  it('has the system statuses in every workspace, created on first read', async () => {
    const reply = await get('/settings');
    expect(reply.status).toBe(200);
    expect(reply.body.settings.agendaStatuses).toEqual([
      {
        statusId: expect.stringMatching(/^ags_/),
        name: 'To discuss',
        system: true,
        position: 0,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      {
        statusId: expect.stringMatching(/^ags_/),
        name: 'Done',
        system: true,
        position: 1,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);
    expect(reply.body.settings.externalOwnerPresets).toEqual([]);
    const again = await get('/settings');
    expect(again.body.settings.agendaStatuses).toEqual(reply.body.settings.agendaStatuses);
    const globex = await get('/settings', TOKENS.globex);
    expect(globex.body.settings.agendaStatuses.map((s: { name: string }) => s.name)).toEqual(['To discuss', 'Done']);
    expect(globex.body.settings.agendaStatuses[0].statusId).not.toBe(reply.body.settings.agendaStatuses[0].statusId);
  });

  it('creates custom statuses last, with unique names', async () => {
    const created = await post('/settings/agenda-statuses', { name: 'Parked' });
    expect(created.status).toBe(201);
    expect(created.body.agendaStatus).toMatchObject({ name: 'Parked', system: false, position: 2 });
    expect((await post('/settings/agenda-statuses', { name: 'parked' })).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'name' },
    });
    expect((await post('/settings/agenda-statuses', { name: 'DONE' })).body.code).toBe('VALIDATION_FAILED');
    for (const body of [{}, { name: '' }, { name: '  ' }, { name: 5 }]) {
      expect((await post('/settings/agenda-statuses', body)).body.code).toBe('NAME_REQUIRED');
    }
  });

  it('renames custom statuses but not system ones', async () => {
    const statuses = (await get('/settings')).body.settings.agendaStatuses;
    const parked = statuses.find((s: { name: string }) => s.name === 'Parked');
    const renamed = await patch(`/settings/agenda-statuses/${parked.statusId}`, { name: 'On hold' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.agendaStatus).toMatchObject({ statusId: parked.statusId, name: 'On hold' });
    const system = await patch(`/settings/agenda-statuses/${statuses[0].statusId}`, { name: 'Open' });
    expect(system.status).toBe(400);
    expect(system.body.code).toBe('UNSUPPORTED_ACTION');
    expect((await patch(`/settings/agenda-statuses/${parked.statusId}`, {})).body.code).toBe('UNSUPPORTED_ACTION');
    expect((await patch(`/settings/agenda-statuses/${parked.statusId}`, { name: '' })).body.code).toBe('NAME_REQUIRED');
    expect((await patch('/settings/agenda-statuses/ags_nope', { name: 'X' })).body.code).toBe(
      'AGENDA_STATUS_NOT_FOUND',
    );
    expect((await patch(`/settings/agenda-statuses/${parked.statusId}`, { name: 'x' }, TOKENS.globex)).body.code).toBe(
      'AGENDA_STATUS_NOT_FOUND',
    );
  });

  it('reorders with the complete list and refuses anything else with 400 INVALID_AGENDA_STATUS_ORDER', async () => {
    const ids = (await get('/settings')).body.settings.agendaStatuses.map((s: { statusId: string }) => s.statusId);
    const reversed = [...ids].reverse();
    const reply = await patch('/settings/agenda-statuses', { orderedStatusIds: reversed });
    expect(reply.status).toBe(200);
    expect(reply.body.agendaStatuses.map((s: { statusId: string }) => s.statusId)).toEqual(reversed);
    expect(reply.body.agendaStatuses.map((s: { position: number }) => s.position)).toEqual([0, 1, 2]);
    expect((await get('/settings')).body.settings.agendaStatuses.map((s: { statusId: string }) => s.statusId)).toEqual(
      reversed,
    );
    for (const body of [
      {},
      { orderedStatusIds: [] },
      { orderedStatusIds: ids.slice(1) },
      { orderedStatusIds: [...ids, ids[0]] },
      { orderedStatusIds: [ids[0], ids[0], ids[1]] },
      { orderedStatusIds: [...ids.slice(1), 'ags_nope'] },
      { orderedStatusIds: 'x' },
    ]) {
      const bad = await patch('/settings/agenda-statuses', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.code).toBe('INVALID_AGENDA_STATUS_ORDER');
    }
    await patch('/settings/agenda-statuses', { orderedStatusIds: ids });
  });

  it('deletes an unused custom status; system and used statuses are protected (409)', async () => {
    const statuses = (await get('/settings')).body.settings.agendaStatuses;
    const system = await del(`/settings/agenda-statuses/${statuses[1].statusId}`);
    expect(system.status).toBe(409);
    expect(system.body.code).toBe('AGENDA_STATUS_DELETE_BLOCKED');
    const used = (await post('/settings/agenda-statuses', { name: 'Used' })).body.agendaStatus;
    const item = (await createItem({ title: 'Uses a status', statusId: used.statusId })).body.agendaItem;
    expect((await del(`/settings/agenda-statuses/${used.statusId}`)).body.code).toBe('AGENDA_STATUS_DELETE_BLOCKED');
    await del(`/${meetingId}/agenda-items/${item.agendaItemId}`);
    expect((await del(`/settings/agenda-statuses/${used.statusId}`)).status).toBe(204);
    expect((await del(`/settings/agenda-statuses/${used.statusId}`)).body.code).toBe('AGENDA_STATUS_NOT_FOUND');
    const positions = (await get('/settings')).body.settings.agendaStatuses.map(
      (s: { position: number }) => s.position,
    );
    expect(positions).toEqual([0, 1, 2]);
  });
});

describe('meeting settings: external owner presets', () => {
  it('creates, updates and deletes presets', async () => {
    const created = await post('/settings/external-users', {
      name: 'Vendor PM',
      externalName: 'Dana Lee',
      externalEmail: 'dana@vendor.test',
    });
    expect(created.status).toBe(201);
    const preset = created.body.externalOwnerPreset;
    expect(preset).toMatchObject({
      presetId: expect.stringMatching(/^pre_/),
      name: 'Vendor PM',
      externalName: 'Dana Lee',
      externalEmail: 'dana@vendor.test',
    });
    expect(
      (await get('/settings')).body.settings.externalOwnerPresets.map((p: { presetId: string }) => p.presetId),
    ).toContain(preset.presetId);
    const updated = await patch(`/settings/external-users/${preset.presetId}`, { externalEmail: 'dana@new.test' });
    expect(updated.body.externalOwnerPreset).toMatchObject({ name: 'Vendor PM', externalEmail: 'dana@new.test' });
    expect((await patch(`/settings/external-users/${preset.presetId}`, {})).body.code).toBe('UNSUPPORTED_ACTION');
    expect((await patch(`/settings/external-users/${preset.presetId}`, { name: ' ' })).body.code).toBe('NAME_REQUIRED');
    expect((await post('/settings/external-users', { externalName: 'No name' })).body.code).toBe('NAME_REQUIRED');
    expect((await post('/settings/external-users', { name: 'Bad', externalEmail: 'not-an-email' })).body.code).toBe(
      'VALIDATION_FAILED',
    );
    expect((await patch('/settings/external-users/pre_nope', { name: 'X' })).body.code).toBe('OWNER_NOT_FOUND');
    expect((await del(`/settings/external-users/${preset.presetId}`, TOKENS.globex)).body.code).toBe('OWNER_NOT_FOUND');
    expect((await del(`/settings/external-users/${preset.presetId}`)).status).toBe(204);
    expect((await del(`/settings/external-users/${preset.presetId}`)).body.code).toBe('OWNER_NOT_FOUND');
  });
});

describe('agenda groups', () => {
  let groupMeeting: string;
  beforeAll(async () => {
    groupMeeting = (await post('', { title: 'Grouped' })).body.meeting.meetingId;
  });

  it('creates groups last and lists them in order', async () => {
    const a = await post(`/${groupMeeting}/agenda-groups`, { name: 'Alpha', description: 'first' });
    expect(a.status).toBe(201);
    expect(a.body.agendaGroup).toMatchObject({
      agendaGroupId: expect.stringMatching(/^agp_/),
      meetingId: groupMeeting,
      name: 'Alpha',
      description: 'first',
      position: 0,
    });
    await post(`/${groupMeeting}/agenda-groups`, { name: 'Beta' });
    const list = await get(`/${groupMeeting}/agenda-groups`);
    expect(list.status).toBe(200);
    expect(list.body.agendaGroups.map((g: { name: string; position: number }) => [g.name, g.position])).toEqual([
      ['Alpha', 0],
      ['Beta', 1],
    ]);
    for (const body of [{}, { name: '' }, { name: ' ' }, { name: 1 }]) {
      expect((await post(`/${groupMeeting}/agenda-groups`, body)).body.code).toBe('NAME_REQUIRED');
    }
    expect((await post('/mtg_nope/agenda-groups', { name: 'X' })).body.code).toBe('MEETING_NOT_FOUND');
  });

  it('renames and describes a group', async () => {
    const [alpha] = (await get(`/${groupMeeting}/agenda-groups`)).body.agendaGroups;
    const reply = await patch(`/${groupMeeting}/agenda-groups/${alpha.agendaGroupId}`, {
      name: 'Alpha 2',
      description: null,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.agendaGroup).toMatchObject({ name: 'Alpha 2', description: null });
    expect((await patch(`/${groupMeeting}/agenda-groups/${alpha.agendaGroupId}`, {})).body.code).toBe(
      'UNSUPPORTED_ACTION',
    );
    expect((await patch(`/${groupMeeting}/agenda-groups/${alpha.agendaGroupId}`, { name: '' })).body.code).toBe(
      'NAME_REQUIRED',
    );
    expect((await patch(`/${groupMeeting}/agenda-groups/agp_nope`, { name: 'X' })).body.code).toBe(
      'AGENDA_GROUP_NOT_FOUND',
    );
    expect((await patch(`/${meetingId}/agenda-groups/${alpha.agendaGroupId}`, { name: 'X' })).body.code).toBe(
      'AGENDA_GROUP_NOT_FOUND',
    );
  });

  it('reorders groups, moving their items as blocks', async () => {
    const [alpha, beta] = (await get(`/${groupMeeting}/agenda-groups`)).body.agendaGroups;
    await createItem({ title: 'a1', agendaGroupId: alpha.agendaGroupId }, groupMeeting);
    await createItem({ title: 'loose', agendaGroupId: null }, groupMeeting);
    await createItem({ title: 'b1', agendaGroupId: beta.agendaGroupId }, groupMeeting);
    await createItem({ title: 'a2', agendaGroupId: alpha.agendaGroupId }, groupMeeting);
    await createItem({ title: 'b2', agendaGroupId: beta.agendaGroupId }, groupMeeting);
    expect(await itemTitles(groupMeeting)).toEqual(['a1', 'a2', 'b1', 'b2', 'loose']);
    const reply = await patch(`/${groupMeeting}/agenda-groups`, {
      agendaGroupIds: [beta.agendaGroupId, alpha.agendaGroupId],
    });
    expect(reply.status).toBe(200);
    expect(
      reply.body.agendaGroups.map((g: { agendaGroupId: string; position: number }) => [g.agendaGroupId, g.position]),
    ).toEqual([
      [beta.agendaGroupId, 0],
      [alpha.agendaGroupId, 1],
    ]);
    expect(await itemTitles(groupMeeting)).toEqual(['b1', 'b2', 'a1', 'a2', 'loose']);
  });

  it('refuses incomplete, repeated, foreign or empty orders with INVALID_AGENDA_GROUP_ORDER', async () => {
    const [first, second] = (await get(`/${groupMeeting}/agenda-groups`)).body.agendaGroups.map(
      (g: { agendaGroupId: string }) => g.agendaGroupId,
    );
    const foreign = (await post(`/${meetingId}/agenda-groups`, { name: 'Foreign' })).body.agendaGroup.agendaGroupId;
    for (const body of [
      {},
      { agendaGroupIds: [] },
      { agendaGroupIds: [first] },
      { agendaGroupIds: [first, first] },
      { agendaGroupIds: [first, second, second] },
      { agendaGroupIds: [first, foreign] },
      { agendaGroupIds: [first, 'agp_nope'] },
    ]) {
      const reply = await patch(`/${groupMeeting}/agenda-groups`, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.code).toBe('INVALID_AGENDA_GROUP_ORDER');
    }
  });

  it('deletes a group; its items stay, ungrouped after the loose ones', async () => {
    const [beta] = (await get(`/${groupMeeting}/agenda-groups`)).body.agendaGroups;
    const reply = await del(`/${groupMeeting}/agenda-groups/${beta.agendaGroupId}`);
    expect(reply.status).toBe(204);
    const items = (await get(`/${groupMeeting}/agenda-items`)).body.agendaItems;
    expect(
      items.map((i: { title: string; agendaGroupId: string | null; position: number }) => [
        i.title,
        i.agendaGroupId === null,
        i.position,
      ]),
    ).toEqual([
      ['a1', false, 0],
      ['a2', false, 1],
      ['loose', true, 0],
      ['b1', true, 1],
      ['b2', true, 2],
    ]);
    expect(
      (await get(`/${groupMeeting}/agenda-groups`)).body.agendaGroups.map((g: { position: number }) => g.position),
    ).toEqual([0]);
    expect((await del(`/${groupMeeting}/agenda-groups/${beta.agendaGroupId}`)).body.code).toBe(
      'AGENDA_GROUP_NOT_FOUND',
    );
  });
});

describe('agenda items', () => {
  it('creates an item with defaults', async () => {
    const statuses = (await get('/settings')).body.settings.agendaStatuses;
    const reply = await createItem({
      title: ' Budget ',
      description: 'Q3',
      notes: 'n',
      tags: ['Bug', 'budget', 'bug'],
      checkInDate: '2026-06-30',
    });
    expect(reply.status).toBe(201);
    expect(reply.body.agendaItem).toMatchObject({
      agendaItemId: expect.stringMatching(/^agi_/),
      meetingId,
      title: 'Budget',
      description: 'Q3',
      notes: 'n',
      agendaGroupId: null,
      statusId: statuses.find((s: { name: string }) => s.name === 'To discuss').statusId,
      tags: ['Bug', 'budget'],
      sourceProjectId: acme.projects['ENG/API'],
      checkInDate: '2026-06-30',
      owners: [],
      links: [],
      attachments: [],
      converted: false,
      convertedIssueId: null,
      taskIssueIds: [],
    });
  });

  it('refuses bad titles, dates, groups, statuses and source projects', async () => {
    for (const body of [{}, { title: '' }, { title: '  ' }, { title: 3 }]) {
      expect((await createItem(body)).body.code).toBe('AGENDA_ITEM_TITLE_REQUIRED');
    }
    for (const checkInDate of ['2026-02-30', '30/06/2026', 20260630, '2026-06-30T10:00:00Z']) {
      expect((await createItem({ title: 'T', checkInDate })).body.code).toBe('INVALID_MEETING_TIME');
    }
    const foreignGroup = (await post(`/${infraMeetingId}/agenda-groups`, { name: 'Infra group' })).body.agendaGroup
      .agendaGroupId;
    expect((await createItem({ title: 'T', agendaGroupId: foreignGroup })).body.code).toBe('AGENDA_GROUP_NOT_FOUND');
    expect((await createItem({ title: 'T', agendaGroupId: 'agp_nope' })).body.code).toBe('AGENDA_GROUP_NOT_FOUND');
    expect((await createItem({ title: 'T', statusId: 'ags_nope' })).body.code).toBe('AGENDA_STATUS_NOT_FOUND');
    expect((await createItem({ title: 'T', statusId: 7 })).body.code).toBe('AGENDA_STATUS_NOT_FOUND');
    expect((await createItem({ title: 'T', sourceProjectId: 'prj_nope' })).body.code).toBe('PROJECT_NOT_FOUND');
    expect((await createItem({ title: 'T', tags: ['x'.repeat(51)] })).body.code).toBe('VALIDATION_FAILED');
    expect((await createItem({ title: 'T', owner: 'x' })).body.details.unknownFields).toEqual(['owner']);
    expect((await createItem({ title: 'T' }, 'mtg_nope')).body.code).toBe('MEETING_NOT_FOUND');
  });

  it('keeps explicit null sourceProjectId agenda-only, and takes none when the meeting has no project', async () => {
    expect(
      (await createItem({ title: 'Agenda only', tags: ['solo'], sourceProjectId: null })).body.agendaItem
        .sourceProjectId,
    ).toBeNull();
    const loose = (await post('', { title: 'No project' })).body.meeting.meetingId;
    expect((await createItem({ title: 'T' }, loose)).body.agendaItem.sourceProjectId).toBeNull();
    const explicit = await createItem({ title: 'T', sourceProjectId: acme.projects['ENG/WEB'] }, loose);
    expect(explicit.body.agendaItem.sourceProjectId).toBe(acme.projects['ENG/WEB']);
  });

  it('reads, updates, moves and deletes an item', async () => {
    const host = (await post('', { title: 'Moves' })).body.meeting.meetingId;
    const group = (await post(`/${host}/agenda-groups`, { name: 'G' })).body.agendaGroup.agendaGroupId;
    const ids: string[] = [];
    for (const title of ['one', 'two', 'three'])
      ids.push((await createItem({ title }, host)).body.agendaItem.agendaItemId);
    const one = await get(`/${host}/agenda-items/${ids[0]}`);
    expect(one.status).toBe(200);
    expect(one.body.agendaItem.title).toBe('one');

    const moved = await patch(`/${host}/agenda-items/${ids[2]}`, { position: 0 });
    expect(moved.status).toBe(200);
    expect(moved.body.agendaItem.position).toBe(0);
    expect(await itemTitles(host)).toEqual(['three', 'one', 'two']);
    await patch(`/${host}/agenda-items/${ids[2]}`, { position: 99 });
    expect(await itemTitles(host)).toEqual(['one', 'two', 'three']);

    const grouped = await patch(`/${host}/agenda-items/${ids[1]}`, {
      agendaGroupId: group,
      title: 'two!',
      notes: 'talked',
      checkInDate: null,
    });
    expect(grouped.body.agendaItem).toMatchObject({
      agendaGroupId: group,
      position: 0,
      title: 'two!',
      notes: 'talked',
      checkInDate: null,
    });
    const items = (await get(`/${host}/agenda-items`)).body.agendaItems;
    expect(items.map((i: { title: string; position: number }) => [i.title, i.position])).toEqual([
      ['two!', 0],
      ['one', 0],
      ['three', 1],
    ]);
    const ungrouped = await patch(`/${host}/agenda-items/${ids[1]}`, { agendaGroupId: null, position: 1 });
    expect(ungrouped.body.agendaItem).toMatchObject({ agendaGroupId: null, position: 1 });
    expect(await itemTitles(host)).toEqual(['one', 'two!', 'three']);

    const done = (await get('/settings')).body.settings.agendaStatuses.find((s: { name: string }) => s.name === 'Done');
    expect((await patch(`/${host}/agenda-items/${ids[0]}`, { statusId: done.statusId })).body.agendaItem.statusId).toBe(
      done.statusId,
    );
    expect((await patch(`/${host}/agenda-items/${ids[0]}`, { title: '' })).body.code).toBe(
      'AGENDA_ITEM_TITLE_REQUIRED',
    );
    expect((await patch(`/${host}/agenda-items/${ids[0]}`, {})).body.code).toBe('UNSUPPORTED_ACTION');
    expect((await patch(`/${host}/agenda-items/${ids[0]}`, { position: -1 })).body.code).toBe('VALIDATION_FAILED');
    expect((await patch(`/${host}/agenda-items/${ids[0]}`, { agendaGroupId: 'agp_nope' })).body.code).toBe(
      'AGENDA_GROUP_NOT_FOUND',
    );
    expect((await patch(`/${host}/agenda-items/${ids[0]}`, { checkInDate: 'soon' })).body.code).toBe(
      'INVALID_MEETING_TIME',
    );

    expect((await del(`/${host}/agenda-items/${ids[0]}`)).status).toBe(204);
    expect((await get(`/${host}/agenda-items/${ids[0]}`)).body.code).toBe('AGENDA_ITEM_NOT_FOUND');
    expect((await del(`/${host}/agenda-items/${ids[0]}`)).body.code).toBe('AGENDA_ITEM_NOT_FOUND');
    const rest = (await get(`/${host}/agenda-items`)).body.agendaItems;
    expect(rest.map((i: { position: number }) => i.position)).toEqual([0, 1]);
  });

  it('checks MEETING_NOT_FOUND before AGENDA_ITEM_NOT_FOUND, and an item of another meeting is not found', async () => {
    const item = (await createItem({ title: 'Scoped' })).body.agendaItem.agendaItemId;
    expect((await get(`/mtg_nope/agenda-items/${item}`)).body.code).toBe('MEETING_NOT_FOUND');
    expect((await get(`/${infraMeetingId}/agenda-items/${item}`)).body.code).toBe('AGENDA_ITEM_NOT_FOUND');
    expect((await get(`/${meetingId}/agenda-items/agi_nope`)).body.code).toBe('AGENDA_ITEM_NOT_FOUND');
  });

  it('hides items of invisible meetings from other tokens and workspaces', async () => {
    const item = (await createItem({ title: 'Secret' }, infraMeetingId)).body.agendaItem.agendaItemId;
    for (const token of [TOKENS.bot, TOKENS.globex]) {
      expect((await get(`/${infraMeetingId}/agenda-items`, token)).body.code).toBe('MEETING_NOT_FOUND');
      expect((await get(`/${infraMeetingId}/agenda-items/${item}`, token)).body.code).toBe('MEETING_NOT_FOUND');
      expect((await createItem({ title: 'x' }, infraMeetingId, token)).body.code).toBe('MEETING_NOT_FOUND');
      expect((await get(`/${infraMeetingId}/agenda-groups`, token)).body.code).toBe('MEETING_NOT_FOUND');
    }
    expect((await get(`/${meetingId}/agenda-items`, TOKENS.bot)).status).toBe(200);
    expect((await get(`/${meetingId}/agenda-items`, TOKENS.globex)).body.code).toBe('MEETING_NOT_FOUND');
  });

  it('replaces tags on update and counts them in GET /tags for callers who see the meeting', async () => {
    const item = (await createItem({ title: 'Tagged', tags: ['roadmap', 'bug'] })).body.agendaItem.agendaItemId;
    const updated = await patch(`/${meetingId}/agenda-items/${item}`, { tags: ['roadmap', 'later'] });
    expect(updated.body.agendaItem.tags).toEqual(['roadmap', 'later']);
    await createItem({ title: 'Hidden tag', tags: ['roadmap'] }, infraMeetingId);
    const tagsOf = async (token: string) =>
      Object.fromEntries(
        (await h.call('GET', '/api/external/tags', { token })).body.tags.map(
          (t: { name: string; agendaItemCount: number; projectIds: string[] }) => [t.name.toLowerCase(), t],
        ),
      );
    const admin = await tagsOf(TOKENS.admin);
    expect(admin.roadmap.agendaItemCount).toBe(2);
    expect(admin.roadmap.projectIds).toEqual([acme.projects['ENG/API'], acme.projects['OPS/INFRA']].sort());
    expect(admin.later.agendaItemCount).toBe(1);
    const open = (await post('', { title: 'Open meeting' })).body.meeting.meetingId;
    await createItem({ title: 'Infra-sourced', tags: ['roadmap'], sourceProjectId: acme.projects['OPS/INFRA'] }, open);
    const bot = await tagsOf(TOKENS.bot);
    expect(bot.roadmap.agendaItemCount).toBe(1);
    expect(bot.roadmap.projectIds).toEqual([acme.projects['ENG/API']]);
    expect((await tagsOf(TOKENS.admin)).roadmap.agendaItemCount).toBe(3);
    expect((await tagsOf(TOKENS.globex)).roadmap).toBeUndefined();
  });

  it('suggests managed, issue and project agenda tags', async () => {
    await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body: { title: 'Tagged issue', projectId: acme.projects['ENG/API'], tags: ['bug', 'perf'] },
    });
    const reply = await get(`/${meetingId}/agenda-tags`);
    expect(reply.status).toBe(200);
    const byName = Object.fromEntries(reply.body.tags.map((t: { name: string }) => [t.name.toLowerCase(), t]));
    expect(byName.bug.sources).toEqual(['managed', 'issue', 'agenda']);
    expect(byName.perf).toEqual({ name: 'perf', sources: ['issue'], usageCount: 1 });
    expect(byName.roadmap.sources).toEqual(['agenda']);
    expect(byName.roadmap.usageCount).toBe(1);
    expect(byName.solo.sources).toEqual(['agenda']);
    expect((await get(`/${meetingId}/agenda-tags`, TOKENS.globex)).body.code).toBe('MEETING_NOT_FOUND');
  });

  it('reads an agenda of 50 items with owners and links in a constant number of queries', async () => {
    const host = (await post('', { title: 'Big agenda', projectId: acme.projects['ENG/API'] })).body.meeting.meetingId;
    const issue = (
      await h.call('POST', '/api/external/issues', {
        token: TOKENS.admin,
        body: { title: 'Linked', projectId: acme.projects['ENG/API'] },
      })
    ).body.issue;
    const addItems = async (from: number, to: number) => {
      for (let n = from; n < to; n++) {
        const id = (await createItem({ title: `item ${n}` }, host)).body.agendaItem.agendaItemId;
        await post(`/${host}/agenda-items/${id}/owners`, { externalName: `Guest ${n}` });
        await post(`/${host}/agenda-items/${id}/links`, { targetType: 'issue', targetId: issue.issueId });
        await post(`/${host}/agenda-items/${id}/attachments`, { url: `https://example.test/${n}` });
      }
    };
    let queries = 0;
    const counter: KyselyPlugin = {
      transformQuery: (args) => {
        queries++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const ctx: Ctx = {
      db: h.database.db.withPlugin(counter),
      store: h.database,
      dialect: h.database.dialect,
      config: loadConfig({}),
      workspace: { id: acme.workspaceId, slug: 'acme', name: 'Acme' },
      principal: { kind: 'api_token', id: 'api-token:bot', tokenId: 'tok', tokenName: 'bot' },
      access: { all: true, tokenId: null, granted: new Set() },
      accessLevel: 'write',
      nowMs: Date.now(),
      now: new Date().toISOString(),
    };
    await addItems(0, 2);
    queries = 0;
    expect(await listAgendaItems(ctx, host)).toHaveLength(2);
    const few = queries;
    await addItems(2, 50);
    queries = 0;
    const agenda = await listAgendaItems(ctx, host);
    expect(agenda).toHaveLength(50);
    expect(agenda[49]).toMatchObject({
      owners: [{ externalName: 'Guest 49' }],
      links: [{ targetKey: issue.issueKey }],
      attachments: [{ url: 'https://example.test/49' }],
    });
    expect(queries).toBe(few);
  });
});
