import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../support/fixtures.js';
import { challengeOf, startHarness, type Harness } from '../support/harness.js';
import { REQUIRED_TOOLS } from '../support/required-tools.js';

/** /api/mcp through the SDK's own client over real HTTP. */

/** The required tools and the webhook tools, which this test's endpoint serves too. */
const EXPECTED_TOOLS = [
  ...REQUIRED_TOOLS,
  'list_webhooks',
  'create_webhook',
  'get_webhook',
  'update_webhook',
  'delete_webhook',
  'list_webhook_deliveries',
];

describe('MCP over Streamable HTTP', () => {
  let h: Harness;
  let endpoint: URL;
  let projects: Record<string, string>;
  const clients: Client[] = [];

  const connect = async (token: string): Promise<Client> => {
    const client = new Client({ name: 'wsx-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as {
      content: Array<{ type: string; text: string }>;
      structuredContent: any;
      isError?: boolean;
    };
    expect(result.content[0].type).toBe('text');
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    return result;
  };
  const http = async (url: string, token = TOKENS.admin) => (await h.call('GET', url, { token })).body;

  beforeAll(async () => {
    h = await startHarness([ACME, GLOBEX]);
    projects = (await h.apply(ACME)).projects;
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    // Every tool, not only the default set: this suite checks each against its HTTP route.
    endpoint = new URL(`http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/mcp?toolsets=all`);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await h.close();
  });

  it('initializes and lists a tool for every required operation, with JSON Schema inputs', async () => {
    const client = await connect(TOKENS.admin);
    expect(client.getServerVersion()?.name).toBe('wsx');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of EXPECTED_TOOLS) expect(byName.has(name), name).toBe(true);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(typeof tool.description).toBe('string');
    }
    // A field with its own code is never required, so that code reaches the caller.
    expect(byName.get('create_project')?.inputSchema.required ?? []).not.toContain('name');
    expect(byName.get('create_issue')?.inputSchema.required ?? []).not.toContain('title');
    expect(byName.get('list_projects')?.inputSchema.properties?.limit).toMatchObject({ type: 'integer' });
    expect(byName.get('update_project')?.inputSchema.properties?.subtasksEnabled).toMatchObject({ type: 'boolean' });
    expect(byName.get('update_project')?.inputSchema.required).toEqual(['projectId']);
    // Either key form names the record.
    expect(Object.keys(byName.get('get_project')?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['projectId', 'teamKey', 'projectKey']),
    );
    expect(byName.get('get_project')?.inputSchema.required).toBeUndefined();
    expect(Object.keys(byName.get('get_issue')?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['issueId', 'issueKey']),
    );
    // Hints the protocol's defaults already say (not read-only, destructive) are left out.
    expect(byName.get('list_projects')?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(byName.get('delete_webhook')?.annotations).toEqual({ idempotentHint: true, openWorldHint: false });
  });

  it('answers a tool call with the body of the matching HTTP call', async () => {
    const client = await connect(TOKENS.admin);
    expect((await call(client, 'whoami')).structuredContent).toEqual(await http('/api/external'));
    expect((await call(client, 'list_teams')).structuredContent).toEqual(await http('/api/external/teams'));
    expect((await call(client, 'list_statuses', { teamKey: 'OPS' })).structuredContent).toEqual(
      await http('/api/external/statuses?teamKey=OPS'),
    );
    const page = await call(client, 'list_projects', { teamKey: 'ENG', limit: 1 });
    expect(page.isError).toBeFalsy();
    expect(page.structuredContent).toEqual(await http('/api/external/projects?teamKey=ENG&limit=1'));
    const byId = await call(client, 'get_project', { projectId: projects['ENG/API'] });
    expect(byId.structuredContent).toEqual(await http(`/api/external/projects/${projects['ENG/API']}`));
    const byKeys = await call(client, 'get_project', { teamKey: 'ENG', projectKey: 'API' });
    expect(byKeys.structuredContent).toEqual(byId.structuredContent);
  });

  it('writes through the same operation as HTTP', async () => {
    const client = await connect(TOKENS.admin);
    const created = await call(client, 'create_project', {
      name: 'Made by MCP',
      teamKey: 'OPS',
      subtasksEnabled: false,
    });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent.project).toMatchObject({
      name: 'Made by MCP',
      teamKey: 'OPS',
      subtasksEnabled: false,
    });
    expect(await http(`/api/external/projects/${created.structuredContent.project.projectId}`)).toEqual(
      created.structuredContent,
    );

    const issue = await call(client, 'create_issue', { title: 'Filed over MCP', projectId: projects['ENG/API'] });
    expect(issue.isError).toBeFalsy();
    const { issueId, issueKey } = issue.structuredContent.issue;
    const byKey = await call(client, 'get_issue', { issueKey });
    expect(byKey.structuredContent).toEqual(await http(`/api/external/issues/${issueId}`));
    const updated = await call(client, 'update_issue', { issueKey, priority: 'high' });
    expect(updated.structuredContent.issue).toMatchObject({ issueId, priority: 'high' });

    const hook = await call(client, 'create_webhook', { url: 'https://hooks.example.test/mcp', events: ['*'] });
    expect(hook.structuredContent.webhook.secret).toMatch(/^whsec_/);
    const removed = await call(client, 'delete_webhook', { webhookId: hook.structuredContent.webhook.webhookId });
    expect(removed).toMatchObject({ structuredContent: {} });
    expect(removed.isError).toBeFalsy();
  });

  it('returns domain errors as isError results carrying the error body and code', async () => {
    const client = await connect(TOKENS.admin);
    const noName = await call(client, 'create_project', { teamKey: 'ENG' });
    expect(noName.isError).toBe(true);
    expect(noName.structuredContent).toMatchObject({ code: 'NAME_REQUIRED', details: { field: 'name' } });
    expect(Object.keys(noName.structuredContent).sort()).toEqual(['code', 'details', 'error', 'suggestion']);
    const wrongType = await call(client, 'create_project', { name: 42 });
    expect(wrongType.structuredContent.code).toBe('NAME_REQUIRED');
    const missing = await call(client, 'get_project', { projectId: 'prj_nope' });
    expect(missing).toMatchObject({ isError: true, structuredContent: { code: 'PROJECT_NOT_FOUND' } });
    const noTeam = await call(client, 'get_project', { teamKey: 'NOPE', projectKey: 'API' });
    expect(noTeam.structuredContent.code).toBe('TEAM_NOT_FOUND');
    const unknownArgument = await call(client, 'list_teams', { colour: 'blue' });
    expect(unknownArgument.structuredContent).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['colour'] },
    });
    const noId = await call(client, 'get_project', {});
    expect(noId.structuredContent).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'projectId' } });
    const badLimit = await call(client, 'list_projects', { limit: 0 });
    expect(badLimit.structuredContent).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'limit', min: 1 },
    });
    const empty = await call(client, 'update_project', { projectId: projects['ENG/API'] });
    expect(empty.structuredContent.code).toBe('UNSUPPORTED_ACTION');
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('names tools, not HTTP routes, in error suggestions, and the toolset of one this endpoint does not serve', async () => {
    const client = await connect(TOKENS.admin);
    const missing = await call(client, 'get_project', { projectId: 'prj_nope' });
    expect(missing.structuredContent.suggestion).toBe(
      'Call the list_projects tool for the projects this credential can access.',
    );
    const overHttp = await h.call('GET', '/api/external/projects/prj_nope', { token: TOKENS.admin });
    expect(overHttp.body.suggestion).toBe(
      'Call GET /api/external/projects for the projects this credential can access.',
    );
    const hook = await call(client, 'get_webhook', { webhookId: 'whk_nope' });
    expect(hook.structuredContent).toMatchObject({
      code: 'WEBHOOK_NOT_FOUND',
      suggestion: 'Call the list_webhooks tool for valid ids.',
    });

    // The default toolset lacks list_agenda_groups: the suggestion says how to get it.
    const meeting = await h.call('POST', '/api/external/meetings', { token: TOKENS.admin, body: { title: 'Hints' } });
    expect(meeting.status).toBe(201);
    const defaults = new Client({ name: 'wsx-test', version: '1.0.0' });
    await defaults.connect(
      new StreamableHTTPClientTransport(new URL('/api/mcp', endpoint), {
        requestInit: { headers: { Authorization: `Bearer ${TOKENS.admin}` } },
      }),
    );
    clients.push(defaults);
    const grouped = await call(defaults, 'create_agenda_item', {
      meetingId: meeting.body.meeting.meetingId,
      title: 'Grouped',
      agendaGroupId: 'agg_nope',
    });
    expect(grouped.structuredContent).toMatchObject({
      code: 'AGENDA_GROUP_NOT_FOUND',
      suggestion:
        'Call the list_agenda_groups tool (served with /api/mcp?toolsets=meetings) for valid ids, or send null to ungroup.',
    });
    for (const message of [missing, hook, grouped])
      expect(message.structuredContent.suggestion).not.toMatch(/\b(GET|POST|PATCH|DELETE) [/…]/);
  });

  it('scopes tools like the HTTP routes: grants and workspaces', async () => {
    const bot = await connect(TOKENS.bot);
    const hidden = await call(bot, 'get_project', { projectId: projects['OPS/INFRA'] });
    expect(hidden).toMatchObject({ isError: true, structuredContent: { code: 'PROJECT_NOT_FOUND' } });
    const botList = await call(bot, 'list_projects');
    expect(botList.structuredContent).toEqual(await http('/api/external/projects', TOKENS.bot));

    const globex = await connect(TOKENS.globex);
    const foreign = await call(globex, 'get_project', { projectId: projects['ENG/API'] });
    expect(foreign.structuredContent.code).toBe('PROJECT_NOT_FOUND');
    const who = await call(globex, 'whoami');
    expect(who.structuredContent.workspace.slug).toBe('globex');
  });

  it('accepts an OAuth token as the approving user', async () => {
    const alice = await connect(TOKENS.alice);
    const who = await call(alice, 'whoami');
    expect(who.structuredContent).toEqual(await http('/api/external', TOKENS.alice));
    expect(who.structuredContent.principal.kind).toBe('user');
  });

  it('answers HTTP 401 with WWW-Authenticate: Bearer without a valid credential', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const credentials: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${TOKENS.off}` },
      { authorization: 'Bearer svc_pat_unknownunknownunknownunknownunknown' },
    ];
    for (const headers of credentials) {
      const res = await fetch(endpoint, {
        method: 'POST',
        body: JSON.stringify(initialize),
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(challengeOf('/api/mcp', endpoint.origin));
      expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    const client = new Client({ name: 'anonymous', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(endpoint))).rejects.toThrow();
  });

  it('answers plain JSON to a raw JSON-RPC POST, and 405 to GET and DELETE (stateless server)', async () => {
    const headers = {
      authorization: `Bearer ${TOKENS.admin}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const res = await fetch(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7 });
    expect(body.result.tools.length).toBeGreaterThanOrEqual(EXPECTED_TOOLS.length);
    for (const method of ['GET', 'DELETE']) {
      const other = await fetch(endpoint, {
        method,
        headers: { authorization: `Bearer ${TOKENS.admin}`, accept: 'text/event-stream' },
      });
      expect(other.status).toBe(405);
      expect(other.headers.get('allow')).toBe('POST');
    }
  });

  it('serves a client that accepts only application/json, or sends no Accept header', async () => {
    for (const accept of ['application/json', undefined]) {
      const headers: Record<string, string> = {
        authorization: `Bearer ${TOKENS.admin}`,
        'content-type': 'application/json',
        ...(accept ? { accept } : {}),
      };
      const call = {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'list_meetings', arguments: { archived: true, limit: 1 } },
      };
      const res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(call) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      const body = await res.json();
      expect(body).toMatchObject({
        jsonrpc: '2.0',
        id: 8,
        result: { structuredContent: { meetings: [], pageInfo: { limit: 1 } } },
      });
      expect(body.result.isError).toBeUndefined();
    }
  });
});
