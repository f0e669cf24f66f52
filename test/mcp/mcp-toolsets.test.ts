import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../src/api/catalog.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { patFor, startHarness, type Harness } from '../support/harness.js';
import { REQUIRED_TOOLS } from '../support/required-tools.js';

/**
 * /api/mcp tool selection: the default set (size and membership), `toolsets`, `readonly`
 * and read-only credentials; annotations; one argument name per concept; JSON-typed
 * arguments. HTTP level, raw JSON-RPC, so the answer's size is the bytes on the wire.
 */

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const DISCOVERY_TOOLS = ['whoami', 'list_teams', 'list_users', 'list_statuses', 'list_tags'];
const MAX_DEFAULT_BYTES = 16 * 1024;

const READER = patFor('reader');

interface Tool {
  name: string;
  inputSchema: { properties: Record<string, Record<string, unknown>>; required?: string[] };
  annotations: Record<string, boolean>;
}

let h: Harness;
let apiProject: string;

beforeAll(async () => {
  h = await startHarness([ACME]);
  apiProject = (await h.apply(ACME)).projects['ENG/API'];
  await h.apply({
    ...ACME,
    tokens: [...ACME.tokens, { name: 'reader', secret: READER, projects: '*', access: 'read' }],
  });
});
afterAll(() => h.close());

async function post(query: string, message: unknown, token = TOKENS.admin) {
  const reply = await h.app.inject({
    method: 'POST',
    url: `/api/mcp${query}`,
    payload: JSON.stringify(message),
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
  });
  return { status: reply.statusCode, bytes: reply.rawPayload.length, body: JSON.parse(reply.body) };
}

async function listTools(query = '', token = TOKENS.admin) {
  const reply = await post(query, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, token);
  expect(reply.status).toBe(200);
  const tools = reply.body.result.tools as Tool[];
  return { tools, names: tools.map((tool) => tool.name), byName: new Map(tools.map((t) => [t.name, t])), ...reply };
}

/** A tools/call: the result, or the JSON-RPC error for an unknown tool. */
async function callTool(query: string, name: string, args: Record<string, unknown>, token = TOKENS.admin) {
  const reply = await post(
    query,
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } },
    token,
  );
  expect(reply.status).toBe(200);
  return reply.body as {
    result?: { isError?: boolean; structuredContent: any; _meta?: Record<string, unknown> };
    error?: { code: number; message: string };
  };
}

const issueCount = async (title: string) =>
  (await h.call('GET', `/api/external/issues?q=${encodeURIComponent(title)}&limit=200`, { token: TOKENS.admin })).body
    .issues.length;

describe('the default tool set', () => {
  it('holds every required tool and the discovery tools, and no more, in at most 16 KB', async () => {
    const { names, bytes } = await listTools();
    expect([...names].sort()).toEqual([...new Set([...REQUIRED_TOOLS, ...DISCOVERY_TOOLS])].sort());
    expect(bytes).toBeLessThanOrEqual(MAX_DEFAULT_BYTES);
    // The by-key twins are reachable through get_project and get_issue; their own tools are not default.
    expect(names).not.toContain('get_project_by_key');
    expect(names).not.toContain('get_issue_by_key');
  });

  it('is what toolsets=default serves', async () => {
    expect((await listTools('?toolsets=default')).names).toEqual((await listTools()).names);
  });

  it('answers a tool outside it as an unknown tool', async () => {
    const reply = await callTool('', 'create_webhook', { url: 'https://hooks.example.test/x', events: ['*'] });
    expect(reply.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: create_webhook/) });
    expect((await h.call('GET', '/api/external/webhooks', { token: TOKENS.admin })).body.webhooks).toEqual([]);
  });
});

describe('toolsets', () => {
  const tagsOf = (names: string[]) => new Set(catalog.filter((op) => names.includes(op.id)).map((op) => op.tag));

  it('issues: the issue and sub-task tools, and discovery', async () => {
    const { names } = await listTools('?toolsets=issues');
    expect(tagsOf(names)).toEqual(new Set(['Discovery', 'Issues', 'Sub-tasks']));
    expect(names).toEqual(expect.arrayContaining(['get_issue_by_key', 'bulk_create_issues', 'promote_subtask']));
  });

  it('combines: planning,meetings serves both and nothing else', async () => {
    const { names } = await listTools('?toolsets=planning,meetings');
    expect(tagsOf(names)).toEqual(new Set(['Discovery', 'Projects', 'Issue containers', 'Milestones', 'Meetings']));
    // Order and repetition do not matter.
    expect((await listTools('?toolsets=meetings,planning,meetings')).names).toEqual(names);
  });

  it('admin and discussions', async () => {
    expect(tagsOf((await listTools('?toolsets=admin')).names)).toEqual(new Set(['Discovery', 'Webhooks', 'Events']));
    expect(tagsOf((await listTools('?toolsets=discussions')).names)).toEqual(new Set(['Discovery', 'Discussions']));
  });

  it('default plus a toolset is their union', async () => {
    const { names } = await listTools('?toolsets=default,admin');
    expect(names).toEqual(expect.arrayContaining([...REQUIRED_TOOLS, 'create_webhook', 'list_webhook_deliveries']));
    expect(names).not.toContain('create_milestone');
  });

  it('all: one tool per operation', async () => {
    const { names } = await listTools('?toolsets=all');
    expect(names.sort()).toEqual(catalog.map((op) => op.id).sort());
  });

  it('calls a tool of the selected toolsets', async () => {
    const reply = await callTool('?toolsets=planning', 'list_issue_containers', { projectKey: 'API' });
    expect(reply.result?.isError).toBeUndefined();
    expect(reply.result?.structuredContent.issueContainers).toHaveLength(1);
  });
});

