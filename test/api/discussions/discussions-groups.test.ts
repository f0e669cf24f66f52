import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/** Groups made by the workspace file: one per visibility case the routes must honour. */
const ACME_GROUPS = {
  workspace: ACME.workspace,
  discussionGroups: [
    {
      name: 'Advisory board',
      owner: 'alice',
      members: ['api-token:bot'],
      visibility: 'members',
      apiVisibility: 'visible',
      description: 'Quarterly advice',
    },
    { name: 'Town hall', owner: 'bob', visibility: 'workspace' },
    {
      name: 'Board secrets',
      owner: 'alice',
      members: ['api-token:admin', 'api-token:bot'],
      visibility: 'workspace',
      apiVisibility: 'private',
    },
    { name: 'Ops circle', owner: 'bob', members: ['carol'] },
  ],
};
const GLOBEX_GROUPS = {
  workspace: GLOBEX.workspace,
  discussionGroups: [{ name: 'Globex board', owner: 'gina', visibility: 'workspace' }],
};

let h: Harness;
let acme: ApplyResult;
let globex: ApplyResult;

const listNames = async (token: string): Promise<string[]> => {
  const res = await h.call('GET', '/api/external/discussion?limit=200', { token });
  expect(res.status).toBe(200);
  return res.body.groups.map((g: { name: string }) => g.name).sort();
};
const createGroup = (body: unknown, token = TOKENS.admin) =>
  h.call('POST', '/api/external/discussion', { token, body });
const patchGroup = (groupId: string, body: unknown, token = TOKENS.admin) =>
  h.call('PATCH', `/api/external/discussion/groups/${groupId}`, { token, body });

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = { ...(await h.apply(ACME)), discussionGroups: (await h.apply(ACME_GROUPS)).discussionGroups };
  globex = { ...(await h.apply(GLOBEX)), discussionGroups: (await h.apply(GLOBEX_GROUPS)).discussionGroups };
});
afterAll(() => h.close());

describe('workspace file discussionGroups', () => {
  it('answers the group ids by name and converges without creating twice', async () => {
    expect(Object.keys(acme.discussionGroups).sort()).toEqual([
      'Advisory board',
      'Board secrets',
      'Ops circle',
      'Town hall',
    ]);
    const again = await h.apply(ACME_GROUPS);
    expect(again.discussionGroups).toEqual(acme.discussionGroups);
  });

  it('updates what differs (owner included) and adds missing members, never removing any', async () => {
    const file = {
      workspace: ACME.workspace,
      discussionGroups: [{ name: 'File steered', owner: 'alice', members: ['carol'], description: 'v1' }],
    };
    const first = await h.apply(file);
    const groupId = first.discussionGroups['File steered'];
    await h.apply({
      workspace: ACME.workspace,
      discussionGroups: [{ ...file.discussionGroups[0], members: ['bob'], description: 'v2', owner: 'carol' }],
    });
    const row = await h.database.db
      .selectFrom('discussion_groups')
      .selectAll()
      .where('id', '=', groupId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ description: 'v2', owner_id: acme.users.carol, visibility: 'members' });
    const members = await h.database.db
      .selectFrom('discussion_group_members')
      .select('member_id')
      .where('group_id', '=', groupId)
      .execute();
    expect(members.map((m) => m.member_id).sort()).toEqual([acme.users.bob, acme.users.carol].sort());
    // No API caller of the fixture is owner or member any more.
    expect(await listNames(TOKENS.alice)).not.toContain('File steered');
  });

  it('refuses an unknown owner or member, naming the path', async () => {
    await expect(
      h.apply({ workspace: ACME.workspace, discussionGroups: [{ name: 'X', owner: 'nobody' }] }),
    ).rejects.toThrow(/discussionGroups\[0\]\.owner: unknown user "nobody"/);
    await expect(
      h.apply({
        workspace: ACME.workspace,
        discussionGroups: [{ name: 'X', owner: 'alice', members: ['api-token:ghost'] }],
      }),
    ).rejects.toThrow(/discussionGroups\[0\]\.members\[0\]: unknown token "api-token:ghost"/);
    await expect(
      h.apply({ workspace: ACME.workspace, discussionGroups: [{ name: 'X', owner: 'alice', visibility: 'everyone' }] }),
    ).rejects.toThrow(/discussionGroups\[0\]\.visibility/);
  });
});

