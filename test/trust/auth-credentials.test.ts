import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceFileError } from '../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../support/fixtures.js';
import { challengeOf, oatFor, patFor, startHarness, type Harness } from '../support/harness.js';
import { runWsx } from '../support/cli.js';

/**
 * Credentials that can be taken back: OAuth tokens revoked in the workspace file or with
 * `wsx token revoke`, expiry on both kinds of token, OAuth tokens in `wsx token list`, and
 * file-given secrets that must be strong.
 */

let h: Harness;
let acme: Awaited<ReturnType<Harness['apply']>>;
let unauthorized: unknown;

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
  unauthorized = (await h.call('GET', '/api/external')).body;
});
afterAll(() => h.close());

const ws = ACME.workspace;
const users = ACME.users;

/** Runs one `wsx` command line against the harness database. */
const wsx = (...args: string[]) => runWsx(h.database, args);

/** The reply to GET /api/external with `secret`: 200, or the one 401 every bad credential gets. */
async function expectAccepted(secret: string) {
  const reply = await h.call('GET', '/api/external', { token: secret });
  expect(reply.status).toBe(200);
  return reply;
}
async function expectRefused(secret: string) {
  const forms: Array<Record<string, string>> = [{ authorization: `Bearer ${secret}` }, { 'x-api-key': secret }];
  for (const headers of forms) {
    const reply = await h.call('GET', '/api/external/projects', { headers });
    expect(reply.status).toBe(401);
    expect(reply.headers['www-authenticate']).toBe(challengeOf('/api/external'));
    expect(reply.body).toEqual(unauthorized);
  }
  // The MCP door refuses it the same way.
  const mcp = await h.call('POST', '/api/mcp', {
    token: secret,
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    headers: { accept: 'application/json, text/event-stream' },
  });
  expect(mcp.status).toBe(401);
  expect(mcp.body).toEqual(unauthorized);
}

const PAST = '2020-01-01T00:00:00Z';
const FUTURE = '2999-12-31T23:59:59Z';

describe('OAuth tokens in the workspace file', () => {
  it('revokes one OAuth token with active: false on its entry, from the next request on', async () => {
    const secret = oatFor('carol-laptop');
    const other = oatFor('carol-phone');
    await h.apply({
      workspace: ws,
      users,
      oauthTokens: [
        { user: 'carol', secret },
        { user: 'carol', secret: other },
      ],
    });
    await expectAccepted(secret);

    const result = await h.apply({ workspace: ws, users, oauthTokens: [{ user: 'carol', secret, active: false }] });
    expect(result.oauthTokens.carol).toBe(secret);
    await expectRefused(secret);
    await expectAccepted(other);

    // Applying the file again changes nothing; leaving active out keeps the token revoked.
    await h.apply({ workspace: ws, users, oauthTokens: [{ user: 'carol', secret, active: false }] });
    await h.apply({ workspace: ws, users, oauthTokens: [{ user: 'carol', secret }] });
    await expectRefused(secret);

    // active: true with the secret brings that token back.
    await h.apply({ workspace: ws, users, oauthTokens: [{ user: 'carol', secret, active: true }] });
    await expectAccepted(secret);
  });

  it('revokes every OAuth token of a user with { user, active: false }, and never re-activates them without a secret', async () => {
    const first = oatFor('bob-1');
    const second = oatFor('bob-2');
    await h.apply({
      workspace: ws,
      users,
      oauthTokens: [
        { user: 'bob', secret: first },
        { user: 'bob', secret: second },
      ],
    });
    await expectAccepted(first);

    const result = await h.apply({ workspace: ws, users, oauthTokens: [{ user: 'bob', active: false }] });
    expect(result.oauthTokens.bob).toBeNull();
    await expectRefused(first);
    await expectRefused(second);

    // { user } alone: the user has tokens (revoked ones), so nothing is generated or re-activated.
    expect((await h.apply({ workspace: ws, users, oauthTokens: [{ user: 'bob' }] })).oauthTokens.bob).toBeNull();
    await expectRefused(first);

    // { user, active: true }: a new token when the user has no active one; the revoked secrets stay revoked.
    const fresh = (await h.apply({ workspace: ws, users, oauthTokens: [{ user: 'bob', active: true }] })).oauthTokens
      .bob;
    expect(fresh).toMatch(/^svc_oat_[0-9A-Za-z]{40}$/);
    await expectAccepted(fresh as string);
    await expectRefused(first);
    await expectRefused(second);
    expect(
      (await h.apply({ workspace: ws, users, oauthTokens: [{ user: 'bob', active: true }] })).oauthTokens.bob,
    ).toBeNull();
  });

  it('refuses a token another workspace holds, and an unknown key, naming the entry', async () => {
    await expect(
      h.apply({
        workspace: GLOBEX.workspace,
        users: GLOBEX.users,
        oauthTokens: [{ user: 'gina', secret: TOKENS.alice, active: false }],
      }),
    ).rejects.toThrow('oauthTokens[0].secret: is already used by another credential');
    await expectAccepted(TOKENS.alice);
    await expect(h.apply({ workspace: ws, oauthTokens: [{ user: 'alice', revoked: true }] })).rejects.toThrow(
      /^oauthTokens\[0\]\.revoked: unknown key/,
    );
    await expect(h.apply({ workspace: ws, oauthTokens: [{ user: 'alice', active: 'no' }] })).rejects.toThrow(
      'oauthTokens[0].active: must be true or false',
    );
  });
});

