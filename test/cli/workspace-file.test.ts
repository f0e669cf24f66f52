import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { hashSecret } from '../../src/modules/auth/secrets.js';
import { applyWorkspaceFile, WorkspaceFileError } from '../../src/modules/workspace-file/apply.js';
import { bootstrapNotice, bootstrapWorkspace } from '../../src/modules/workspace-file/bootstrap.js';
import { closeTestDatabase, openTestDatabase } from '../support/database.js';
import { deleteAllRecords } from '../support/empty-tables.js';

// Secrets written in a file must be strong (see secretWeakness): random base62, as generated.
const PAT = 'svc_pat_WOad6YTSOnolhvu8MeTRC5o6QiQc7T3HyAcbUPUl';
const OAT = 'svc_oat_lTLdsIARIxnhzfo24JwzYARe8iVoOVCKyOrxUyVT';

/** The core sections of the docs/workspace-file.md example, as an operator would write them. */
const ACME_YAML = `
workspace: { slug: acme, name: Acme }
users:
  - { handle: alice, name: Alice Archer, email: alice@acme.test }
  - { handle: bob, name: Bob Builder }
teams:
  - key: ENG
    name: Engineering
    default: true
    members: [alice]
    statuses:
      - { key: todo, name: Todo, category: unstarted }
      - { key: in-progress, name: In Progress, category: started }
      - { key: done, name: Done, category: completed }
    transitions:
      todo: [in-progress]
      in-progress: [done, todo]
  - { key: OPS, name: Operations, members: [alice, bob] }
projects:
  - team: ENG
    key: api
    name: Public API
    owner: alice
    statuses: [todo, done]
    containers: [{ name: Launch, startDate: 2026-01-05, dueDate: 2026-03-31 }]
  - { team: OPS, key: INFRA, name: Infrastructure, owner: "api-token:triage-bot", subtasks: false, issueContainers: false }
tags: [{ name: bug, scopes: [issues, agenda, discussion] }, { name: Ops, scopes: [issues] }]
tokens:
  - { name: triage-bot, projects: ["ENG/API"] }
  - { name: admin, secret: ${PAT}, projects: "*" }
oauthTokens:
  - { user: alice, secret: ${OAT} }
  - { user: bob }
`;

const SNAPSHOT_TABLES = [
  'workspaces',
  'users',
  'teams',
  'team_members',
  'statuses',
  'status_transitions',
  'projects',
  'project_statuses',
  'api_tokens',
  'token_project_grants',
  'oauth_tokens',
  'tags',
  'issue_containers',
] as const;

let database: Database;
const db = () => database.db;

/** Every core row, in a stable order: equal snapshots mean nothing was written. */
async function snapshot() {
  const tables: Record<string, unknown[]> = {};
  for (const table of SNAPSHOT_TABLES) {
    const rows = (await db().selectFrom(table).selectAll().execute()) as Array<Record<string, unknown>>;
    tables[table] = rows.map((row) => JSON.stringify(row, Object.keys(row).sort())).sort();
  }
  return tables;
}

const rowOf = (table: (typeof SNAPSHOT_TABLES)[number], column: string, value: string) =>
  db()
    .selectFrom(table)
    .selectAll()
    .where(column as never, '=', value as never)
    .executeTakeFirstOrThrow() as Promise<Record<string, any>>;

const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

async function expectFileError(file: object | string, message: string | RegExp) {
  const attempt = applyWorkspaceFile(db(), file);
  await expect(attempt).rejects.toBeInstanceOf(WorkspaceFileError);
  await expect(attempt).rejects.toThrow(message);
}

beforeAll(async () => {
  database = await openTestDatabase();
});

afterAll(async () => {
  await closeTestDatabase(database);
});

beforeEach(async () => {
  await deleteAllRecords(db());
});

