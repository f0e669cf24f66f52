import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../../src/api/catalog.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

let h: Harness;
let acme: Awaited<ReturnType<Harness['apply']>>;

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
});
afterAll(() => h.close());

const create = (body: object, token = TOKENS.admin) => h.call('POST', '/api/external/meetings', { token, body });
const patch = (id: string, body: object, token = TOKENS.admin) =>
  h.call('PATCH', `/api/external/meetings/${id}`, { token, body });
const list = (query = '', token = TOKENS.admin) => h.call('GET', `/api/external/meetings${query}`, { token });

describe('operation catalog', () => {
  it('declares every meetings operation once, under /api/external/meetings (also the MCP tool names)', () => {
    const ids = [
      'list_meetings',
      'create_meeting',
      'get_meeting',
      'update_meeting',
      'delete_meeting',
      'get_meeting_settings',
      'create_external_owner_preset',
      'update_external_owner_preset',
      'delete_external_owner_preset',
      'create_agenda_status',
      'reorder_agenda_statuses',
      'update_agenda_status',
      'delete_agenda_status',
      'link_meeting',
      'unlink_meeting',
      'list_agenda_groups',
      'create_agenda_group',
      'reorder_agenda_groups',
      'update_agenda_group',
      'delete_agenda_group',
      'list_agenda_tags',
      'list_agenda_items',
      'create_agenda_item',
      'get_agenda_item',
      'update_agenda_item',
      'delete_agenda_item',
      'list_agenda_item_attachments',
      'add_agenda_item_attachments',
      'list_agenda_item_owners',
      'add_agenda_item_owner',
      'remove_agenda_item_owner',
      'link_agenda_item',
      'unlink_agenda_item',
      'publish_agenda_item_notes',
      'convert_agenda_item',
      'create_agenda_item_tasks',
    ];
    const meetingOps = catalog.filter((op) => op.path.startsWith('/api/external/meetings'));
    expect(meetingOps.map((op) => op.id).sort()).toEqual([...ids].sort());
  });
});

