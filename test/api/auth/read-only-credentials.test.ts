import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceFileError } from '../../../src/modules/workspace-file/apply.js';
import { ACME, TOKENS } from '../../support/fixtures.js';
import { oatFor, patFor, startHarness, type CallOptions, type Harness } from '../../support/harness.js';
import { runWsx } from '../../support/cli.js';
import { countRows } from '../../support/database.js';

/**
 * Read-only credentials (`access: read`): a workspace token from the file, one from
 * `wsx token create --read-only` and an OAuth token read every route as before; every write
 * answers 403 TOKEN_READ_ONLY before its body is looked at, writes nothing and uses up no
 * Idempotency-Key; MCP lists them no write tool; discovery shows the level; `wsx apply`
 * changes it from the next request.
 */

const FILE_READER = patFor('reader');
const OAUTH_READER = oatFor('carol-reader');
const ws = ACME.workspace;

const READERS_FILE = {
  workspace: ws,
  tokens: [{ name: 'reader', secret: FILE_READER, projects: '*', access: 'read' }],
  oauthTokens: [{ user: 'carol', secret: OAUTH_READER, access: 'read' }],
};

let h: Harness;
let cliReader: string;
let issue: { issueId: string; title: string; version: number };
let commentId: string;

/** Runs one `wsx` command line against the harness database, answering what it printed. */
const wsx = (...args: string[]) => runWsx(h.database, args);

const api = (method: string, path: string, token: string, options: Omit<CallOptions, 'token'> = {}) =>
  h.call(method, `/api/external${path}`, { token, ...options });

/** What a refused write could have touched: rows of every table a write below would add to. */
async function footprint() {
  const count = (table: 'issues' | 'comments' | 'webhooks' | 'outbox_events' | 'idempotency_keys') =>
    countRows(h.database.db, table);
  return {
    issues: await count('issues'),
    comments: await count('comments'),
    webhooks: await count('webhooks'),
    events: await count('outbox_events'),
    idempotencyKeys: await count('idempotency_keys'),
  };
}

beforeAll(async () => {
  h = await startHarness([ACME, READERS_FILE]);
  const created = await wsx(
    'token',
    'create',
    '--workspace',
    'acme',
    '--name',
    'cli-reader',
    '--all-projects',
    '--read-only',
  );
  expect(created.code).toBe(0);
  expect(created.stdout).toContain('It can only read');
  cliReader = /svc_pat_[0-9A-Za-z]+/.exec(created.stdout)?.[0] as string;
  const made = await api('POST', '/issues', TOKENS.admin, {
    body: { projectKey: 'API', teamKey: 'ENG', title: 'Kept' },
  });
  expect(made.status).toBe(201);
  issue = made.body.issue;
  const comment = await api('POST', `/issues/${issue.issueId}/comments`, TOKENS.admin, { body: { body: 'Kept too' } });
  expect(comment.status).toBe(201);
  commentId = comment.body.comment.commentId;
});
afterAll(() => h.close());

const readers = () => ({ 'file token': FILE_READER, 'CLI token': cliReader, 'OAuth token': OAUTH_READER });

describe('discovery', () => {
  it('shows each credential its access level', async () => {
    for (const [label, token] of Object.entries(readers())) {
      expect((await api('GET', '', token)).body.access, label).toBe('read');
    }
    expect((await api('GET', '', TOKENS.admin)).body.access).toBe('write');
    expect((await api('GET', '', TOKENS.alice)).body.access).toBe('write');
  });

  it('lists the levels in `wsx token list`', async () => {
    const { tokens, oauthTokens } = JSON.parse((await wsx('token', 'list', '--workspace', 'acme', '--json')).stdout);
    const levelOf = (name: string) => tokens.find((t: { name: string }) => t.name === name).access;
    expect([levelOf('reader'), levelOf('cli-reader'), levelOf('admin')]).toEqual(['read', 'read', 'write']);
    const oauthLevels = oauthTokens.map((t: { user: string; access: string }) => [t.user, t.access]);
    expect(oauthLevels).toEqual(
      expect.arrayContaining([
        ['carol', 'read'],
        ['alice', 'write'],
      ]),
    );
  });
});

describe('reads', () => {
  it('answers every read as to a credential that may write', async () => {
    for (const [label, token] of Object.entries(readers())) {
      for (const path of ['/projects', `/issues/${issue.issueId}`, `/issues?projectKey=API&teamKey=ENG`, '/webhooks']) {
        const reply = await api('GET', path, token);
        expect(reply.status, `${label} GET ${path}`).toBe(200);
      }
      const read = await api('GET', `/issues/${issue.issueId}`, token);
      expect(read.body.issue.title, label).toBe('Kept');
    }
  });
});