describe('GET /api/external/discussion', () => {
  it('lists only API-visible groups the caller owns, belongs to, or that are open to the workspace', async () => {
    expect(await listNames(TOKENS.alice)).toEqual(['Advisory board', 'Town hall']);
    expect(await listNames(TOKENS.bot)).toEqual(['Advisory board', 'Town hall']);
    expect(await listNames(TOKENS.admin)).toEqual(['Town hall']);
    expect(await listNames(TOKENS.idle)).toEqual(['Town hall']);
    expect(await listNames(TOKENS.globex)).toEqual(['Globex board']);
  });

  it('presents every group field', async () => {
    const res = await h.call('GET', '/api/external/discussion', { token: TOKENS.alice });
    const advisory = res.body.groups.find((g: { name: string }) => g.name === 'Advisory board');
    expect(advisory).toEqual({
      groupId: acme.discussionGroups['Advisory board'],
      name: 'Advisory board',
      description: 'Quarterly advice',
      ownerId: acme.users.alice,
      memberIds: ['api-token:bot'],
      visibility: 'members',
      apiVisibility: 'visible',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.body.pageInfo).toEqual({ hasMore: false, nextCursor: null, limit: 50 });
  });

  it('refuses the browser app page /discussion to a token', async () => {
    const res = await h.call('GET', '/discussion', { token: TOKENS.admin });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });
});

describe('POST /api/external/discussion', () => {
  it('creates a group owned by the calling token with defaults', async () => {
    const res = await createGroup({ name: '  Release council ' });
    expect(res.status).toBe(201);
    expect(res.body.group).toEqual({
      groupId: expect.stringMatching(/^dgr_/),
      name: 'Release council',
      description: null,
      ownerId: 'api-token:admin',
      memberIds: [],
      visibility: 'members',
      apiVisibility: 'visible',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await listNames(TOKENS.admin)).toContain('Release council');
    expect(await listNames(TOKENS.bot)).not.toContain('Release council');
  });

  it('creates a group owned by the OAuth user, with members that then see it', async () => {
    const res = await createGroup(
      {
        name: 'Design review',
        description: 'UX',
        visibility: 'members',
        memberIds: ['api-token:idle', acme.users.carol, 'api-token:idle'],
      },
      TOKENS.alice,
    );
    expect(res.status).toBe(201);
    expect(res.body.group).toMatchObject({
      ownerId: acme.users.alice,
      description: 'UX',
      memberIds: ['api-token:idle', acme.users.carol].sort(),
    });
    expect(await listNames(TOKENS.idle)).toContain('Design review');
    expect(await listNames(TOKENS.admin)).not.toContain('Design review');
  });

  it('answers a group created private, which no API call sees afterwards', async () => {
    const res = await createGroup({ name: 'Hidden at birth', apiVisibility: 'private', visibility: 'workspace' });
    expect(res.status).toBe(201);
    expect(res.body.group.apiVisibility).toBe('private');
    expect(await listNames(TOKENS.admin)).not.toContain('Hidden at birth');
    const patch = await patchGroup(res.body.group.groupId, { name: 'Found' });
    expect(patch.status).toBe(404);
    expect(patch.body.code).toBe('DISCUSSION_GROUP_NOT_FOUND');
  });

  it.each([
    ['missing', {}],
    ['empty', { name: '' }],
    ['whitespace', { name: '   ' }],
    ['not a string', { name: 42 }],
    ['null', { name: null }],
  ])('answers NAME_REQUIRED for a %s name', async (_case, body) => {
    const res = await createGroup(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'NAME_REQUIRED', details: { field: 'name' } });
  });

  it('answers VALIDATION_FAILED for a name over 200 characters', async () => {
    const res = await createGroup({ name: 'n'.repeat(201) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'name' } });
  });

  it('answers OWNER_NOT_IN_WORKSPACE for a member that is not a workspace identity', async () => {
    for (const memberId of ['usr_unknown', 'api-token:ghost', globex.users.gina]) {
      const res = await createGroup({ name: 'Bad members', memberIds: [acme.users.bob, memberId] });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'OWNER_NOT_IN_WORKSPACE', details: { field: 'memberIds.1', memberId } });
    }
    expect(await listNames(TOKENS.admin)).not.toContain('Bad members');
  });

  it('answers VALIDATION_FAILED for bad visibility values and unknown fields', async () => {
    const visibility = await createGroup({ name: 'V', visibility: 'everyone' });
    expect(visibility.status).toBe(400);
    expect(visibility.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'visibility' } });
    const apiVisibility = await createGroup({ name: 'V', apiVisibility: 'hidden' });
    expect(apiVisibility.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'apiVisibility' } });
    const members = await createGroup({ name: 'V', memberIds: 'alice' });
    expect(members.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'memberIds' } });
    const unknown = await createGroup({ name: 'V', ownerId: acme.users.bob });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { unknownFields: ['ownerId'] } });
  });
});

