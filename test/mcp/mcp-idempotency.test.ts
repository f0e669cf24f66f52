import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFingerprint } from '../../src/modules/idempotency/idempotency.service.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * `idempotencyKey` on MCP write tools: the Idempotency-Key header's semantics, in the same
 * key space (workspace + credential + key, fingerprint of method, path and body).
 */

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const REPLAYED = 'wsx/idempotentReplayed';

interface ToolResult {
  isError?: boolean;
  structuredContent: any;
  _meta?: Record<string, unknown>;
}

let h: Harness;
let apiProject: string;

beforeAll(async () => {
  h = await startHarness([ACME]);
  apiProject = (await h.apply(ACME)).projects['ENG/API'];
});
afterAll(() => h.close());

async function callTool(name: string, args: Record<string, unknown>, { token = TOKENS.admin, query = '' } = {}) {
  const reply = await h.app.inject({
    method: 'POST',
    url: `/api/mcp${query}`,
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
  });
  expect(reply.statusCode).toBe(200);
  return JSON.parse(reply.body).result as ToolResult;
}

const issuesTitled = async (title: string): Promise<string[]> =>
  (
    await h.call('GET', `/api/external/issues?q=${encodeURIComponent(title)}&limit=200`, { token: TOKENS.admin })
  ).body.issues
    .filter((issue: { title: string }) => issue.title === title)
    .map((issue: { issueId: string }) => issue.issueId);