describe('refused selections: HTTP 400 with a JSON-RPC error, nothing runs', () => {
  const create = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'create_issue', arguments: {} } };

  it.each([
    ['?toolsets=issues,bogus', { field: 'toolsets', allowed: expect.arrayContaining(['issues', 'default', 'all']) }],
    ['?toolsets=', { field: 'toolsets' }],
    ['?readonly=yes', { field: 'readonly', allowed: ['true', 'false'] }],
    ['?toolset=issues', { unknownFields: ['toolset'] }],
    ['?x=1', { unknownFields: ['x'] }],
  ])('%s', async (query, details) => {
    const title = `Refused ${query}`;
    const reply = await post(query, {
      ...create,
      params: { ...create.params, arguments: { title, projectId: apiProject } },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, data: { code: 'VALIDATION_FAILED', details } },
    });
    expect(await issueCount(title)).toBe(0);
  });
});

describe('read-only selections', () => {
  const expectOnlyReads = (tools: Tool[]) => {
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) expect(tool.annotations.readOnlyHint, tool.name).toBe(true);
    const reads = new Set(catalog.filter((op) => op.method === 'GET').map((op) => op.id));
    for (const tool of tools) expect(reads.has(tool.name), tool.name).toBe(true);
  };

  it('readonly=true lists only read tools and answers a write as an unknown tool', async () => {
    const { tools, names } = await listTools('?readonly=true');
    expectOnlyReads(tools);
    expect(names).toEqual(expect.arrayContaining(['whoami', 'list_issues', 'get_issue', 'list_comments']));
    const write = await callTool('?readonly=true', 'create_issue', { title: 'Under readonly', projectId: apiProject });
    expect(write.error).toMatchObject({ code: -32602 });
    expect(await issueCount('Under readonly')).toBe(0);
    expectOnlyReads((await listTools('?toolsets=all&readonly=true')).tools);
    expect((await listTools('?readonly=false')).names).toContain('create_issue');
  });

  it('a read-only credential sees only read tools, whatever it asks for', async () => {
    const asked = await listTools('?toolsets=all&readonly=false', READER);
    expectOnlyReads(asked.tools);
    expect(asked.names).toEqual((await listTools('?toolsets=all&readonly=true')).names);
    const read = await callTool('', 'list_issues', { limit: 1 }, READER);
    expect(read.result?.isError).toBeUndefined();
  });

  it('a read-only credential calling a write tool gets TOKEN_READ_ONLY before its arguments are checked', async () => {
    for (const args of [{ title: 'By a reader', projectId: apiProject }, { nonsense: true }]) {
      const reply = await callTool('?toolsets=all', 'create_issue', args, READER);
      expect(reply.result).toMatchObject({ isError: true, structuredContent: { code: 'TOKEN_READ_ONLY' } });
    }
    // Also a write outside the selection: the reason is the credential, not the toolset.
    const hook = await callTool('?toolsets=issues', 'create_webhook', { url: 'https://x.example.test' }, READER);
    expect(hook.result?.structuredContent.code).toBe('TOKEN_READ_ONLY');
    expect(await issueCount('By a reader')).toBe(0);
  });
});

describe('annotations', () => {
  it('come from the catalog: method, answersExisting and mcpHints', async () => {
    const { byName } = await listTools('?toolsets=all');
    // A tool says only what the protocol's defaults do not; a client reads them over the defaults.
    const defaults = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
    const hints = (name: string) => ({ ...defaults, ...byName.get(name)?.annotations });
    const read = { readOnlyHint: true, openWorldHint: false };
    expect(byName.get('list_issues')?.annotations).toEqual(read);
    expect(byName.get('get_project')?.annotations).toEqual(read);
    expect(hints('create_issue')).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(hints('update_issue')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints('delete_webhook')).toMatchObject({ destructiveHint: true, idempotentHint: true });
    // A POST that answers the existing record is idempotent; one that overwrites is destructive.
    expect(hints('link_issues')).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(hints('convert_agenda_item')).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(hints('evolve_issue_title')).toMatchObject({ destructiveHint: true, idempotentHint: false });
    expect(hints('promote_subtask')).toMatchObject({ destructiveHint: true, idempotentHint: false });
  });
});