describe('POST /meetings', () => {
  it('creates a meeting with defaults and answers 201 { meeting }', async () => {
    const reply = await create({ title: '  Weekly sync  ' });
    expect(reply.status).toBe(201);
    const m = reply.body.meeting;
    expect(m.meetingId).toMatch(/^mtg_/);
    expect(m).toMatchObject({
      title: 'Weekly sync',
      description: null,
      type: 'meeting',
      recurrenceType: 'none',
      startsAt: null,
      endsAt: null,
      teamId: null,
      teamKey: null,
      projectId: null,
      projectKey: null,
      archived: false,
      links: [],
    });
    expect(m.createdAt).toBe(m.updatedAt);
  });

  it("normalises startsAt/endsAt to UTC and takes the project's team", async () => {
    const reply = await create({
      title: 'Planning',
      projectId: acme.projects['ENG/API'],
      type: 'planning',
      recurrenceType: 'weekly',
      startsAt: '2026-03-02T10:00:00+02:00',
      endsAt: '2026-03-02T11:00:00+02:00',
      description: 'Sprint planning',
    });
    expect(reply.status).toBe(201);
    expect(reply.body.meeting).toMatchObject({
      startsAt: '2026-03-02T08:00:00.000Z',
      endsAt: '2026-03-02T09:00:00.000Z',
      type: 'planning',
      recurrenceType: 'weekly',
      projectId: acme.projects['ENG/API'],
      projectKey: 'API',
      teamId: acme.teams.ENG,
      teamKey: 'ENG',
    });
  });

  it('resolves a project by key with teamKey, and a team alone', async () => {
    const byKey = await create({ title: 'Ops review', projectKey: 'INFRA', teamKey: 'OPS' });
    expect(byKey.body.meeting).toMatchObject({ projectId: acme.projects['OPS/INFRA'], teamKey: 'OPS' });
    const teamOnly = await create({ title: 'Team sync', teamKey: 'ops' });
    expect(teamOnly.body.meeting).toMatchObject({ teamId: acme.teams.OPS, projectId: null });
  });

  it('refuses a missing, empty, whitespace-only or non-string title with MEETING_TITLE_REQUIRED', async () => {
    for (const body of [{}, { title: '' }, { title: '   ' }, { title: 42 }, { title: null }]) {
      const reply = await create(body);
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('MEETING_TITLE_REQUIRED');
      expect(reply.body.details.field).toBe('title');
    }
  });

  it('refuses malformed, offset-less, non-string and inverted times with INVALID_MEETING_TIME', async () => {
    const bad = [
      { startsAt: '2026-03-02T10:00:00' },
      { startsAt: '2026-03-02' },
      { startsAt: 'tomorrow' },
      { startsAt: 1700000000 },
      { endsAt: '2026-02-30T10:00:00Z' },
      { startsAt: '2026-03-02T10:00:00Z', endsAt: '2026-03-02T10:00:00Z' },
      { startsAt: '2026-03-02T10:00:00Z', endsAt: '2026-03-02T09:00:00Z' },
    ];
    for (const times of bad) {
      const reply = await create({ title: 'T', ...times });
      expect(reply.status, JSON.stringify(times)).toBe(400);
      expect(reply.body.code).toBe('INVALID_MEETING_TIME');
    }
  });

  it('needs startsAt for a recurring meeting (RECURRENCE_START_REQUIRED)', async () => {
    const reply = await create({ title: 'Daily', recurrenceType: 'daily' });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('RECURRENCE_START_REQUIRED');
  });

  it('refuses an unknown recurrenceType, a bad type, unknown fields and a non-boolean archived', async () => {
    expect((await create({ title: 'T', recurrenceType: 'hourly' })).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'recurrenceType' },
    });
    expect((await create({ title: 'T', type: '' })).body.code).toBe('VALIDATION_FAILED');
    expect((await create({ title: 'T', type: 'x'.repeat(51) })).body.code).toBe('VALIDATION_FAILED');
    expect((await create({ title: 'T', colour: 'red' })).body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['colour'] },
    });
    expect((await create({ title: 'T', archived: 'yes' })).body.code).toBe('INVALID_ARCHIVE_STATE');
  });

  it('answers the project and team codes for bad references', async () => {
    expect((await create({ title: 'T', projectId: 'prj_nope' })).body.code).toBe('PROJECT_NOT_FOUND');
    expect((await create({ title: 'T', teamKey: 'NOPE' })).body.code).toBe('TEAM_NOT_FOUND');
    expect((await create({ title: 'T', projectId: acme.projects['OPS/INFRA'], teamKey: 'ENG' })).body.code).toBe(
      'PROJECT_TEAM_MISMATCH',
    );
    expect((await create({ title: 'T', projectId: acme.projects['OPS/INFRA'] }, TOKENS.bot)).body.code).toBe(
      'PROJECT_NOT_FOUND',
    );
  });

  it('replays a POST with the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'crm:meeting:1' };
    const first = await h.call('POST', '/api/external/meetings', {
      token: TOKENS.admin,
      body: { title: 'Once' },
      headers,
    });
    const again = await h.call('POST', '/api/external/meetings', {
      token: TOKENS.admin,
      body: { title: 'Once' },
      headers,
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.meeting.meetingId).toBe(first.body.meeting.meetingId);
  });
});

describe('GET /meetings/{meetingId} and visibility', () => {
  let infraMeetingId: string;
  let openMeetingId: string;

  beforeAll(async () => {
    infraMeetingId = (await create({ title: 'Infra only', projectId: acme.projects['OPS/INFRA'] })).body.meeting
      .meetingId;
    openMeetingId = (await create({ title: 'Everyone' })).body.meeting.meetingId;
  });

  it('reads one meeting', async () => {
    const reply = await h.call('GET', `/api/external/meetings/${openMeetingId}`, { token: TOKENS.bot });
    expect(reply.status).toBe(200);
    expect(reply.body.meeting.title).toBe('Everyone');
  });

  it('hides a meeting of a project the token cannot see (MEETING_NOT_FOUND)', async () => {
    for (const token of [TOKENS.bot, TOKENS.idle]) {
      const reply = await h.call('GET', `/api/external/meetings/${infraMeetingId}`, { token });
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe('MEETING_NOT_FOUND');
      expect((await patch(infraMeetingId, { title: 'X' }, token)).body.code).toBe('MEETING_NOT_FOUND');
      expect((await h.call('DELETE', `/api/external/meetings/${infraMeetingId}`, { token })).body.code).toBe(
        'MEETING_NOT_FOUND',
      );
    }
    expect((await h.call('GET', `/api/external/meetings/${infraMeetingId}`, { token: TOKENS.alice })).status).toBe(200);
  });

  it('never shows a meeting to another workspace', async () => {
    const reply = await h.call('GET', `/api/external/meetings/${openMeetingId}`, { token: TOKENS.globex });
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('MEETING_NOT_FOUND');
    const globexList = await list('', TOKENS.globex);
    expect(globexList.body.meetings).toEqual([]);
  });

  it('answers MEETING_NOT_FOUND for an unknown id', async () => {
    expect((await h.call('GET', '/api/external/meetings/mtg_nope', { token: TOKENS.admin })).body.code).toBe(
      'MEETING_NOT_FOUND',
    );
  });

  it('lists only visible meetings', async () => {
    const bot = await list('?limit=200', TOKENS.bot);
    const ids = bot.body.meetings.map((m: { meetingId: string }) => m.meetingId);
    expect(ids).toContain(openMeetingId);
    expect(ids).not.toContain(infraMeetingId);
  });
});