describe('GET /api/external/discussion pagination', () => {
  it('walks the visible groups newest first with a cursor bound to the list', async () => {
    const names: string[] = [];
    for (const n of [1, 2, 3]) expect((await createGroup({ name: `Page ${n}` }, TOKENS.bot)).status).toBe(201);
    let cursor: string | null = null;
    do {
      const res: { status: number; body: any } = await h.call(
        'GET',
        `/api/external/discussion?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { token: TOKENS.bot },
      );
      expect(res.status).toBe(200);
      expect(res.body.groups.length).toBeLessThanOrEqual(2);
      names.push(...res.body.groups.map((g: { name: string }) => g.name));
      cursor = res.body.pageInfo.nextCursor;
      expect(res.body.pageInfo.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(names.slice(0, 3)).toEqual(['Page 3', 'Page 2', 'Page 1']);
    expect([...names].sort()).toEqual(['Advisory board', 'Page 1', 'Page 2', 'Page 3', 'Town hall']);
  });

  it('refuses a tampered cursor and a bad limit', async () => {
    const bad = await h.call('GET', '/api/external/discussion?cursor=nonsense', { token: TOKENS.bot });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_CURSOR');
    const limit = await h.call('GET', '/api/external/discussion?limit=0', { token: TOKENS.bot });
    expect(limit.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'limit' } });
  });
});

describe('PATCH /api/external/discussion/groups/{groupId}', () => {
  it('lets the owner rename, describe, re-scope and replace members', async () => {
    const { body } = await createGroup({ name: 'Steering', memberIds: [acme.users.bob] }, TOKENS.alice);
    const groupId = body.group.groupId;
    const res = await patchGroup(
      groupId,
      { name: 'Steering committee', description: 'Monthly', memberIds: ['api-token:bot'], visibility: 'members' },
      TOKENS.alice,
    );
    expect(res.status).toBe(200);
    expect(res.body.group).toMatchObject({
      groupId,
      name: 'Steering committee',
      description: 'Monthly',
      memberIds: ['api-token:bot'],
      ownerId: acme.users.alice,
    });
    expect(await listNames(TOKENS.bot)).toContain('Steering committee');
    const cleared = await patchGroup(groupId, { description: null, memberIds: [] }, TOKENS.alice);
    expect(cleared.body.group).toMatchObject({ description: null, memberIds: [] });
    expect(await listNames(TOKENS.bot)).not.toContain('Steering committee');
  });

  it('opens a members-only group to the workspace', async () => {
    const { body } = await createGroup({ name: 'Open later' });
    expect(await listNames(TOKENS.idle)).not.toContain('Open later');
    expect((await patchGroup(body.group.groupId, { visibility: 'workspace' })).status).toBe(200);
    expect(await listNames(TOKENS.idle)).toContain('Open later');
  });

  it('answers DISCUSSION_GROUP_NOT_OWNED to a caller who sees the group but does not own it', async () => {
    for (const token of [TOKENS.admin, TOKENS.alice]) {
      const res = await patchGroup(acme.discussionGroups['Town hall'], { name: 'Mine now' }, token);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: 'DISCUSSION_GROUP_NOT_OWNED',
        details: { groupId: acme.discussionGroups['Town hall'] },
      });
    }
    const member = await patchGroup(acme.discussionGroups['Advisory board'], { name: 'Bot board' }, TOKENS.bot);
    expect(member.status).toBe(403);
    expect(member.body.code).toBe('DISCUSSION_GROUP_NOT_OWNED');
  });

  it('answers DISCUSSION_GROUP_NOT_FOUND, before any ownership check, for every group the caller cannot see', async () => {
    const cases: Array<[string, string]> = [
      [acme.discussionGroups['Board secrets'], TOKENS.alice], // private: hidden even from its owner
      [acme.discussionGroups['Board secrets'], TOKENS.admin], // private: hidden from its members
      [acme.discussionGroups['Ops circle'], TOKENS.admin], // members-only, not a member
      [acme.discussionGroups['Advisory board'], TOKENS.idle],
      [globex.discussionGroups['Globex board'], TOKENS.admin], // another workspace
      [acme.discussionGroups['Town hall'], TOKENS.globex],
      ['dgr_unknown', TOKENS.admin],
    ];
    for (const [groupId, token] of cases) {
      const res = await patchGroup(groupId, { name: 'Taken over' }, token);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'DISCUSSION_GROUP_NOT_FOUND', details: { groupId } });
    }
  });

  it('hides a group from every API call, its owner included, once made private', async () => {
    const { body } = await createGroup({ name: 'Going dark', visibility: 'workspace' }, TOKENS.alice);
    const groupId = body.group.groupId;
    const res = await patchGroup(groupId, { apiVisibility: 'private' }, TOKENS.alice);
    expect(res.status).toBe(200);
    expect(res.body.group.apiVisibility).toBe('private');
    expect(await listNames(TOKENS.alice)).not.toContain('Going dark');
    expect(await listNames(TOKENS.admin)).not.toContain('Going dark');
    const again = await patchGroup(groupId, { apiVisibility: 'visible' }, TOKENS.alice);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('DISCUSSION_GROUP_NOT_FOUND');
  });

  it('answers UNSUPPORTED_ACTION for an empty update and field codes for bad values', async () => {
    const { body } = await createGroup({ name: 'Strict' });
    const groupId = body.group.groupId;
    const empty = await patchGroup(groupId, {});
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('UNSUPPORTED_ACTION');
    const blank = await patchGroup(groupId, { name: ' ' });
    expect(blank.body).toMatchObject({ code: 'NAME_REQUIRED', details: { field: 'name' } });
    const nullName = await patchGroup(groupId, { name: null });
    expect(nullName.body).toMatchObject({ code: 'NAME_REQUIRED', details: { field: 'name' } });
    const member = await patchGroup(groupId, { memberIds: ['api-token:ghost'] });
    expect(member.body).toMatchObject({ code: 'OWNER_NOT_IN_WORKSPACE', details: { field: 'memberIds.0' } });
    const visibility = await patchGroup(groupId, { visibility: 'public' });
    expect(visibility.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'visibility' } });
    const unknown = await patchGroup(groupId, { ownerId: acme.users.bob });
    expect(unknown.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { unknownFields: ['ownerId'] } });
  });
});