describe('one argument name per concept', () => {
  it('leaves aliases out of tool schemas', async () => {
    const { byName } = await listTools('?toolsets=all');
    const argumentsOf = (name: string) => Object.keys(byName.get(name)?.inputSchema.properties ?? {});
    expect(argumentsOf('create_issue')).toEqual(expect.arrayContaining(['tags', 'issueContainerId', 'projectId']));
    expect(argumentsOf('create_issue')).not.toEqual(expect.arrayContaining(['labels']));
    expect(argumentsOf('create_issue')).not.toContain('epicId');
    for (const alias of ['project', 'team', 'assignee', 'status'])
      expect(argumentsOf('list_issues'), alias).not.toContain(alias);
    expect(argumentsOf('list_issues')).toEqual(
      expect.arrayContaining(['projectId', 'projectKey', 'teamId', 'teamKey', 'assigneeId', 'statusKey']),
    );
    expect(argumentsOf('list_meetings')).not.toContain('view');
    expect(argumentsOf('create_milestone')).not.toContain('epicId');
    expect(argumentsOf('add_attachments')).toEqual(['links', 'issueKey', 'issueId', 'idempotencyKey']);
    const bulkItem = byName.get('bulk_create_issues')?.inputSchema.properties.issues.items as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(bulkItem.properties)).toContain('tags');
    expect(Object.keys(bulkItem.properties)).not.toContain('labels');
    // issueKey stands for issueId (docs/api.md, "MCP").
    expect(argumentsOf('update_issue')).toEqual(expect.arrayContaining(['issueId', 'issueKey']));
  });

  it('refuses an alias on MCP as an unknown argument, and HTTP still takes it', async () => {
    const viaMcp = await callTool('', 'create_issue', { title: 'Labelled', projectId: apiProject, labels: ['bug'] });
    expect(viaMcp.result).toMatchObject({
      isError: true,
      structuredContent: { code: 'VALIDATION_FAILED', details: { unknownFields: ['labels'] } },
    });
    expect(await issueCount('Labelled')).toBe(0);
    const viaHttp = await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body: { title: 'Labelled', projectId: apiProject, labels: ['bug'] },
    });
    expect(viaHttp.status).toBe(201);
    expect(viaHttp.body.issue.tags).toEqual(['bug']);

    const filter = await callTool('', 'list_issues', { project: 'API' });
    expect(filter.result?.structuredContent).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['project'] },
    });
    expect((await h.call('GET', '/api/external/issues?project=API', { token: TOKENS.admin })).status).toBe(200);
  });

  it('refuses an alias inside a bulk item, naming its path', async () => {
    const reply = await callTool('?toolsets=issues', 'bulk_create_issues', {
      issues: [
        { title: 'Bulk ok', projectId: apiProject },
        { title: 'Bulk labelled', projectId: apiProject, labels: ['bug'] },
      ],
    });
    expect(reply.result?.structuredContent).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['issues.1.labels'] },
    });
    expect(await issueCount('Bulk')).toBe(0);
  });
});

describe('argument types are the JSON types', () => {
  it.each([
    ['assignedToMe', 'true'],
    ['archived', 'false'],
    ['limit', '5'],
  ])('list_issues with %s as the string %j is VALIDATION_FAILED', async (field, value) => {
    const reply = await callTool('', 'list_issues', { [field]: value });
    expect(reply.result).toMatchObject({
      isError: true,
      structuredContent: { code: 'VALIDATION_FAILED', details: { field } },
    });
  });

  it('takes the JSON values, and HTTP query strings still parse', async () => {
    const typed = await callTool('', 'list_issues', { assignedToMe: true, archived: false, limit: 5 });
    expect(typed.result?.isError).toBeUndefined();
    expect(typed.result?.structuredContent.pageInfo.limit).toBe(5);
    const http = await h.call('GET', '/api/external/issues?assignedToMe=true&archived=false&limit=5', {
      token: TOKENS.admin,
    });
    expect(http.status).toBe(200);
    expect(http.body.pageInfo.limit).toBe(5);
    // Comma-separated text stays text.
    const events = await callTool('', 'list_events', { types: 'issue.created,issue.updated', limit: 1 });
    expect(events.result?.isError).toBeUndefined();
  });
});