describe('writes', () => {
  const json = { 'content-type': 'application/json' };
  /** Each write twice: a body it would accept, and one it would refuse (or no JSON at all). */
  const writes = (): Array<[string, string, Omit<CallOptions, 'token'>]> => [
    ['POST', '/issues', { body: { projectKey: 'API', teamKey: 'ENG', title: 'Never' } }],
    ['POST', '/issues', { body: { title: 42, unknown: true } }],
    ['PATCH', `/issues/${issue.issueId}`, { body: { title: 'Renamed' } }],
    ['PATCH', `/issues/${issue.issueId}`, { body: '{not json', headers: json }],
    ['PATCH', '/issues/iss_missing', { body: { title: 'Renamed' } }],
    ['DELETE', `/issues/${issue.issueId}/comments/${commentId}`, {}],
    ['POST', '/webhooks', { body: { url: 'https://hooks.example.com/wsx', events: ['*'] } }],
    ['POST', '/webhooks', { body: { url: 'not a url', events: 'all' } }],
    ['POST', '/issues/bulk', { body: { issues: [{ projectKey: 'API', teamKey: 'ENG', title: 'Bulk' }] } }],
    ['PATCH', '/issues/bulk', { body: { issues: [{ issueId: issue.issueId, title: 'Bulk rename' }] } }],
    ['POST', '/issues/bulk', { body: 'text, not JSON', headers: { 'content-type': 'text/plain' } }],
  ];

  it('refuses every write with the same 403 TOKEN_READ_ONLY and writes nothing', async () => {
    const before = await footprint();
    let baseline: unknown;
    for (const [label, token] of Object.entries(readers())) {
      for (const [method, path, options] of writes()) {
        const reply = await api(method, path, token, options);
        expect(reply.status, `${label} ${method} ${path}`).toBe(403);
        expect(reply.body.code).toBe('TOKEN_READ_ONLY');
        baseline ??= reply.body;
        expect(reply.body).toEqual(baseline);
      }
    }
    expect(await footprint()).toEqual(before);
    const read = await api('GET', `/issues/${issue.issueId}`, TOKENS.admin);
    expect(read.body.issue).toMatchObject({ title: 'Kept', version: issue.version });
    const comments = await api('GET', `/issues/${issue.issueId}/comments`, TOKENS.admin);
    expect(comments.body.comments.map((c: { commentId: string }) => c.commentId)).toContain(commentId);
    expect((await api('GET', '/webhooks', TOKENS.admin)).body.webhooks).toEqual([]);
  });

  it('still answers an unknown route as ROUTE_NOT_FOUND: the route is decided before the level', async () => {
    const reply = await api('DELETE', '/meetings/settings', FILE_READER);
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('ROUTE_NOT_FOUND');
  });

  it('does not use up the Idempotency-Key of a refused write', async () => {
    const name = 'keyed-reader';
    const secret = patFor(name);
    await h.apply({ workspace: ws, tokens: [{ name, secret, projects: '*', access: 'read' }] });
    const request = {
      body: { projectKey: 'API', teamKey: 'ENG', title: 'Keyed' },
      headers: { 'idempotency-key': 'read-only-then-write' },
    };
    expect((await api('POST', '/issues', secret, request)).status).toBe(403);
    await h.apply({ workspace: ws, tokens: [{ name, access: 'write' }] });
    const created = await api('POST', '/issues', secret, request);
    expect(created.status).toBe(201);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('MCP', () => {
  const WRITE_TOOLS = ['create_issue', 'update_issue', 'delete_comment', 'create_webhook', 'bulk_create_issues'];

  /** One JSON-RPC message to /api/mcp (every tool set); `mcp` answers its `result`. */
  const post = (token: string, method: string, params: Record<string, unknown>) =>
    h.app.inject({
      method: 'POST',
      url: '/api/mcp?toolsets=all',
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
    });
  async function mcp(token: string, method: string, params: Record<string, unknown>) {
    const reply = await post(token, method, params);
    expect(reply.statusCode).toBe(200);
    return JSON.parse(reply.body).result;
  }
  const writeCalls = (): Array<[string, Record<string, unknown>]> => [
    ['create_issue', { projectKey: 'API', teamKey: 'ENG', title: 'Never over MCP' }],
    ['update_issue', { issueId: issue.issueId, title: 'Renamed over MCP' }],
    ['delete_comment', { issueId: issue.issueId, commentId }],
  ];

  it('lists no write tool to a read-only workspace token and answers its write calls TOKEN_READ_ONLY', async () => {
    const all = (await mcp(TOKENS.admin, 'tools/list', {})).tools.map((tool: { name: string }) => tool.name);
    expect(all).toEqual(expect.arrayContaining(WRITE_TOOLS));
    const before = await footprint();
    const workspaceTokens = Object.entries(readers()).filter(([label]) => label !== 'OAuth token');
    for (const [label, token] of workspaceTokens) {
      const names = (await mcp(token, 'tools/list', {})).tools.map((tool: { name: string }) => tool.name);
      expect(names, label).toEqual(expect.arrayContaining(['whoami', 'list_issues', 'get_issue']));
      for (const name of WRITE_TOOLS) expect(names, `${label} ${name}`).not.toContain(name);
      for (const [name, args] of writeCalls()) {
        const result = await mcp(token, 'tools/call', { name, arguments: args });
        expect(result, `${label} ${name}`).toMatchObject({
          isError: true,
          structuredContent: { code: 'TOKEN_READ_ONLY' },
        });
      }
    }
    expect(await footprint()).toEqual(before);
  });

  it('lists the write tools to a read-scoped OAuth token and asks it to step up (403 insufficient_scope) on a write', async () => {
    const names = (await mcp(OAUTH_READER, 'tools/list', {})).tools.map((tool: { name: string }) => tool.name);
    expect(names).toEqual(expect.arrayContaining(WRITE_TOOLS));
    const before = await footprint();
    for (const [name, args] of writeCalls()) {
      const reply = await post(OAUTH_READER, 'tools/call', { name, arguments: args });
      expect(reply.statusCode, name).toBe(403);
      expect(reply.headers['www-authenticate']).toMatch(/^Bearer /);
      expect(reply.headers['www-authenticate']).toContain('error="insufficient_scope"');
      expect(reply.headers['www-authenticate']).toContain('scope="write"');
    }
    expect(await footprint()).toEqual(before);
    const read = await mcp(OAUTH_READER, 'tools/call', { name: 'get_issue', arguments: { issueId: issue.issueId } });
    expect(read.isError).toBeUndefined();
  });
});

describe('changing the level with wsx apply', () => {
  it('lets a token write from the next request once the file says write, and refuses again once it says read', async () => {
    const create = (token: string) =>
      api('POST', '/issues', token, { body: { projectKey: 'API', teamKey: 'ENG', title: 'Switched' } });
    expect((await create(FILE_READER)).status).toBe(403);
    await h.apply({ workspace: ws, tokens: [{ name: 'reader', access: 'write' }] });
    expect((await api('GET', '', FILE_READER)).body.access).toBe('write');
    expect((await create(FILE_READER)).status).toBe(201);
    await h.apply({ workspace: ws, tokens: [{ name: 'reader', access: 'read' }] });
    expect((await create(FILE_READER)).status).toBe(403);
  });

  it('switches an OAuth token by its secret, and every token of a user without one', async () => {
    const create = (token: string) =>
      api('POST', '/issues', token, { body: { projectKey: 'API', teamKey: 'ENG', title: 'OAuth switched' } });
    await h.apply({ workspace: ws, oauthTokens: [{ user: 'carol', secret: OAUTH_READER, access: 'write' }] });
    expect((await create(OAUTH_READER)).status).toBe(201);
    await h.apply({ workspace: ws, oauthTokens: [{ user: 'carol', access: 'read' }] });
    expect((await create(OAUTH_READER)).status).toBe(403);
  });

  it('keeps the stored level when the file leaves access out', async () => {
    await h.apply({ workspace: ws, tokens: [{ name: 'reader', projects: '*' }] });
    expect((await api('GET', '', FILE_READER)).body.access).toBe('read');
  });

  it('refuses a level other than read or write, naming the entry, and changes nothing', async () => {
    const cases: Array<[object, string]> = [
      [{ tokens: [{ name: 'reader', access: 'admin' }] }, 'tokens[0].access: must be read or write (got "admin")'],
      [
        { oauthTokens: [{ user: 'carol', secret: OAUTH_READER, access: true }] },
        'oauthTokens[0].access: must be read or write (got true)',
      ],
    ];
    for (const [sections, message] of cases) {
      const applying = h.apply({ workspace: ws, ...sections });
      await expect(applying).rejects.toThrow(WorkspaceFileError);
      await expect(applying).rejects.toThrow(message);
    }
    expect((await api('GET', '', FILE_READER)).body.access).toBe('read');
    expect((await api('GET', '', OAUTH_READER)).body.access).toBe('read');
  });
});