describe('PATCH /meetings/{meetingId}', () => {
  let id: string;
  beforeAll(async () => {
    id = (await create({ title: 'Retro', startsAt: '2026-04-01T09:00:00Z', endsAt: '2026-04-01T10:00:00Z' })).body
      .meeting.meetingId;
  });

  it('updates fields and validates the result against stored values', async () => {
    const reply = await patch(id, { title: 'Retrospective', description: 'Looking back', type: 'retro' });
    expect(reply.status).toBe(200);
    expect(reply.body.meeting).toMatchObject({ title: 'Retrospective', description: 'Looking back', type: 'retro' });
    const inverted = await patch(id, { endsAt: '2026-04-01T08:00:00Z' });
    expect(inverted.body.code).toBe('INVALID_MEETING_TIME');
    const recurring = await patch(id, { recurrenceType: 'monthly' });
    expect(recurring.body.meeting.recurrenceType).toBe('monthly');
    const cleared = await patch(id, { startsAt: null });
    expect(cleared.body.code).toBe('RECURRENCE_START_REQUIRED');
  });

  it('refuses an empty title, an empty update and a bad archived value', async () => {
    expect((await patch(id, { title: ' ' })).body.code).toBe('MEETING_TITLE_REQUIRED');
    const empty = await patch(id, {});
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('UNSUPPORTED_ACTION');
    expect((await patch(id, { archived: 'true' })).body.code).toBe('INVALID_ARCHIVE_STATE');
    expect((await patch(id, { archived: null })).body.code).toBe('INVALID_ARCHIVE_STATE');
  });

  it('moves to a project (taking its team) and clears it again', async () => {
    const moved = await patch(id, { projectKey: 'WEB', teamKey: 'ENG' });
    expect(moved.body.meeting).toMatchObject({ projectId: acme.projects['ENG/WEB'], teamKey: 'ENG' });
    expect((await patch(id, { teamKey: 'OPS' })).body.code).toBe('PROJECT_TEAM_MISMATCH');
    const cleared = await patch(id, { projectId: null });
    expect(cleared.body.meeting).toMatchObject({ projectId: null, projectKey: null, teamKey: 'ENG' });
    const otherTeam = await patch(id, { teamKey: 'OPS' });
    expect(otherTeam.body.meeting.teamKey).toBe('OPS');
  });

  it('archives and restores', async () => {
    expect((await patch(id, { archived: true })).body.meeting.archived).toBe(true);
    expect((await patch(id, { archived: false })).body.meeting.archived).toBe(false);
  });
});