describe('applying a workspace file', () => {
  it('creates every core section and answers the documented --json shape', async () => {
    const result = await applyWorkspaceFile(db(), ACME_YAML);

    expect(Object.keys(result).sort()).toEqual([
      'agendaStatuses',
      'containers',
      'discussionGroups',
      'externalOwnerPresets',
      'oauthTokens',
      'projects',
      'teams',
      'tokens',
      'users',
      'webhooks',
      'workspaceId',
    ]);
    expect(result.workspaceId).toMatch(/^ws_/);
    expect(Object.keys(result.users)).toEqual(['alice', 'bob']);
    expect(result.users.alice).toMatch(/^usr_/);
    expect(Object.keys(result.teams)).toEqual(['ENG', 'OPS']);
    expect(result.teams.ENG).toMatch(/^team_/);
    expect(Object.keys(result.projects)).toEqual(['ENG/API', 'OPS/INFRA']);
    expect(result.projects['ENG/API']).toMatch(/^prj_/);
    expect(result.containers).toEqual({ 'ENG/API/Launch': expect.stringMatching(/^ic_/) });
    expect(result.tokens.admin).toBe(PAT);
    expect(result.tokens['triage-bot']).toMatch(/^svc_pat_[0-9A-Za-z]{40}$/);
    expect(result.oauthTokens.alice).toBe(OAT);
    expect(result.oauthTokens.bob).toMatch(/^svc_oat_[0-9A-Za-z]{40}$/);
    for (const key of ['discussionGroups', 'agendaStatuses', 'externalOwnerPresets', 'webhooks'] as const) {
      expect(result[key]).toBeTypeOf('object');
    }

    const workspace = await rowOf('workspaces', 'id', result.workspaceId);
    expect(workspace).toMatchObject({ slug: 'acme', name: 'Acme' });
    expect(await rowOf('users', 'id', result.users.bob)).toMatchObject({
      handle: 'bob',
      name: 'Bob Builder',
      email: null,
    });

    const eng = await rowOf('teams', 'id', result.teams.ENG);
    expect(eng).toMatchObject({ key: 'ENG', name: 'Engineering', is_default: 1, has_transition_rules: 1 });
    expect(await rowOf('teams', 'id', result.teams.OPS)).toMatchObject({ is_default: 0, has_transition_rules: 0 });
    const members = await db().selectFrom('team_members').select(['team_id', 'user_id']).execute();
    expect(members).toHaveLength(3);

    const engStatuses = await db()
      .selectFrom('statuses')
      .select(['id', 'key', 'name', 'category', 'position'])
      .where('team_id', '=', result.teams.ENG)
      .orderBy('position')
      .execute();
    expect(engStatuses.map(({ key, name, category, position }) => ({ key, name, category, position }))).toEqual([
      { key: 'todo', name: 'Todo', category: 'unstarted', position: 0 },
      { key: 'in-progress', name: 'In Progress', category: 'started', position: 1 },
      { key: 'done', name: 'Done', category: 'completed', position: 2 },
    ]);
    const keyOf = new Map(engStatuses.map((status) => [status.id, status.key]));
    const transitions = await db()
      .selectFrom('status_transitions')
      .selectAll()
      .where('team_id', '=', result.teams.ENG)
      .execute();
    expect(transitions.map((t) => `${keyOf.get(t.from_status_id)}>${keyOf.get(t.to_status_id)}`).sort()).toEqual([
      'in-progress>done',
      'in-progress>todo',
      'todo>in-progress',
    ]);

    const api = await rowOf('projects', 'id', result.projects['ENG/API']);
    expect(api).toMatchObject({
      key: 'API',
      team_id: result.teams.ENG,
      owner_id: result.users.alice,
      subtasks_enabled: 1,
      issue_containers_enabled: 1,
      has_workflow: 1,
    });
    const workflow = await db()
      .selectFrom('project_statuses')
      .select('status_id')
      .where('project_id', '=', api.id)
      .execute();
    expect(workflow.map((row) => keyOf.get(row.status_id)).sort()).toEqual(['done', 'todo']);
    expect(await rowOf('projects', 'id', result.projects['OPS/INFRA'])).toMatchObject({
      owner_id: 'api-token:triage-bot',
      subtasks_enabled: 0,
      issue_containers_enabled: 0,
      has_workflow: 0,
    });
    expect(await rowOf('issue_containers', 'id', result.containers['ENG/API/Launch'])).toMatchObject({
      project_id: api.id,
      name: 'Launch',
      start_date: '2026-01-05',
      due_date: '2026-03-31',
      archived: 0,
    });

    const tags = await db().selectFrom('tags').select(['name', 'name_lower', 'scopes']).orderBy('name_lower').execute();
    expect(tags).toEqual([
      { name: 'bug', name_lower: 'bug', scopes: '["issues","agenda","discussion"]' },
      { name: 'Ops', name_lower: 'ops', scopes: '["issues"]' },
    ]);

    const admin = await rowOf('api_tokens', 'name', 'admin');
    expect(admin).toMatchObject({ secret_hash: hashSecret(PAT), active: 1, all_projects: 1 });
    const bot = await rowOf('api_tokens', 'name', 'triage-bot');
    expect(bot).toMatchObject({
      secret_hash: hashSecret(result.tokens['triage-bot'] as string),
      active: 1,
      all_projects: 0,
    });
    const grants = await db().selectFrom('token_project_grants').select(['token_id', 'project_id']).execute();
    expect(grants).toEqual([{ token_id: bot.id, project_id: api.id }]);
    expect(await rowOf('oauth_tokens', 'user_id', result.users.alice)).toMatchObject({
      secret_hash: hashSecret(OAT),
      active: 1,
    });
  });

  it('reads JSON text and plain objects the same way as YAML', async () => {
    const file = { workspace: { slug: 'json', name: 'Json' }, teams: [{ key: 'ENG', name: 'Engineering' }] };
    const fromJson = await applyWorkspaceFile(db(), JSON.stringify(file));
    const fromObject = await applyWorkspaceFile(db(), file);
    expect(fromObject).toEqual(fromJson);
  });

  it('changes nothing when the same file is applied again, and answers the same ids', async () => {
    const first = await applyWorkspaceFile(db(), ACME_YAML);
    const before = await snapshot();
    await pause();
    const second = await applyWorkspaceFile(db(), ACME_YAML);

    expect(await snapshot()).toEqual(before);
    expect(second).toEqual({
      ...first,
      // Existing tokens whose secret the file does not give are unknown now (only hashes are kept).
      tokens: { 'triage-bot': null, admin: PAT },
      oauthTokens: { alice: OAT, bob: null },
    });
  });

  it('updates what differs, adds what is new and never deletes', async () => {
    const first = await applyWorkspaceFile(db(), ACME_YAML);
    const before = await snapshot();
    await pause();
    const changed = await applyWorkspaceFile(db(), {
      workspace: { slug: 'acme', name: 'Acme Inc' },
      users: [
        { handle: 'alice', name: 'Alice A.', email: 'alice@acme.example' },
        { handle: 'carol', name: 'Carol' },
      ],
      teams: [
        {
          key: 'ENG',
          name: 'Eng',
          members: ['bob'],
          statuses: [
            { key: 'todo', name: 'To do', category: 'unstarted' },
            { key: 'review', name: 'Review', category: 'started' },
          ],
        },
      ],
      projects: [
        {
          team: 'ENG',
          key: 'API',
          name: 'API',
          subtasks: false,
          containers: [{ name: 'Launch', dueDate: '2026-04-30' }, { name: 'Later' }],
        },
      ],
      tags: [{ name: 'BUG', scopes: ['issues'] }],
      tokens: [{ name: 'triage-bot', projects: ['OPS/INFRA'] }],
    });

    expect(changed.workspaceId).toBe(first.workspaceId);
    expect(changed.users.alice).toBe(first.users.alice);
    expect(changed.projects['ENG/API']).toBe(first.projects['ENG/API']);
    expect(changed.containers['ENG/API/Launch']).toBe(first.containers['ENG/API/Launch']);
    expect(changed.containers['ENG/API/Later']).toMatch(/^ic_/);

    expect(await rowOf('workspaces', 'id', first.workspaceId)).toMatchObject({ name: 'Acme Inc' });
    const alice = await rowOf('users', 'id', first.users.alice);
    expect(alice).toMatchObject({ name: 'Alice A.', email: 'alice@acme.example' });
    expect(alice.updated_at > alice.created_at).toBe(true);
    // Rows the file no longer names are still there, untouched.
    expect(await rowOf('users', 'id', first.users.bob)).toEqual(
      JSON.parse(before.users.find((row) => (row as string).includes('"bob"')) as string),
    );
    expect(await rowOf('projects', 'id', first.projects['OPS/INFRA'])).toMatchObject({ name: 'Infrastructure' });
    expect(await rowOf('teams', 'id', first.teams.ENG)).toMatchObject({
      name: 'Eng',
      is_default: 1,
      has_transition_rules: 1,
    });

    const engStatuses = await db()
      .selectFrom('statuses')
      .select(['key', 'name', 'position'])
      .where('team_id', '=', first.teams.ENG)
      .orderBy('key')
      .execute();
    expect(engStatuses).toEqual([
      { key: 'done', name: 'Done', position: 2 },
      { key: 'in-progress', name: 'In Progress', position: 1 },
      { key: 'review', name: 'Review', position: 1 },
      { key: 'todo', name: 'To do', position: 0 },
    ]);
    expect(
      await db().selectFrom('team_members').select('user_id').where('team_id', '=', first.teams.ENG).execute(),
    ).toHaveLength(2);
    expect(await db().selectFrom('status_transitions').selectAll().execute()).toHaveLength(3);

    const api = await rowOf('projects', 'id', first.projects['ENG/API']);
    expect(api).toMatchObject({ name: 'API', subtasks_enabled: 0, owner_id: first.users.alice, has_workflow: 1 });
    expect(await rowOf('issue_containers', 'id', first.containers['ENG/API/Launch'])).toMatchObject({
      start_date: '2026-01-05',
      due_date: '2026-04-30',
    });
    expect(
      await db().selectFrom('tags').select(['name', 'scopes']).where('name_lower', '=', 'bug').executeTakeFirst(),
    ).toEqual({ name: 'BUG', scopes: '["issues"]' });
    expect(await db().selectFrom('tags').selectAll().execute()).toHaveLength(2);

    const bot = await rowOf('api_tokens', 'name', 'triage-bot');
    const grants = await db()
      .selectFrom('token_project_grants')
      .select('project_id')
      .where('token_id', '=', bot.id)
      .execute();
    expect(grants.map((g) => g.project_id).sort()).toEqual(
      [first.projects['ENG/API'], first.projects['OPS/INFRA']].sort(),
    );
    expect(changed.tokens).toEqual({ 'triage-bot': null });
  });

  it('gives a team created without statuses the default set', async () => {
    const result = await applyWorkspaceFile(db(), {
      workspace: { slug: 'acme', name: 'Acme' },
      teams: [{ key: 'MAIN', name: 'Main' }],
    });
    const statuses = await db()
      .selectFrom('statuses')
      .select(['key', 'name', 'category', 'position'])
      .where('team_id', '=', result.teams.MAIN)
      .orderBy('position')
      .execute();
    expect(statuses.map((s) => [s.key, s.category, s.position])).toEqual([
      ['backlog', 'backlog', 0],
      ['todo', 'unstarted', 1],
      ['in-progress', 'started', 2],
      ['in-review', 'started', 3],
      ['done', 'completed', 4],
      ['canceled', 'canceled', 5],
    ]);
    expect(await rowOf('teams', 'id', result.teams.MAIN)).toMatchObject({ is_default: 1, has_transition_rules: 0 });
  });

  it('keeps exactly one default team', async () => {
    const ws = { slug: 'acme', name: 'Acme' };
    const first = await applyWorkspaceFile(db(), {
      workspace: ws,
      teams: [
        { key: 'A', name: 'A' },
        { key: 'B', name: 'B' },
      ],
    });
    const defaults = async () =>
      (await db().selectFrom('teams').select('key').where('is_default', '=', 1).execute()).map((r) => r.key);
    expect(await defaults()).toEqual(['A']);

    await applyWorkspaceFile(db(), { workspace: ws, teams: [{ key: 'C', name: 'C' }] });
    expect(await defaults()).toEqual(['A']);

    await applyWorkspaceFile(db(), { workspace: ws, teams: [{ key: 'B', name: 'B', default: true }] });
    expect(await defaults()).toEqual(['B']);
    expect(first.teams.B).toBe(
      (await applyWorkspaceFile(db(), { workspace: ws, teams: [{ key: 'B', name: 'B' }] })).teams.B,
    );

    await expectFileError(
      { workspace: ws, teams: [{ key: 'B', name: 'B', default: false }] },
      /^teams\[0\]\.default: this is the default team/,
    );
    await expectFileError(
      {
        workspace: ws,
        teams: [
          { key: 'A', name: 'A', default: true },
          { key: 'B', name: 'B', default: true },
        ],
      },
      'teams[1].default: only one team may be the default',
    );
    await expectFileError(
      { workspace: { slug: 'other', name: 'Other' }, teams: [{ key: 'A', name: 'A', default: false }] },
      'teams: one team must be the default',
    );
  });

  it("replaces a team's transition rules and a project's workflow when the file gives new ones", async () => {
    const base = { workspace: { slug: 'acme', name: 'Acme' } };
    const first = await applyWorkspaceFile(db(), {
      ...base,
      teams: [{ key: 'ENG', name: 'Eng', transitions: { todo: ['in-progress'] } }],
      projects: [{ team: 'ENG', key: 'API', name: 'API', statuses: ['todo', 'done'] }],
    });
    await applyWorkspaceFile(db(), {
      ...base,
      teams: [{ key: 'ENG', name: 'Eng', transitions: { backlog: ['todo'], todo: ['done', 'canceled'] } }],
      projects: [{ team: 'ENG', key: 'API', name: 'API', statuses: ['in-progress'] }],
    });
    const statuses = await db()
      .selectFrom('statuses')
      .select(['id', 'key'])
      .where('team_id', '=', first.teams.ENG)
      .execute();
    const keyOf = new Map(statuses.map((s) => [s.id, s.key]));
    const rules = await db().selectFrom('status_transitions').selectAll().execute();
    expect(rules.map((r) => `${keyOf.get(r.from_status_id)}>${keyOf.get(r.to_status_id)}`).sort()).toEqual([
      'backlog>todo',
      'todo>canceled',
      'todo>done',
    ]);
    const workflow = await db().selectFrom('project_statuses').select('status_id').execute();
    expect(workflow.map((w) => keyOf.get(w.status_id))).toEqual(['in-progress']);
  });

  it('converges tokens: given secrets replace the hash, active follows the file, grants only grow', async () => {
    const ws = { slug: 'acme', name: 'Acme' };
    const projects = [
      { team: 'ENG', key: 'API', name: 'API' },
      { team: 'ENG', key: 'WEB', name: 'Web' },
    ];
    const teams = [{ key: 'ENG', name: 'Eng' }];
    const first = await applyWorkspaceFile(db(), {
      workspace: ws,
      teams,
      projects,
      tokens: [{ name: 'bot', projects: ['eng/api'] }],
    });
    const generated = first.tokens.bot as string;
    expect(generated).toMatch(/^svc_pat_/);

    const rotated = 'svc_pat_jXlc2StMlQjgSs7CI0loKw3Bx2NQlinP';
    const second = await applyWorkspaceFile(db(), {
      workspace: ws,
      tokens: [{ name: 'bot', secret: rotated, active: false, projects: ['ENG/WEB'] }],
    });
    expect(second.tokens.bot).toBe(rotated);
    let bot = await rowOf('api_tokens', 'name', 'bot');
    expect(bot).toMatchObject({ secret_hash: hashSecret(rotated), active: 0, all_projects: 0 });
    expect(await db().selectFrom('token_project_grants').selectAll().execute()).toHaveLength(2);

    // Leaving `active` out keeps a revoked token revoked; "*" adds the all-projects grant.
    await applyWorkspaceFile(db(), { workspace: ws, tokens: [{ name: 'bot', projects: '*' }] });
    bot = await rowOf('api_tokens', 'name', 'bot');
    expect(bot).toMatchObject({ active: 0, all_projects: 1, secret_hash: hashSecret(rotated) });
    await applyWorkspaceFile(db(), { workspace: ws, tokens: [{ name: 'bot', active: true, projects: [] }] });
    expect(await rowOf('api_tokens', 'name', 'bot')).toMatchObject({ active: 1, all_projects: 1 });

    await expectFileError(
      { workspace: { slug: 'other', name: 'Other' }, tokens: [{ name: 'copy', secret: rotated }] },
      'tokens[0].secret: is already used by another token',
    );
  });

  it('adds an OAuth token only when the user has none or the file gives a new secret', async () => {
    const base = { workspace: { slug: 'acme', name: 'Acme' }, users: [{ handle: 'alice', name: 'Alice' }] };
    const first = await applyWorkspaceFile(db(), { ...base, oauthTokens: [{ user: 'alice' }] });
    expect(first.oauthTokens.alice).toMatch(/^svc_oat_/);
    expect(
      (await applyWorkspaceFile(db(), { ...base, oauthTokens: [{ user: 'alice' }] })).oauthTokens.alice,
    ).toBeNull();
    expect(
      (await applyWorkspaceFile(db(), { ...base, oauthTokens: [{ user: 'alice', secret: OAT }] })).oauthTokens.alice,
    ).toBe(OAT);
    expect(
      (await applyWorkspaceFile(db(), { ...base, oauthTokens: [{ user: 'alice', secret: OAT }] })).oauthTokens.alice,
    ).toBe(OAT);
    expect(await db().selectFrom('oauth_tokens').selectAll().execute()).toHaveLength(2);
  });

  it('applies within a transaction the caller already holds', async () => {
    const result = await db()
      .transaction()
      .execute((trx) => applyWorkspaceFile(trx, { workspace: { slug: 'nested', name: 'Nested' } }));
    expect((await rowOf('workspaces', 'id', result.workspaceId)).slug).toBe('nested');
  });
});

