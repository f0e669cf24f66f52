import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { patFor, startHarness, type Harness, type Reply } from '../../support/harness.js';

let h: Harness;
let acme: Awaited<ReturnType<Harness['apply']>>;
let globex: Awaited<ReturnType<Harness['apply']>>;

/** A workspace with no team at all, so a create has nowhere to put a project. */
const TEAMLESS = {
  workspace: { slug: 'teamless', name: 'Teamless' },
  tokens: [{ name: 'solo', secret: patFor('solo'), projects: '*' }],
};

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX, TEAMLESS]);
  acme = await h.apply(ACME);
  globex = await h.apply(GLOBEX);
});
afterAll(() => h.close());

const PROJECT_FIELDS = [
  'createdAt',
  'description',
  'endDate',
  'issueContainersEnabled',
  'name',
  'ownerId',
  'projectId',
  'projectKey',
  'startDate',
  'subtasksEnabled',
  'teamId',
  'teamKey',
  'updatedAt',
  'version',
];

const create = (body: unknown, token = TOKENS.admin) => h.call('POST', '/api/external/projects', { token, body });
const patch = (projectId: string, body: unknown, token = TOKENS.admin) =>
  h.call('PATCH', `/api/external/projects/${projectId}`, { token, body });

function expectError(reply: Reply, status: number, code: string, details?: Record<string, unknown>) {
  expect(reply.status).toBe(status);
  expect(reply.body.code).toBe(code);
  if (details) expect(reply.body.details).toMatchObject(details);
}