describe('idempotencyKey on MCP writes', () => {
  it('is offered on every tool whose route honours Idempotency-Key, and only there', async () => {
    const reply = await h.app.inject({
      method: 'POST',
      url: '/api/mcp?toolsets=all',
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKENS.admin}` },
    });
    const tools = JSON.parse(reply.body).result.tools as Array<{
      name: string;
      inputSchema: { properties: Record<string, unknown> };
    }>;
    const withKey = tools.filter((tool) => 'idempotencyKey' in tool.inputSchema.properties).map((tool) => tool.name);
    expect(withKey).toEqual(
      expect.arrayContaining([
        'create_issue',
        'create_project',
        'link_issues',
        'convert_agenda_item',
        'bulk_update_issues',
      ]),
    );
    expect(withKey).not.toContain('update_issue');
    expect(withKey).not.toContain('list_issues');
    expect(withKey).not.toContain('delete_comment');
  });

  it('makes a retried create_issue create one issue, the retry marked replayed', async () => {
    const args = { title: 'Retried over MCP', projectId: apiProject, idempotencyKey: 'mcp-retry-1' };
    const first = await callTool('create_issue', args);
    expect(first.isError).toBeUndefined();
    expect(first._meta).toBeUndefined();
    const second = await callTool('create_issue', args);
    expect(second.isError).toBeUndefined();
    expect(second._meta).toEqual({ [REPLAYED]: true });
    expect(second.structuredContent).toEqual(first.structuredContent);
    expect(await issuesTitled('Retried over MCP')).toEqual([first.structuredContent.issue.issueId]);
  });

  it('refuses the same key with other arguments: IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
    await callTool('create_issue', { title: 'Keyed once', projectId: apiProject, idempotencyKey: 'mcp-reuse' });
    const other = await callTool('create_issue', {
      title: 'Keyed twice',
      projectId: apiProject,
      idempotencyKey: 'mcp-reuse',
    });
    expect(other).toMatchObject({
      isError: true,
      structuredContent: { code: 'IDEMPOTENCY_KEY_REUSED', details: { idempotencyKey: 'mcp-reuse' } },
    });
    // Another tool with the key is another request too.
    const project = await callTool('create_project', { name: 'Keyed project', idempotencyKey: 'mcp-reuse' });
    expect(project.structuredContent.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await issuesTitled('Keyed twice')).toEqual([]);
  });

  it('shares the key space with the HTTP header: the same request replays through either door', async () => {
    const body = { title: 'Either door', projectId: apiProject };
    const http = await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body,
      headers: { 'idempotency-key': 'shared-key' },
    });
    expect(http.status).toBe(201);
    const mcp = await callTool('create_issue', { ...body, idempotencyKey: 'shared-key' });
    expect(mcp._meta).toEqual({ [REPLAYED]: true });
    expect(mcp.structuredContent).toEqual(http.body);
    expect(await issuesTitled('Either door')).toHaveLength(1);
    // The key belongs to the credential: another token's same key is its own.
    const bot = await callTool('create_issue', { ...body, idempotencyKey: 'shared-key' }, { token: TOKENS.bot });
    expect(bot._meta).toBeUndefined();
    expect(await issuesTitled('Either door')).toHaveLength(2);
  });

  it('replays a tool whose path has parameters (issueKey standing for issueId) and the bulk PATCH', async () => {
    const issue = (await callTool('create_issue', { title: 'Commented', projectId: apiProject })).structuredContent
      .issue;
    const comment = { issueKey: issue.issueKey, body: 'Once only', idempotencyKey: 'mcp-comment' };
    const first = await callTool('add_comment', comment);
    const again = await callTool('add_comment', comment);
    expect(again._meta).toEqual({ [REPLAYED]: true });
    expect(again.structuredContent.comment.commentId).toBe(first.structuredContent.comment.commentId);
    const comments = await h.call('GET', `/api/external/issues/${issue.issueId}/comments`, { token: TOKENS.admin });
    expect(comments.body.comments).toHaveLength(1);

    const bulk = { issues: [{ issueKey: issue.issueKey, priority: 'high' }], idempotencyKey: 'mcp-bulk-patch' };
    const patched = await callTool('bulk_update_issues', bulk, { query: '?toolsets=issues' });
    expect(patched.structuredContent.issues[0].version).toBe(2);
    const replayed = await callTool('bulk_update_issues', bulk, { query: '?toolsets=issues' });
    expect(replayed._meta).toEqual({ [REPLAYED]: true });
    expect(replayed.structuredContent.issues[0].version).toBe(2);
  });

  it('keeps no error: a corrected retry with the same key runs', async () => {
    const failed = await callTool('create_issue', { projectId: apiProject, idempotencyKey: 'mcp-fix' });
    expect(failed.structuredContent.code).toBe('TITLE_REQUIRED');
    const fixed = await callTool('create_issue', { title: 'Fixed', projectId: apiProject, idempotencyKey: 'mcp-fix' });
    expect(fixed.isError).toBeUndefined();
    expect(fixed._meta).toBeUndefined();
  });

  it.each([
    ['an empty key', ''],
    ['a key with a space', 'two words'],
    ['a key of 256 characters', 'k'.repeat(256)],
    ['a number', 42],
  ])('refuses %s: VALIDATION_FAILED on idempotencyKey', async (_label, key) => {
    const reply = await callTool('create_issue', { title: 'Bad key', projectId: apiProject, idempotencyKey: key });
    expect(reply).toMatchObject({
      isError: true,
      structuredContent: { code: 'VALIDATION_FAILED', details: { field: 'idempotencyKey' } },
    });
    expect(await issuesTitled('Bad key')).toEqual([]);
  });

  it('answers IDEMPOTENCY_KEY_IN_USE while another server runs the same request', async () => {
    const probe = await callTool('create_project', { name: 'Probe', idempotencyKey: 'mcp-probe' });
    expect(probe.isError).toBeUndefined();
    const scope = await h.database.db
      .selectFrom('idempotency_keys')
      .select(['workspace_id', 'credential_id'])
      .where('key', '=', 'mcp-probe')
      .executeTakeFirstOrThrow();
    const now = new Date().toISOString();
    // A live instance on another host holds the key for the very same request.
    await h.database.db
      .insertInto('server_instances')
      .values({ id: 'srv_busy', host: 'another-host', pid: 4242, started_at: now, heartbeat_at: now })
      .execute();
    const body = { title: 'In flight', projectId: apiProject };
    await h.database.db
      .insertInto('idempotency_keys')
      .values({
        ...scope,
        key: 'mcp-busy',
        request_hash: requestFingerprint('POST', '/api/external/issues', body),
        state: 'running',
        response_status: null,
        response_body: null,
        created_at: now,
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        holder: 'srv_busy',
        claim_id: 'clm_busy',
        heartbeat_at: now,
      })
      .execute();
    const reply = await callTool('create_issue', { ...body, idempotencyKey: 'mcp-busy' });
    expect(reply).toMatchObject({
      isError: true,
      structuredContent: { code: 'IDEMPOTENCY_KEY_IN_USE', details: { idempotencyKey: 'mcp-busy' } },
    });
    expect(await issuesTitled('In flight')).toEqual([]);
  });
});