describe('workspace file errors', () => {
  const ws = { slug: 'acme', name: 'Acme' };

  it.each([
    [
      'a bad team key',
      { workspace: ws, teams: [{ key: 'eng', name: 'Eng' }] },
      'teams[0].key: must match ^[A-Z][A-Z0-9]{0,9}$',
    ],
    ['an unknown section', { workspace: ws, team: [] }, /^team: unknown key \(expected one of workspace, users, teams/],
    [
      'an unknown field',
      { workspace: ws, users: [{ handle: 'a', name: 'A', mail: 'x' }] },
      /^users\[0\]\.mail: unknown key/,
    ],
    ['a missing workspace', { users: [] }, 'workspace: is required'],
    ['a bad slug', { workspace: { slug: 'Acme!', name: 'Acme' } }, 'workspace.slug: must match'],
    ['a missing name', { workspace: ws, teams: [{ key: 'ENG' }] }, 'teams[0].name: is required'],
    [
      'a duplicate handle',
      {
        workspace: ws,
        users: [
          { handle: 'a', name: 'A' },
          { handle: 'a', name: 'B' },
        ],
      },
      'users[1]: duplicate handle "a"',
    ],
    [
      'a bad project key',
      { workspace: ws, projects: [{ team: 'ENG', key: 'A', name: 'A' }] },
      'projects[0].key: must match ^[A-Z][A-Z0-9]{1,9}$',
    ],
    [
      'a bad status category',
      { workspace: ws, teams: [{ key: 'ENG', name: 'E', statuses: [{ key: 'todo', name: 'T', category: 'open' }] }] },
      'teams[0].statuses[0].category: must match',
    ],
    [
      'a bad date',
      {
        workspace: ws,
        projects: [{ team: 'ENG', key: 'API', name: 'A', containers: [{ name: 'C', dueDate: '2026-02-30' }] }],
      },
      'projects[0].containers[0].dueDate: must be a calendar date YYYY-MM-DD',
    ],
    [
      'a bad secret',
      { workspace: ws, tokens: [{ name: 'bot', secret: 'svc_pat_short' }] },
      'tokens[0].secret: must match',
    ],
    [
      'a bad project reference',
      { workspace: ws, tokens: [{ name: 'bot', projects: ['API'] }] },
      'tokens[0].projects[0]: must be "*" or TEAM/PROJ',
    ],
    [
      'a bad tag scope',
      { workspace: ws, tags: [{ name: 'bug', scopes: ['meetings'] }] },
      'tags[0].scopes[0]: must match',
    ],
    [
      'a non-boolean',
      { workspace: ws, tokens: [{ name: 'bot', active: 'yes' }] },
      'tokens[0].active: must be true or false',
    ],
    ['broken YAML', 'workspace: { slug: acme', /^not valid YAML or JSON/],
    ['a list at the top', '[1, 2]', /must be a YAML or JSON object/],
  ])('names the path of %s', async (_case, file, message) => {
    await expectFileError(file, message);
  });

  it.each([
    [
      'an unknown member',
      { teams: [{ key: 'ENG', name: 'E', members: ['ghost'] }] },
      'teams[0].members[0]: unknown user "ghost"',
    ],
    ['an unknown team', { projects: [{ team: 'OPS', key: 'API', name: 'A' }] }, 'projects[0].team: unknown team "OPS"'],
    [
      'an unknown owner',
      { projects: [{ team: 'ENG', key: 'API', name: 'A', owner: 'api-token:ghost' }] },
      'projects[0].owner: unknown token "ghost"',
    ],
    [
      'an unknown workflow status',
      { projects: [{ team: 'ENG', key: 'API', name: 'A', statuses: ['todo', 'shipped'] }] },
      'projects[0].statuses[1]: unknown status "shipped"',
    ],
    [
      'an unknown transition status',
      { teams: [{ key: 'ENG', name: 'E', transitions: { todo: ['nope'] } }] },
      'teams[0].transitions.todo[0]: unknown status "nope"',
    ],
    [
      'an unknown granted project',
      { tokens: [{ name: 'bot', projects: ['ENG/NOPE'] }] },
      'tokens[0].projects[0]: unknown project "ENG/NOPE"',
    ],
    ['an unknown OAuth user', { oauthTokens: [{ user: 'ghost' }] }, 'oauthTokens[0].user: unknown user "ghost"'],
  ])('refuses %s and writes nothing', async (_case, sections, message) => {
    await applyWorkspaceFile(db(), { workspace: ws, teams: [{ key: 'ENG', name: 'E' }] });
    const before = await snapshot();
    await expectFileError(
      { workspace: { slug: 'acme', name: 'Renamed' }, users: [{ handle: 'new', name: 'New' }], ...sections },
      message,
    );
    expect(await snapshot()).toEqual(before);
  });
});

describe('bootstrap', () => {
  const config = loadConfig({});

  it('creates the default workspace once, with team MAIN, its administrator, an all-projects admin token and a first project', async () => {
    const bootstrapped = await bootstrapWorkspace(database, config);
    expect(bootstrapped).toEqual({
      adminSecret: expect.stringMatching(/^svc_pat_[0-9A-Za-z]{40}$/),
      projectKey: 'FIRST',
    });
    expect(await bootstrapWorkspace(database, config)).toBeNull();

    const workspace = await rowOf('workspaces', 'slug', 'default');
    expect(workspace.name).toBe('Default');
    const teams = await db().selectFrom('teams').selectAll().execute();
    expect(teams).toEqual([expect.objectContaining({ key: 'MAIN', is_default: 1, workspace_id: workspace.id })]);
    expect(await db().selectFrom('statuses').selectAll().execute()).toHaveLength(6);
    // A person who can sign in (wsx login-link) and approve MCP clients, a member of MAIN.
    const admin = await rowOf('users', 'handle', 'admin');
    expect(admin).toMatchObject({
      workspace_id: workspace.id,
      name: 'Administrator',
      email: 'admin@localhost',
      deactivated_at: null,
    });
    expect(await db().selectFrom('team_members').select(['team_id', 'user_id']).execute()).toEqual([
      { team_id: teams[0].id, user_id: admin.id },
    ]);
    expect(await rowOf('api_tokens', 'name', 'admin')).toMatchObject({
      all_projects: 1,
      active: 1,
      secret_hash: hashSecret(bootstrapped!.adminSecret),
    });
    // Created as the admin token creates a project over the API: its event is recorded too.
    const projects = await db().selectFrom('projects').selectAll().execute();
    expect(projects).toEqual([
      expect.objectContaining({
        key: 'FIRST',
        name: 'First project',
        team_id: teams[0].id,
        created_by: 'api-token:admin',
      }),
    ]);
    const events = await db().selectFrom('outbox_events').select(['type', 'project_id']).execute();
    expect(events).toEqual([{ type: 'project.created', project_id: projects[0].id }]);
  });

  it('does nothing when any workspace exists', async () => {
    await applyWorkspaceFile(db(), { workspace: { slug: 'acme', name: 'Acme' } });
    expect(await bootstrapWorkspace(database, config)).toBeNull();
    expect(await db().selectFrom('workspaces').select('slug').execute()).toEqual([{ slug: 'acme' }]);
    expect(await db().selectFrom('projects').select('key').execute()).toEqual([]);
  });

  it('prints the token and the project key with a ready-to-copy request, and how the administrator signs in', () => {
    const signIn = 'npx wsx login-link --workspace default --user admin --url http://127.0.0.1:3000';
    const notice = bootstrapNotice(
      { adminSecret: PAT, projectKey: 'FIRST' },
      { publicUrl: 'http://127.0.0.1:3000', wsx: 'npx wsx', signIn: { command: signIn }, oauth: true },
    );
    expect(notice).toContain(`\n    ${PAT}\n`);
    expect(notice).toContain('\n  Project key: FIRST\n');
    expect(notice).toContain(`curl -H "Authorization: Bearer ${PAT}" http://127.0.0.1:3000/api/external/projects`);
    expect(notice).toContain(`\n    ${signIn}\n`);
    expect(notice).toContain('by its URL alone:\n  http://127.0.0.1:3000/api/mcp');
    expect(notice).toContain('npx wsx apply -f workspace.yaml');
    expect(notice).not.toMatch(/8080|npm run/);

    // A store no other process can open: no sign-in command; a password it cannot print: a note.
    const inMemory = bootstrapNotice(
      { adminSecret: PAT, projectKey: 'FIRST' },
      { publicUrl: 'http://127.0.0.1:3000', wsx: 'npm run wsx --', signIn: undefined, oauth: true },
    );
    expect(inMemory).not.toContain('login-link');
    expect(inMemory).toContain('npm run wsx -- apply -f workspace.yaml');
    const withNote = bootstrapNotice(
      { adminSecret: PAT, projectKey: 'FIRST' },
      {
        publicUrl: 'https://wsx.example.com',
        wsx: 'npx wsx',
        signIn: { command: signIn, note: "Run it with this server's DATABASE_URL set." },
        oauth: true,
      },
    );
    expect(withNote).toContain(`\n    ${signIn}\n\n  Run it with this server's DATABASE_URL set.\n`);
  });
});