/** An issue row written straight to the table, as the issues area would, to block a team move. */
async function insertIssue(projectId: string, teamId: string): Promise<void> {
  const status = await h.database.db
    .selectFrom('statuses')
    .select('id')
    .where('team_id', '=', teamId)
    .executeTakeFirstOrThrow();
  const now = new Date().toISOString();
  await h.database.db
    .insertInto('issues')
    .values({
      id: `iss_blocker_${projectId}`,
      workspace_id: acme.workspaceId,
      key_team_id: teamId,
      number: 900,
      issue_key: `BLOCK-${projectId}`,
      team_id: teamId,
      project_id: projectId,
      status_id: status.id,
      assignee_id: null,
      reporter_id: null,
      created_by: 'api-token:admin',
      title: 'Blocks the move',
      description: null,
      priority: 'none',
      start_date: null,
      due_date: null,
      duration_days: null,
      tags: '[]',
      archived: 0,
      archived_at: null,
      container_id: null,
      milestone_id: null,
      subtasks_enabled: 1,
      source_type: null,
      source_id: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

describe('POST /api/external/projects', () => {
  it('creates a project with every documented field and answers 201 { project }', async () => {
    const reply = await create({
      name: 'Mobile App',
      description: 'iOS and Android',
      teamKey: 'OPS',
      projectKey: 'MOB',
      ownerId: acme.users.bob,
      startDate: '2026-03-01',
      endDate: '2026-06-30',
      subtasksEnabled: false,
      issueContainersEnabled: false,
    });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.body)).toEqual(['project']);
    const { project } = reply.body;
    expect(Object.keys(project).sort()).toEqual(PROJECT_FIELDS);
    expect(project).toMatchObject({
      projectKey: 'MOB',
      name: 'Mobile App',
      description: 'iOS and Android',
      teamId: acme.teams.OPS,
      teamKey: 'OPS',
      ownerId: acme.users.bob,
      startDate: '2026-03-01',
      endDate: '2026-06-30',
      subtasksEnabled: false,
      issueContainersEnabled: false,
    });
    expect(project.projectId).toMatch(/^prj_/);
    expect(project.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(project.updatedAt).toBe(project.createdAt);

    const read = await h.call('GET', `/api/external/projects/${project.projectId}`, { token: TOKENS.admin });
    expect(read.body).toEqual(reply.body);
  });

  it('fills defaults: the default team, no dates, sub-tasks and containers on, description null', async () => {
    const { body } = await create({ name: 'Defaults' });
    expect(body.project).toMatchObject({
      teamId: acme.teams.ENG,
      teamKey: 'ENG',
      description: null,
      startDate: null,
      endDate: null,
      ownerId: null,
      subtasksEnabled: true,
      issueContainersEnabled: true,
    });
  });

  it('records a project.created event with the presented project', async () => {
    const { body } = await create({ name: 'Evented' });
    const event = await h.database.db
      .selectFrom('outbox_events')
      .selectAll()
      .where('project_id', '=', body.project.projectId)
      .executeTakeFirstOrThrow();
    expect(event.type).toBe('project.created');
    expect(JSON.parse(event.payload).data).toEqual({ project: body.project });
  });

  describe('NAME_REQUIRED', () => {
    for (const [label, body] of Object.entries({
      missing: {},
      empty: { name: '' },
      whitespace: { name: '   ' },
      number: { name: 42 },
      null: { name: null },
    })) {
      it(`answers a ${label} name`, async () =>
        expectError(await create(body), 400, 'NAME_REQUIRED', { field: 'name' }));
    }

    it('trims the name it stores', async () => {
      expect((await create({ name: '  Trimmed  ' })).body.project.name).toBe('Trimmed');
    });
  });

  it('answers TEAM_NOT_FOUND for an unknown or foreign teamId or teamKey', async () => {
    expectError(await create({ name: 'X', teamId: 'team_unknown' }), 404, 'TEAM_NOT_FOUND', { teamId: 'team_unknown' });
    expectError(await create({ name: 'X', teamKey: 'NOPE' }), 404, 'TEAM_NOT_FOUND', { teamKey: 'NOPE' });
    expectError(await create({ name: 'X', teamId: globex.teams.ENG }), 404, 'TEAM_NOT_FOUND');
    expectError(await create({ name: 'X', teamId: acme.teams.ENG, teamKey: 'OPS' }), 404, 'TEAM_NOT_FOUND');
  });

  it('answers NO_TEAM_AVAILABLE in a workspace without teams', async () => {
    expectError(await create({ name: 'Homeless' }, patFor('solo')), 400, 'NO_TEAM_AVAILABLE');
  });

  it('answers PROJECT_KEY_CONFLICT (409) for a key already used in the team, case-insensitively', async () => {
    expectError(await create({ name: 'Dup', teamKey: 'ENG', projectKey: 'API' }), 409, 'PROJECT_KEY_CONFLICT', {
      projectKey: 'API',
    });
    expectError(await create({ name: 'Dup', teamKey: 'ENG', projectKey: 'web' }), 409, 'PROJECT_KEY_CONFLICT', {
      projectKey: 'WEB',
    });
    const otherTeam = await create({ name: 'Same key, other team', teamKey: 'OPS', projectKey: 'API' });
    expect(otherTeam.status).toBe(201);
  });

  it('upper-cases projectKey and refuses malformed keys with VALIDATION_FAILED', async () => {
    expect((await create({ name: 'Lower', projectKey: 'low2' })).body.project.projectKey).toBe('LOW2');
    for (const projectKey of ['1AB', 'A', 'ABCDEFGHIJK', 'AB-C', '', 7]) {
      expectError(await create({ name: 'Bad key', projectKey }), 400, 'VALIDATION_FAILED', { field: 'projectKey' });
    }
    expect((await create({ name: 'Ten', projectKey: 'ABCDEFGHIJ' })).body.project.projectKey).toBe('ABCDEFGHIJ');
  });

  it('derives a unique key from the name when none is given', async () => {
    const first = await create({ name: 'Public Relations', teamKey: 'OPS' });
    const second = await create({ name: 'Public Relations', teamKey: 'OPS' });
    expect(first.body.project.projectKey).toMatch(/^[A-Z][A-Z0-9]{1,9}$/);
    expect(second.body.project.projectKey).toMatch(/^[A-Z][A-Z0-9]{1,9}$/);
    expect(second.body.project.projectKey).not.toBe(first.body.project.projectKey);
    expect(second.body.project.projectKey).toMatch(/\d$/);
    expect(second.body.project.projectKey.startsWith(first.body.project.projectKey)).toBe(true);

    const website = await create({ name: 'Website', teamKey: 'ENG' });
    expect(website.body.project.projectKey).not.toBe('WEB');
    expect(website.body.project.projectKey).toMatch(/^[A-Z][A-Z0-9]{1,9}$/);
  });

  it('derives a valid key from names without letters to start with', async () => {
    for (const name of ['2026 Roadmap', '!!!', 'Ω']) {
      const reply = await create({ name });
      expect(reply.status).toBe(201);
      expect(reply.body.project.projectKey).toMatch(/^[A-Z][A-Z0-9]{1,9}$/);
    }
  });

  it('keeps derived keys within 10 characters for long names repeated many times', async () => {
    const name = 'Alpha Beta Gamma Delta Epsilon Zeta Eta Theta';
    const keys = [];
    for (let i = 0; i < 12; i++) keys.push((await create({ name, teamKey: 'OPS' })).body.project.projectKey);
    for (const key of keys) expect(key).toMatch(/^[A-Z][A-Z0-9]{1,9}$/);
    expect(new Set(keys).size).toBe(12);
  });

  it('answers TEAM_NOT_FOUND for an empty teamKey or teamId instead of using the default team', async () => {
    expectError(await create({ name: 'Nowhere', teamKey: '' }), 404, 'TEAM_NOT_FOUND');
    expectError(await create({ name: 'Nowhere', teamId: '' }), 404, 'TEAM_NOT_FOUND');
    const project = (await create({ name: 'Somewhere' })).body.project;
    expectError(await patch(project.projectId, { teamKey: '' }), 404, 'TEAM_NOT_FOUND');
  });

  it('gives concurrent creates of one name distinct derived keys', async () => {
    const replies = await Promise.all(Array.from({ length: 8 }, () => create({ name: 'Race Track', teamKey: 'OPS' })));
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(201));
    const keys = replies.map((r) => r.body.project.projectKey);
    expect(new Set(keys).size).toBe(8);
  });

  it('answers PROJECT_KEY_CONFLICT to all but one of concurrent renames to one key', async () => {
    const ids = [];
    for (let i = 0; i < 6; i++)
      ids.push((await create({ name: `Renamed ${i}`, teamKey: 'OPS' })).body.project.projectId);
    const replies = await Promise.all(ids.map((id) => patch(id, { projectKey: 'SAMEKEY' })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    for (const reply of replies.filter((r) => r.status !== 200))
      expectError(reply, 409, 'PROJECT_KEY_CONFLICT', { projectKey: 'SAMEKEY' });
  });

  it('answers PROJECT_KEY_CONFLICT to all but one of concurrent creates with one explicit key', async () => {
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create({ name: `Contender ${i}`, teamKey: 'OPS', projectKey: 'RACE' })),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    for (const reply of replies.filter((r) => r.status !== 201))
      expectError(reply, 409, 'PROJECT_KEY_CONFLICT', { projectKey: 'RACE' });
  });

  describe('INVALID_PROJECT_WINDOW', () => {
    const windows: Record<string, Record<string, unknown>> = {
      'a malformed date': { startDate: '2026-1-5' },
      'an impossible date': { endDate: '2026-02-30' },
      'a datetime': { startDate: '2026-01-05T00:00:00Z' },
      'a number': { startDate: 20260105 },
      'an end before the start': { startDate: '2026-05-01', endDate: '2026-04-30' },
    };
    for (const [label, dates] of Object.entries(windows)) {
      it(`answers ${label}`, async () =>
        expectError(await create({ name: 'Window', ...dates }), 400, 'INVALID_PROJECT_WINDOW'));
    }

    it('accepts a one-day window', async () => {
      expect((await create({ name: 'One day', startDate: '2026-05-01', endDate: '2026-05-01' })).status).toBe(201);
    });
  });

  describe('ownerId', () => {
    it('defaults to the caller for a human OAuth caller and to null for a token', async () => {
      expect((await create({ name: 'Alice owns' }, TOKENS.alice)).body.project.ownerId).toBe(acme.users.alice);
      expect((await create({ name: 'Nobody owns' }, TOKENS.admin)).body.project.ownerId).toBeNull();
      expect((await create({ name: 'Explicit null', ownerId: null }, TOKENS.alice)).body.project.ownerId).toBeNull();
    });

    it('accepts an automation identity as owner', async () => {
      expect((await create({ name: 'Bot owns', ownerId: 'api-token:bot' })).body.project.ownerId).toBe('api-token:bot');
    });

    for (const [label, ownerId] of Object.entries({
      unknown: 'usr_unknown',
      'a number': 42,
      'an inactive token': 'api-token:off',
      'an unknown token': 'api-token:ghost',
      empty: '',
    })) {
      it(`answers OWNER_NOT_IN_WORKSPACE for ${label}`, async () => {
        expectError(await create({ name: 'Owned', ownerId }), 400, 'OWNER_NOT_IN_WORKSPACE', { field: 'ownerId' });
      });
    }

    it('answers OWNER_NOT_IN_WORKSPACE for a member of another workspace', async () => {
      expectError(await create({ name: 'Owned', ownerId: globex.users.gina }), 400, 'OWNER_NOT_IN_WORKSPACE');
    });
  });

  describe('grants for the creating token', () => {
    it('lets a token read and update a project it created outside its grants', async () => {
      const made = await create({ name: 'Bot ops work', teamKey: 'OPS' }, TOKENS.bot);
      expect(made.status).toBe(201);
      const { projectId } = made.body.project;
      expect((await h.call('GET', `/api/external/projects/${projectId}`, { token: TOKENS.bot })).status).toBe(200);
      expect(
        (
          await h.call('GET', '/api/external/projects/by-key/OPS/' + made.body.project.projectKey, {
            token: TOKENS.bot,
          })
        ).status,
      ).toBe(200);
      expect((await patch(projectId, { name: 'Bot ops work, renamed' }, TOKENS.bot)).status).toBe(200);
      const list = await h.call('GET', '/api/external/projects', { token: TOKENS.bot });
      expect(list.body.projects.map((p: { projectId: string }) => p.projectId)).toContain(projectId);
      expectError(
        await h.call('GET', `/api/external/projects/${projectId}`, { token: TOKENS.idle }),
        404,
        'PROJECT_NOT_FOUND',
      );
    });

    it('grants a token with no projects the one it creates, and nothing else', async () => {
      const made = await create({ name: 'Idle work' }, TOKENS.idle);
      expect(made.status).toBe(201);
      const list = await h.call('GET', '/api/external/projects', { token: TOKENS.idle });
      expect(list.body.projects.map((p: { projectId: string }) => p.projectId)).toEqual([made.body.project.projectId]);
    });
  });
});

describe('GET /api/external/projects/{projectId} and by-key', () => {
  it('reads a project by id and by team and project key', async () => {
    const byId = await h.call('GET', `/api/external/projects/${acme.projects['ENG/API']}`, { token: TOKENS.bot });
    expect(byId.status).toBe(200);
    expect(byId.body.project).toMatchObject({
      projectId: acme.projects['ENG/API'],
      projectKey: 'API',
      name: 'Public API',
      teamKey: 'ENG',
      ownerId: acme.users.alice,
    });
    const byKey = await h.call('GET', '/api/external/projects/by-key/ENG/API', { token: TOKENS.bot });
    expect(byKey.body).toEqual(byId.body);
    const lowerCase = await h.call('GET', '/api/external/projects/by-key/eng/api', { token: TOKENS.bot });
    expect(lowerCase.body).toEqual(byId.body);
  });

  it('answers PROJECT_NOT_FOUND for an unknown, foreign or ungranted project', async () => {
    expectError(
      await h.call('GET', '/api/external/projects/prj_unknown', { token: TOKENS.admin }),
      404,
      'PROJECT_NOT_FOUND',
      { projectId: 'prj_unknown' },
    );
    expectError(
      await h.call('GET', `/api/external/projects/${globex.projects['ENG/API']}`, { token: TOKENS.admin }),
      404,
      'PROJECT_NOT_FOUND',
    );
    expectError(
      await h.call('GET', `/api/external/projects/${acme.projects['ENG/WEB']}`, { token: TOKENS.bot }),
      404,
      'PROJECT_NOT_FOUND',
    );
    expectError(
      await h.call('GET', '/api/external/projects/by-key/ENG/NOPE', { token: TOKENS.admin }),
      404,
      'PROJECT_NOT_FOUND',
    );
    expectError(
      await h.call('GET', '/api/external/projects/by-key/ENG/WEB', { token: TOKENS.bot }),
      404,
      'PROJECT_NOT_FOUND',
    );
    expectError(
      await h.call('GET', '/api/external/projects/by-key/OPS/API', { token: TOKENS.globex }),
      404,
      'TEAM_NOT_FOUND',
    );
  });

  it('answers TEAM_NOT_FOUND on by-key with an unknown team', async () => {
    expectError(
      await h.call('GET', '/api/external/projects/by-key/NOPE/API', { token: TOKENS.admin }),
      404,
      'TEAM_NOT_FOUND',
      { teamKey: 'NOPE' },
    );
  });
});

describe('GET /api/external/projects', () => {
  it('filters by teamKey or teamId', async () => {
    const byKey = await h.call('GET', '/api/external/projects?teamKey=OPS&limit=200', { token: TOKENS.admin });
    const byId = await h.call('GET', `/api/external/projects?teamId=${acme.teams.OPS}&limit=200`, {
      token: TOKENS.admin,
    });
    expect(byKey.status).toBe(200);
    expect(byKey.body.projects.length).toBeGreaterThan(0);
    expect(byKey.body.projects.every((p: { teamKey: string }) => p.teamKey === 'OPS')).toBe(true);
    expect(byId.body.projects).toEqual(byKey.body.projects);
    expect(Object.keys(byKey.body).sort()).toEqual(['pageInfo', 'projects']);
  });

  it('answers TEAM_NOT_FOUND for an unknown or foreign team filter', async () => {
    expectError(
      await h.call('GET', '/api/external/projects?teamKey=NOPE', { token: TOKENS.admin }),
      404,
      'TEAM_NOT_FOUND',
    );
    expectError(
      await h.call('GET', `/api/external/projects?teamId=${globex.teams.ENG}`, { token: TOKENS.admin }),
      404,
      'TEAM_NOT_FOUND',
    );
  });
});

describe('PATCH /api/external/projects/{projectId}', () => {
  const fresh = async (body: Record<string, unknown> = {}) =>
    (await create({ name: 'Patchable', ...body })).body.project;

  it('updates metadata and answers 200 { project } with a new updatedAt', async () => {
    const before = await fresh({ teamKey: 'OPS' });
    const stale = '2020-01-01T00:00:00.000Z';
    await h.database.db.updateTable('projects').set({ updated_at: stale }).where('id', '=', before.projectId).execute();
    const reply = await patch(before.projectId, {
      name: 'Renamed',
      description: 'Now described',
      ownerId: acme.users.carol,
      startDate: '2026-01-01',
      endDate: '2026-12-31',
      subtasksEnabled: false,
      issueContainersEnabled: false,
      projectKey: 'renamed',
    });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.project).sort()).toEqual(PROJECT_FIELDS);
    expect(reply.body.project).toMatchObject({
      projectId: before.projectId,
      name: 'Renamed',
      description: 'Now described',
      ownerId: acme.users.carol,
      startDate: '2026-01-01',
      endDate: '2026-12-31',
      subtasksEnabled: false,
      issueContainersEnabled: false,
      projectKey: 'RENAMED',
      createdAt: before.createdAt,
    });
    expect(reply.body.project.updatedAt > stale).toBe(true);
    expect(
      (await h.call('GET', '/api/external/projects/by-key/OPS/RENAMED', { token: TOKENS.admin })).body.project
        .projectId,
    ).toBe(before.projectId);
    expectError(
      await h.call('GET', `/api/external/projects/by-key/OPS/${before.projectKey}`, { token: TOKENS.admin }),
      404,
      'PROJECT_NOT_FOUND',
    );
    const event = await h.database.db
      .selectFrom('outbox_events')
      .select(['type', 'payload'])
      .where('project_id', '=', before.projectId)
      .where('type', '=', 'project.updated')
      .executeTakeFirstOrThrow();
    const { changes, ...data } = JSON.parse(event.payload).data;
    expect(data).toEqual({ project: reply.body.project });
    expect(Object.keys(changes).sort()).toEqual([
      'description',
      'endDate',
      'issueContainersEnabled',
      'name',
      'ownerId',
      'projectKey',
      'startDate',
      'subtasksEnabled',
    ]);
  });

  it('clears dates, owner and description with null', async () => {
    const project = await fresh({
      description: 'Text',
      ownerId: acme.users.alice,
      startDate: '2026-02-01',
      endDate: '2026-02-28',
    });
    const reply = await patch(project.projectId, { description: null, ownerId: null, startDate: null, endDate: null });
    expect(reply.status).toBe(200);
    expect(reply.body.project).toMatchObject({ description: null, ownerId: null, startDate: null, endDate: null });
  });

  it('leaves fields it was not sent as they are', async () => {
    const project = await fresh({ description: 'Keep me', startDate: '2026-02-01' });
    const reply = await patch(project.projectId, { name: 'Only the name' });
    expect(reply.body.project).toMatchObject({
      name: 'Only the name',
      description: 'Keep me',
      startDate: '2026-02-01',
      projectKey: project.projectKey,
    });
  });

  it('answers UNSUPPORTED_ACTION for an empty update', async () => {
    const project = await fresh();
    expectError(await patch(project.projectId, {}), 400, 'UNSUPPORTED_ACTION');
    const noBody = await h.call('PATCH', `/api/external/projects/${project.projectId}`, { token: TOKENS.admin });
    expectError(noBody, 400, 'UNSUPPORTED_ACTION');
  });

  it('answers NAME_REQUIRED for an empty, blank or null name', async () => {
    const project = await fresh();
    for (const name of ['', '  ', null, 5]) expectError(await patch(project.projectId, { name }), 400, 'NAME_REQUIRED');
  });

  it('checks a new date against the stored one: INVALID_PROJECT_WINDOW', async () => {
    const project = await fresh({ startDate: '2026-06-01', endDate: '2026-06-30' });
    expectError(await patch(project.projectId, { endDate: '2026-05-31' }), 400, 'INVALID_PROJECT_WINDOW', {
      field: 'endDate',
    });
    expectError(await patch(project.projectId, { startDate: '2026-07-01' }), 400, 'INVALID_PROJECT_WINDOW');
    expectError(await patch(project.projectId, { startDate: '2026-13-01' }), 400, 'INVALID_PROJECT_WINDOW', {
      field: 'startDate',
    });
    const cleared = await patch(project.projectId, { startDate: null, endDate: '2026-01-01' });
    expect(cleared.status).toBe(200);
    expect(cleared.body.project).toMatchObject({ startDate: null, endDate: '2026-01-01' });
  });

  it('answers OWNER_NOT_IN_WORKSPACE for an unknown owner', async () => {
    const project = await fresh();
    expectError(await patch(project.projectId, { ownerId: 'usr_unknown' }), 400, 'OWNER_NOT_IN_WORKSPACE');
    expectError(await patch(project.projectId, { ownerId: true }), 400, 'OWNER_NOT_IN_WORKSPACE');
  });

  it('answers PROJECT_KEY_CONFLICT when the new key is taken in the team', async () => {
    const project = await fresh({ teamKey: 'ENG' });
    expectError(await patch(project.projectId, { projectKey: 'api' }), 409, 'PROJECT_KEY_CONFLICT');
    expectError(await patch(project.projectId, { projectKey: '9X' }), 400, 'VALIDATION_FAILED', {
      field: 'projectKey',
    });
    expect((await patch(project.projectId, { projectKey: project.projectKey })).status).toBe(200);
  });

  it('moves a project without issues to another team', async () => {
    const project = await fresh({ teamKey: 'ENG', projectKey: 'MOVER' });
    const reply = await patch(project.projectId, { teamKey: 'OPS' });
    expect(reply.status).toBe(200);
    expect(reply.body.project).toMatchObject({ teamId: acme.teams.OPS, teamKey: 'OPS', projectKey: 'MOVER' });
    expect((await h.call('GET', '/api/external/projects/by-key/OPS/MOVER', { token: TOKENS.admin })).status).toBe(200);
    const back = await patch(project.projectId, { teamId: acme.teams.ENG });
    expect(back.body.project.teamKey).toBe('ENG');
  });

  it('refuses a team move into a team that already uses the key: PROJECT_KEY_CONFLICT', async () => {
    const project = await fresh({ teamKey: 'OPS', projectKey: 'WEB' });
    expectError(await patch(project.projectId, { teamKey: 'ENG' }), 409, 'PROJECT_KEY_CONFLICT');
    const moved = await patch(project.projectId, { teamKey: 'ENG', projectKey: 'WEBOPS' });
    expect(moved.status).toBe(200);
    expect(moved.body.project).toMatchObject({ teamKey: 'ENG', projectKey: 'WEBOPS' });
  });

  it('refuses a team move while the project has issues: TEAM_CHANGE_BLOCKED (409)', async () => {
    const project = await fresh({ teamKey: 'ENG' });
    await insertIssue(project.projectId, acme.teams.ENG);
    expectError(await patch(project.projectId, { teamKey: 'OPS' }), 409, 'TEAM_CHANGE_BLOCKED', {
      projectId: project.projectId,
    });
    const unchanged = await h.call('GET', `/api/external/projects/${project.projectId}`, { token: TOKENS.admin });
    expect(unchanged.body.project.teamKey).toBe('ENG');
    expect((await patch(project.projectId, { teamKey: 'ENG', name: 'Same team is fine' })).status).toBe(200);
  });

  it('answers TEAM_NOT_FOUND for an unknown target team', async () => {
    const project = await fresh();
    expectError(await patch(project.projectId, { teamKey: 'NOPE' }), 404, 'TEAM_NOT_FOUND');
    expectError(await patch(project.projectId, { teamId: globex.teams.ENG }), 404, 'TEAM_NOT_FOUND');
  });

  it('answers PROJECT_NOT_FOUND for unknown, foreign or ungranted projects, before looking at the body', async () => {
    expectError(await patch('prj_unknown', { name: 'X' }), 404, 'PROJECT_NOT_FOUND');
    expectError(await patch(acme.projects['ENG/API'], { name: 'X' }, TOKENS.globex), 404, 'PROJECT_NOT_FOUND');
    expectError(await patch(acme.projects['OPS/INFRA'], {}, TOKENS.bot), 404, 'PROJECT_NOT_FOUND');
  });
});
