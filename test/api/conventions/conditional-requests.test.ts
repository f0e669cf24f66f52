import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * Conditional requests: ETags and 304 on reads and lists, If-Match and 412 on writes of
 * versioned records, and MCP's expectedVersion.
 */

let h: Harness;
let projects: Record<string, string>;
const admin = { token: TOKENS.admin };

const newIssue = async (title: string) => {
  const reply = await h.call('POST', '/api/external/issues', {
    ...admin,
    body: { title, projectId: projects['ENG/API'] },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.issue as { issueId: string; issueKey: string; version: number };
};
const get = (url: string, headers: Record<string, string> = {}, token = TOKENS.admin) =>
  h.call('GET', url, { token, headers });
const patch = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  h.call('PATCH', url, { ...admin, body, headers });

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  projects = (await h.apply(ACME)).projects;
});
afterAll(() => h.close());

describe('ETag and If-None-Match', () => {
  it('answers a record with an ETag made from its version, and 304 while it is unchanged', async () => {
    const issue = await newIssue('Cache me');
    expect(issue.version).toBe(1);
    const first = await get(`/api/external/issues/${issue.issueId}`);
    expect(first.status).toBe(200);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"1-[A-Za-z0-9_-]+"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');

    const again = await get(`/api/external/issues/${issue.issueId}`, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect(again.headers.etag).toBe(etag);
    // Weak comparison, lists of tags and the by-key route answer the same.
    expect((await get(`/api/external/issues/${issue.issueId}`, { 'If-None-Match': `"x", W/${etag}` })).status).toBe(
      304,
    );
    const byKey = await get(`/api/external/issues/by-key/${issue.issueKey}`, { 'If-None-Match': etag });
    expect(byKey.status).toBe(304);

    await patch(`/api/external/issues/${issue.issueId}`, { priority: 'high' });
    const changed = await get(`/api/external/issues/${issue.issueId}`, { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.body.issue.version).toBe(2);
    expect(changed.body.issue.priority).toBe('high');
    expect(String(changed.headers.etag)).toMatch(/^"2-/);
  });

  it('answers a list with an ETag, 304 while nothing in it changed, 200 after any change', async () => {
    const issue = await newIssue('Listed');
    const url = `/api/external/issues?projectId=${projects['ENG/API']}&limit=100`;
    const first = await get(url);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await get(url, { 'If-None-Match': etag })).status).toBe(304);

    await patch(`/api/external/issues/${issue.issueKey}`, { description: 'now described' });
    const after = await get(url, { 'If-None-Match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    expect((await get(url, { 'If-None-Match': String(after.headers.etag) })).status).toBe(304);

    await newIssue('Another one');
    expect((await get(url, { 'If-None-Match': String(after.headers.etag) })).status).toBe(200);
  });

  it('gives two credentials that see the same the same ETag, and one that sees less another', async () => {
    await newIssue('Shared view');
    const url = '/api/external/issues?limit=100';
    const byAdmin = await get(url);
    const byAlice = await get(url, {}, TOKENS.alice);
    expect(byAlice.body).toEqual(byAdmin.body);
    expect(byAlice.headers.etag).toBe(byAdmin.headers.etag);

    const projectUrl = `/api/external/projects/${projects['ENG/API']}`;
    expect((await get(projectUrl, {}, TOKENS.bot)).headers.etag).toBe((await get(projectUrl)).headers.etag);
    const list = '/api/external/projects';
    expect((await get(list, {}, TOKENS.bot)).headers.etag).not.toBe((await get(list)).headers.etag);
  });
  // Small answers go out as the JSON string, large ones as its bytes (src/http/operations.ts,
  // STRING_BODY_MAX); either way the tag is the hash of exactly the bytes sent.
  it('hashes the bytes it sends, for a small answer and a large one, with text beyond ASCII', async () => {
    const title = 'Café ✓ 東京 😀 tag';
    const small = await newIssue(title);
    const large = await newIssue(title);
    const description = 'Überprüfung 検査 🚀 '.repeat(600);
    expect((await patch(`/api/external/issues/${large.issueId}`, { description })).status).toBe(200);
    for (const [url, minimum, maximum] of [
      [`/api/external/issues/${small.issueId}`, 1, 8192],
      [`/api/external/issues/${large.issueId}`, 8193, Infinity],
    ] as const) {
      const reply = await h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${TOKENS.admin}` } });
      expect(reply.statusCode).toBe(200);
      const bytes = reply.rawPayload;
      const text = bytes.toString('utf8');
      expect(text.length).toBeGreaterThanOrEqual(minimum);
      expect(text.length).toBeLessThanOrEqual(maximum);
      expect(Number(reply.headers['content-length'])).toBe(bytes.length);
      expect(JSON.parse(text).issue.title).toBe(title);
      const digest = createHash('sha256').update(bytes).digest('base64url').slice(0, 22);
      expect(reply.headers.etag).toMatch(new RegExp(`^"\\d+-${digest}"$`));
    }
  });
});

describe('If-Match on writes', () => {
  it('writes when the version matches and refuses a stale one with 412, writing nothing', async () => {
    const issue = await newIssue('Guarded');
    const read = await get(`/api/external/issues/${issue.issueId}`);
    const etag = String(read.headers.etag);

    const ok = await patch(`/api/external/issues/${issue.issueId}`, { title: 'Guarded v2' }, { 'If-Match': etag });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.issue.version).toBe(2);
    expect(String(ok.headers.etag)).toMatch(/^"2-/);
    // The answer's ETag is the one a read now answers.
    expect((await get(`/api/external/issues/${issue.issueId}`)).headers.etag).toBe(ok.headers.etag);

    const stale = await patch(`/api/external/issues/${issue.issueId}`, { title: 'Lost update' }, { 'If-Match': etag });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('PRECONDITION_FAILED');
    expect(stale.body.details.currentVersion).toBe(2);
    expect(stale.body.details.current).toMatchObject({ issueId: issue.issueId, title: 'Guarded v2', version: 2 });
    const now = (await get(`/api/external/issues/${issue.issueId}`)).body.issue;
    expect(now).toMatchObject({ title: 'Guarded v2', version: 2 });
    // No title-history entry was recorded for the refused change either.
    const history = await get(`/api/external/issues/${issue.issueId}/evolve`);
    expect(JSON.stringify(history.body)).not.toContain('Lost update');
  });

  it('takes a bare version, * and a list of tags; a weak or list tag never matches', async () => {
    const issue = await newIssue('Forms');
    const url = `/api/external/issues/${issue.issueKey}`;
    expect((await patch(url, { priority: 'low' }, { 'If-Match': '"1"' })).status).toBe(200);
    expect((await patch(url, { priority: 'high' }, { 'If-Match': '"9", "2-abc"' })).status).toBe(200);
    expect((await patch(url, { priority: 'low' }, { 'If-Match': '*' })).status).toBe(200);
    expect((await patch(url, { priority: 'high' }, { 'If-Match': 'W/"4"' })).status).toBe(412);
    expect((await patch(url, { priority: 'high' }, { 'If-Match': '"abcdef"' })).status).toBe(412);
  });

  it('refuses a malformed If-Match, and If-Match on a route that changes no versioned record', async () => {
    const issue = await newIssue('Malformed');
    const bad = await patch(`/api/external/issues/${issue.issueId}`, { priority: 'low' }, { 'If-Match': '4' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    expect(bad.body.details.field).toBe('If-Match');
    expect((await get(`/api/external/issues/${issue.issueId}`)).body.issue.version).toBe(1);

    const comment = await h.call('POST', `/api/external/issues/${issue.issueId}/comments`, {
      ...admin,
      body: { body: 'hello' },
    });
    expect(comment.status).toBe(201);
    const unversioned = await h.call(
      'DELETE',
      `/api/external/issues/${issue.issueId}/comments/${comment.body.comment.commentId}`,
      { ...admin, headers: { 'If-Match': '"1"' } },
    );
    expect(unversioned.status).toBe(400);
    expect(unversioned.body.details.field).toBe('If-Match');
  });

  it('lets one of two concurrent writes with the same If-Match win; the other gets 412', async () => {
    const issue = await newIssue('Race');
    const etag = String((await get(`/api/external/issues/${issue.issueId}`)).headers.etag);
    const replies = await Promise.all(
      ['Racer A', 'Racer B'].map((title) =>
        patch(`/api/external/issues/${issue.issueId}`, { title }, { 'If-Match': etag }),
      ),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 412]);
    const winner = replies.find((r) => r.status === 200)!.body.issue.title;
    const loser = replies.find((r) => r.status === 412)!;
    expect(loser.body.details.current.title).toBe(winner);
    expect((await get(`/api/external/issues/${issue.issueId}`)).body.issue).toMatchObject({
      title: winner,
      version: 2,
    });
  });

  it('guards a DELETE: a stale version keeps the record, the current one deletes it', async () => {
    const issue = await newIssue('Parent');
    const created = await h.call('POST', `/api/external/issues/${issue.issueId}/subtasks`, {
      ...admin,
      body: { title: 'Check' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const url = `/api/external/issues/${issue.issueId}/subtasks/${created.body.subtask.subtaskId}`;
    const etag = String((await get(url)).headers.etag);
    await patch(url, { title: 'Check twice' });

    const stale = await h.call('DELETE', url, { ...admin, headers: { 'If-Match': etag } });
    expect(stale.status).toBe(412);
    expect(stale.body.details.current.title).toBe('Check twice');
    expect((await get(url)).status).toBe(200);

    const current = String((await get(url)).headers.etag);
    expect((await h.call('DELETE', url, { ...admin, headers: { 'If-Match': current } })).status).toBe(204);
    expect((await get(url)).status).toBe(404);
  });

  it('answers the not-found code, not 412, for a record the caller cannot see', async () => {
    const issue = await newIssue('Hidden from globex');
    const reply = await h.call('PATCH', `/api/external/issues/${issue.issueId}`, {
      token: TOKENS.globex,
      body: { title: 'x' },
      headers: { 'If-Match': '"1"' },
    });
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('ISSUE_NOT_FOUND');
  });
});

describe('expectedVersion over MCP', () => {
  let client: Client;
  type ToolResult = { structuredContent: any; isError?: boolean };
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolResult;

  beforeAll(async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    // delete_subtask is outside the default toolset.
    const endpoint = new URL(`http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/mcp?toolsets=all`);
    client = new Client({ name: 'wsx-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: { Authorization: `Bearer ${TOKENS.admin}` } },
      }),
    );
  });
  afterAll(() => client.close());

  it('offers expectedVersion on tools that change a versioned record only', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('update_issue')!.inputSchema.properties).toHaveProperty('expectedVersion');
    expect(byName.get('delete_subtask')!.inputSchema.properties).toHaveProperty('expectedVersion');
    expect(byName.get('create_issue')!.inputSchema.properties).not.toHaveProperty('expectedVersion');
    expect(byName.get('get_issue')!.inputSchema.properties).not.toHaveProperty('expectedVersion');
  });

  it('writes at the expected version and refuses a stale one', async () => {
    const issue = await newIssue('Agent edit');
    const ok = await call('update_issue', { issueKey: issue.issueKey, priority: 'urgent', expectedVersion: 1 });
    expect(ok.isError, JSON.stringify(ok.structuredContent)).toBeUndefined();
    expect(ok.structuredContent.issue.version).toBe(2);

    const stale = await call('update_issue', { issueKey: issue.issueKey, priority: 'low', expectedVersion: 1 });
    expect(stale.isError).toBe(true);
    expect(stale.structuredContent.code).toBe('PRECONDITION_FAILED');
    expect(stale.structuredContent.details.currentVersion).toBe(2);
    expect((await get(`/api/external/issues/${issue.issueId}`)).body.issue.priority).toBe('urgent');
  });

  it('takes expectedVersion as a JSON integer only', async () => {
    const issue = await newIssue('Typed');
    const reply = await call('update_issue', { issueId: issue.issueId, priority: 'low', expectedVersion: '1' });
    expect(reply.isError).toBe(true);
    expect(reply.structuredContent.code).toBe('VALIDATION_FAILED');
    expect(reply.structuredContent.details.field).toBe('expectedVersion');
  });
});