describe('expiry', () => {
  it('refuses a workspace token past its expiresAt with the same 401, and accepts it before', async () => {
    const secret = patFor('expiring');
    await h.apply({ workspace: ws, tokens: [{ name: 'expiring', secret, projects: '*', expiresAt: FUTURE }] });
    await expectAccepted(secret);
    await h.apply({ workspace: ws, tokens: [{ name: 'expiring', expiresAt: PAST }] });
    await expectRefused(secret);
    // A later expiry in the file lifts it; leaving expiresAt out keeps the stored one.
    await h.apply({ workspace: ws, tokens: [{ name: 'expiring', expiresAt: '2999-01-01T00:00:00+02:00' }] });
    await h.apply({ workspace: ws, tokens: [{ name: 'expiring' }] });
    await expectAccepted(secret);
  });

  it('treats an expired token as inactive in the user directory and as an assignee', async () => {
    await h.apply({
      workspace: ws,
      tokens: [{ name: 'lapsed-agent', secret: patFor('lapsed-agent'), projects: '*', expiresAt: FUTURE }],
    });
    const agentOf = async () =>
      (await h.call('GET', '/api/external/users', { token: patFor('admin') })).body.automationAgents.find(
        (a: { name: string }) => a.name === 'lapsed-agent',
      );
    expect(await agentOf()).toMatchObject({ userId: 'api-token:lapsed-agent', active: true });
    const assign = () =>
      h.call('POST', '/api/external/issues', {
        token: patFor('admin'),
        body: { title: 'For the agent', projectId: acme.projects['ENG/API'], assigneeId: 'api-token:lapsed-agent' },
      });
    expect((await assign()).status).toBe(201);

    await h.apply({ workspace: ws, tokens: [{ name: 'lapsed-agent', expiresAt: PAST }] });
    expect(await agentOf()).toMatchObject({ active: false });
    const refused = await assign();
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('ASSIGNEE_NOT_IN_WORKSPACE');
  });

  it("refuses an OAuth token past its expiresAt, by secret or for all of a user's tokens", async () => {
    const secret = oatFor('dave-expiring');
    const files = (oauthTokens: object[]) => ({
      workspace: ws,
      users: [...users, { handle: 'dave', name: 'Dave' }],
      oauthTokens,
    });
    await h.apply(files([{ user: 'dave', secret, expiresAt: FUTURE }]));
    await expectAccepted(secret);
    await h.apply(files([{ user: 'dave', secret, expiresAt: PAST }]));
    await expectRefused(secret);
    await h.apply(files([{ user: 'dave', expiresAt: FUTURE }]));
    await expectAccepted(secret);
    await h.apply(files([{ user: 'dave', expiresAt: PAST }]));
    await expectRefused(secret);
  });

  it('refuses an expiresAt that is not an ISO datetime with an offset, naming the field', async () => {
    for (const expiresAt of ['tomorrow', '2026-13-01T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00', 42]) {
      const error = await h
        .apply({ workspace: ws, tokens: [{ name: 'bad-expiry', expiresAt }] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkspaceFileError);
      expect((error as Error).message).toMatch(/^tokens\[0\]\.expiresAt: must be an ISO 8601 datetime with an offset/);
      const oauth = await h
        .apply({ workspace: ws, oauthTokens: [{ user: 'alice', expiresAt }] })
        .catch((e: unknown) => e);
      expect((oauth as Error).message).toMatch(
        /^oauthTokens\[0\]\.expiresAt: must be an ISO 8601 datetime with an offset/,
      );
    }
    expect((await wsx('token', 'list', '--workspace', 'acme', '--json')).stdout).not.toContain('bad-expiry');
  });

  it('creates a token with `token create --expires-at`, shown in `token list`', async () => {
    const created = await wsx(
      'token',
      'create',
      '--workspace',
      'acme',
      '--name',
      'temporary',
      '--all-projects',
      '--expires-at',
      '2999-06-30T12:00:00+02:00',
      '--json',
    );
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(body).toEqual({
      name: 'temporary',
      secret: expect.stringMatching(/^svc_pat_/),
      assigneeId: 'api-token:temporary',
      access: 'write',
      expiresAt: '2999-06-30T10:00:00.000Z',
    });
    await expectAccepted(body.secret);

    const listed = JSON.parse((await wsx('token', 'list', '--workspace', 'acme', '--json')).stdout);
    expect(listed.tokens.find((t: { name: string }) => t.name === 'temporary')).toMatchObject({
      active: true,
      expiresAt: '2999-06-30T10:00:00.000Z',
    });
    expect(listed.tokens.find((t: { name: string }) => t.name === 'admin').expiresAt).toBeUndefined();

    const readable = await wsx(
      'token',
      'create',
      '--workspace',
      'acme',
      '--name',
      'temporary-2',
      '--project',
      'ENG/API',
      '--expires-at',
      FUTURE,
    );
    expect(readable.stdout).toContain('It expires at 2999-12-31T23:59:59.000Z.');

    // Made to expire in the file, it is refused at once.
    await h.apply({ workspace: ws, tokens: [{ name: 'temporary', expiresAt: PAST }] });
    await expectRefused(body.secret);
    const table = (await wsx('token', 'list', '--workspace', 'acme')).stdout;
    expect(table).toMatch(/\ntemporary\s+expired\s+\*\s/);
    expect(table).toMatch(/\ntemporary-2\s+until 2999-12-31T23:59:59\.000Z\s+ENG\/API\s/);
  });

  it('refuses `token create --expires-at` in the past or malformed, creating nothing', async () => {
    for (const [value, message] of [
      [PAST, 'must be in the future'],
      ['next week', 'must be an ISO 8601 datetime with an offset'],
    ]) {
      const result = await wsx(
        'token',
        'create',
        '--workspace',
        'acme',
        '--name',
        'never-made',
        '--all-projects',
        '--expires-at',
        value,
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    }
    expect((await wsx('token', 'list', '--workspace', 'acme', '--json')).stdout).not.toContain('never-made');
  });
});

describe('wsx token revoke and list for OAuth tokens', () => {
  it('lists OAuth tokens with their user and state, never a secret or its hash', async () => {
    const listed = await wsx('token', 'list', '--workspace', 'acme', '--json');
    expect(listed.code).toBe(0);
    const { oauthTokens } = JSON.parse(listed.stdout);
    const alice = oauthTokens.filter((t: { user: string }) => t.user === 'alice');
    expect(alice).toEqual([
      {
        id: expect.stringMatching(/^oat_/),
        user: 'alice',
        active: true,
        access: 'write',
        createdAt: expect.any(String),
      },
    ]);
    expect(listed.stdout).not.toContain(TOKENS.alice);
    expect(listed.stdout).not.toMatch(/[0-9a-f]{64}/);

    const table = (await wsx('token', 'list', '--workspace', 'acme')).stdout;
    expect(table).toMatch(/\nOAUTH TOKEN\s+USER\s+ACTIVE\s+ACCESS\s+CREATED\n/);
    expect(table).toMatch(new RegExp(`\\n${alice[0].id}\\s+alice\\s+yes\\s`));
    expect(table).not.toContain('svc_oat_');
  });

  it('revokes every OAuth token of a user with --oauth-user, from the next request on', async () => {
    const secret = oatFor('erin');
    await h.apply({
      workspace: ws,
      users: [{ handle: 'erin', name: 'Erin' }],
      oauthTokens: [{ user: 'erin', secret }],
    });
    await expectAccepted(secret);
    const revoked = await wsx('token', 'revoke', '--workspace', 'acme', '--oauth-user', 'erin');
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(revoked.stdout).toBe(
      'Revoked 1 OAuth token of user "erin" in workspace "acme"; requests with it are refused from now on.',
    );
    await expectRefused(secret);
    const { oauthTokens } = JSON.parse((await wsx('token', 'list', '--workspace', 'acme', '--json')).stdout);
    expect(oauthTokens.filter((t: { user: string }) => t.user === 'erin')).toEqual([
      expect.objectContaining({ active: false }),
    ]);
    // Again: nothing left to revoke, still a success.
    expect((await wsx('token', 'revoke', '--workspace', 'acme', '--oauth-user', 'erin')).stdout).toMatch(
      /^Revoked 0 OAuth tokens of user "erin"/,
    );
  });

  it('revokes one OAuth token by its id with --oauth-token', async () => {
    const kept = oatFor('frank-kept');
    const dropped = oatFor('frank-dropped');
    await h.apply({
      workspace: ws,
      users: [{ handle: 'frank', name: 'Frank' }],
      oauthTokens: [
        { user: 'frank', secret: kept },
        { user: 'frank', secret: dropped },
      ],
    });
    const rows = await h.database.db
      .selectFrom('oauth_tokens')
      .select(['id', 'secret_hash'])
      .where(
        'user_id',
        '=',
        (await h.apply({ workspace: ws, users: [{ handle: 'frank', name: 'Frank' }] })).users.frank,
      )
      .orderBy('id')
      .execute();
    expect(rows).toHaveLength(2);
    const { oauthTokens } = JSON.parse((await wsx('token', 'list', '--workspace', 'acme', '--json')).stdout);
    const frankIds = oauthTokens
      .filter((t: { user: string }) => t.user === 'frank')
      .map((t: { id: string }) => t.id)
      .sort();
    expect(frankIds).toEqual(rows.map((row) => row.id));

    // Which id is which secret: revoke the first, then see which secret stops.
    const result = await wsx('token', 'revoke', '--workspace', 'acme', '--oauth-token', frankIds[0]);
    expect(result.stdout).toBe(
      `Revoked OAuth token ${frankIds[0]} of user "frank" in workspace "acme"; requests with it are refused from now on.`,
    );
    const keptOk = (await h.call('GET', '/api/external', { token: kept })).status;
    const droppedOk = (await h.call('GET', '/api/external', { token: dropped })).status;
    expect([keptOk, droppedOk].sort()).toEqual([200, 401]);
  });

  it("refuses unknown users, unknown ids, other workspaces' tokens and ambiguous options with exit code 1", async () => {
    const acmeToken = await h.database.db
      .selectFrom('oauth_tokens')
      .select('id')
      .where('workspace_id', '=', acme.workspaceId)
      .executeTakeFirstOrThrow();
    const cases: Array<[string[], string]> = [
      [['--workspace', 'acme', '--oauth-user', 'ghost'], 'no user "ghost" in workspace "acme"'],
      [
        ['--workspace', 'acme', '--oauth-user', 'carol', '--name', 'bot'],
        'give only one of --name, --oauth-user and --oauth-token',
      ],
      [['--workspace', 'acme', '--oauth-token', 'oat_nope'], 'no OAuth token "oat_nope" in workspace "acme"'],
      [
        ['--workspace', 'globex', '--oauth-token', acmeToken.id],
        `no OAuth token "${acmeToken.id}" in workspace "globex"`,
      ],
      [['--workspace', 'acme'], "required option '--name <name>' not specified"],
    ];
    for (const [args, message] of cases) {
      const result = await wsx('token', 'revoke', ...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    }
    await expectAccepted(TOKENS.alice);
    // A user without any OAuth token: nothing to revoke is an error, not a silent success.
    const none = await wsx('token', 'revoke', '--workspace', 'globex', '--oauth-user', 'gina');
    expect(none).toMatchObject({ code: 1, stderr: 'wsx: user "gina" has no OAuth token in workspace "globex"' });
  });

  it('documents the OAuth options in --help', async () => {
    const help = (await wsx('token', 'revoke', '--help')).stdout;
    expect(help).toContain('--oauth-user <handle>');
    expect(help).toContain('--oauth-token <id>');
    expect((await wsx('token', 'create', '--help')).stdout).toContain('--expires-at <datetime>');
  });
});

describe('strength of secrets given in the workspace file', () => {
  const weak: Array<[string, string]> = [
    ['one character', `svc_pat_${'A'.repeat(40)}`],
    ['two characters alternating', `svc_pat_${'aB'.repeat(30)}`],
    ['a long run of one character', `svc_pat_${'x'.repeat(10)}Q7pL2mZ9rT4vW8kN1cY6bH3jF5dS0gE`],
    ['a run of consecutive characters', 'svc_pat_abcdefghijklmnopqrstuvwxyzABCDEF'],
    ['few different characters', 'svc_pat_0123401234012340123401234012345566'],
    ['32 hex characters', 'svc_pat_9f86d081884c7d659a2feaa0c55ad015'],
  ];

  it.each(weak)('refuses a workspace token secret with %s, naming the token', async (_label, secret) => {
    const error = await h.apply({ workspace: ws, tokens: [{ name: 'weak-one', secret }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceFileError);
    expect((error as Error).message).toMatch(/^tokens\[0\]\.secret: too weak for token "weak-one": /);
    expect((await wsx('token', 'list', '--workspace', 'acme', '--json')).stdout).not.toContain('weak-one');
  });

  it.each(weak)('refuses an OAuth token secret with %s, naming the user', async (_label, secret) => {
    const oat = secret.replace('svc_pat_', 'svc_oat_');
    const error = await h
      .apply({ workspace: ws, oauthTokens: [{ user: 'alice', secret: oat }] })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^oauthTokens\[0\]\.secret: too weak for the OAuth token of "alice": /);
    expect((await h.call('GET', '/api/external', { token: oat })).status).toBe(401);
  });

  it('accepts generated secrets, 64 hex characters and 32 random base62 characters', async () => {
    const strong = [
      patFor('strong'),
      'svc_pat_Q7pL2mZ9rT4vW8kN1cY6bH3jF5dS0gEa',
      'svc_pat_3hJ9kQ2xV7mN4pL8rT1wZ6cB5dF0gHsY9u',
    ];
    for (const [index, secret] of strong.entries()) {
      await h.apply({ workspace: ws, tokens: [{ name: `strong-${index}`, secret, projects: '*' }] });
      await expectAccepted(secret);
    }
    const generated = await h.apply({ workspace: ws, tokens: [{ name: 'generated' }] });
    expect(generated.tokens.generated).toMatch(/^svc_pat_/);
  });
});