describe('GET /meetings filters and pagination', () => {
  beforeAll(async () => {
    await create({ title: 'Filter alpha', type: 'standup', teamKey: 'OPS', description: 'Needle in a haystack' });
    await create({ title: 'Filter beta', type: 'standup', projectId: acme.projects['ENG/WEB'] });
    const archived = await create({ title: 'Filter gamma', type: 'standup' });
    await patch(archived.body.meeting.meetingId, { archived: true });
    await create({
      title: 'Filter delta',
      type: 'review',
      recurrenceType: 'biweekly',
      startsAt: '2026-05-01T09:00:00Z',
    });
  });

  const titles = (reply: { body: { meetings: Array<{ title: string }> } }) => reply.body.meetings.map((m) => m.title);

  it('filters by type (exact), team, project, recurrenceType and q', async () => {
    expect(titles(await list('?type=standup'))).toEqual(['Filter beta', 'Filter alpha']);
    expect(titles(await list('?type=stand'))).toEqual([]);
    expect(titles(await list('?type=standup&teamKey=OPS'))).toEqual(['Filter alpha']);
    expect(titles(await list(`?type=standup&teamId=${acme.teams.ENG}`))).toEqual(['Filter beta']);
    expect(titles(await list(`?projectId=${acme.projects['ENG/WEB']}&type=standup`))).toEqual(['Filter beta']);
    expect(titles(await list('?projectKey=WEB&teamKey=ENG&type=standup'))).toEqual(['Filter beta']);
    expect(titles(await list('?recurrenceType=biweekly'))).toEqual(['Filter delta']);
    expect(titles(await list('?q=NEEDLE'))).toEqual(['Filter alpha']);
    expect(titles(await list('?q=filter%20B'))).toEqual(['Filter beta']);
  });

  it('lists archived meetings only with archived=true or view=archived', async () => {
    expect(titles(await list('?type=standup&archived=true'))).toEqual(['Filter gamma']);
    expect(titles(await list('?type=standup&view=archived'))).toEqual(['Filter gamma']);
  });

  it('answers the filter codes for unknown references', async () => {
    expect((await list('?teamKey=NOPE')).body.code).toBe('TEAM_NOT_FOUND');
    expect((await list('?projectId=prj_nope')).body.code).toBe('PROJECT_NOT_FOUND');
    expect((await list(`?projectId=${acme.projects['OPS/INFRA']}`, TOKENS.bot)).body.code).toBe('PROJECT_NOT_FOUND');
    expect((await list('?recurrenceType=hourly')).body.code).toBe('VALIDATION_FAILED');
  });

  it('pages newest first with cursors bound to the filters', async () => {
    const all = await list('?limit=200');
    const first = await list('?limit=2');
    expect(first.body.pageInfo).toMatchObject({ hasMore: true, limit: 2 });
    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.body.pageInfo.nextCursor)}`);
    expect([...titles(first), ...titles(second)]).toEqual(titles(all).slice(0, 4));
    const reused = await list(`?type=standup&cursor=${encodeURIComponent(first.body.pageInfo.nextCursor)}`);
    expect(reused.body.code).toBe('INVALID_CURSOR');
  });
});

describe('DELETE /meetings/{meetingId}', () => {
  it('deletes the meeting and its agenda, answering 204', async () => {
    const id = (await create({ title: 'Doomed' })).body.meeting.meetingId;
    const group = await h.call('POST', `/api/external/meetings/${id}/agenda-groups`, {
      token: TOKENS.admin,
      body: { name: 'G' },
    });
    const item = await h.call('POST', `/api/external/meetings/${id}/agenda-items`, {
      token: TOKENS.admin,
      body: { title: 'I', agendaGroupId: group.body.agendaGroup.agendaGroupId, tags: ['doomed-tag'] },
    });
    const itemId = item.body.agendaItem.agendaItemId;
    await h.call('POST', `/api/external/meetings/${id}/agenda-items/${itemId}/owners`, {
      token: TOKENS.admin,
      body: { externalName: 'Zed' },
    });
    await h.call('POST', `/api/external/meetings/${id}/agenda-items/${itemId}/attachments`, {
      token: TOKENS.admin,
      body: { url: 'https://example.test/a' },
    });
    const reply = await h.call('DELETE', `/api/external/meetings/${id}`, { token: TOKENS.admin });
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expect((await h.call('GET', `/api/external/meetings/${id}`, { token: TOKENS.admin })).body.code).toBe(
      'MEETING_NOT_FOUND',
    );
    expect(
      (await h.call('GET', `/api/external/meetings/${id}/agenda-items/${itemId}`, { token: TOKENS.admin })).body.code,
    ).toBe('MEETING_NOT_FOUND');
    const db = h.database.db;
    expect(await db.selectFrom('agenda_items').select('id').where('meeting_id', '=', id).execute()).toEqual([]);
    expect(await db.selectFrom('agenda_groups').select('id').where('meeting_id', '=', id).execute()).toEqual([]);
    const owners = await db.selectFrom('agenda_owners').select('id').where('agenda_item_id', '=', itemId).execute();
    const attachments = await db.selectFrom('attachments').select('id').where('agenda_item_id', '=', itemId).execute();
    const tagUsages = await db.selectFrom('tag_usages').select('entity_id').where('entity_id', '=', itemId).execute();
    expect([...owners, ...attachments, ...tagUsages]).toEqual([]);
  });
});
