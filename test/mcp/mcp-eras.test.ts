import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv } from 'ajv';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { patFor, startHarness, type Harness } from '../support/harness.js';
import { REQUIRED_TOOLS } from '../support/required-tools.js';

/**
 * /api/mcp serves both protocol eras: a 2026-07-28 client (per-request `_meta` envelope,
 * server/discover, no initialize) through the v2 SDK's client, and a 2025-11-25 client
 * (initialize) through the v1 SDK's; raw HTTP for what a client library would not send.
 */

const MODERN = '2026-07-28';
const READER = patFor('reader');
type Result = {
  content: Array<{ type: string; text?: string; uri?: string }>;
  structuredContent?: any;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};

describe('MCP in both protocol eras', () => {
  let h: Harness;
  let base: string;
  const closers: Array<() => Promise<void>> = [];

  const modern = async (token: string, query = '') => {
    const client = new Client(
      { name: 'wsx-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/api/mcp${query}`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    closers.push(() => client.close());
    return client;
  };
  const legacy = async (token: string, query = '') => {
    const client = new LegacyClient({ name: 'wsx-legacy', version: '1.0.0' });
    await client.connect(
      new LegacyTransport(new URL(`${base}/api/mcp${query}`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    closers.push(() => client.close());
    return client;
  };
  const post = (body: unknown, headers: Record<string, string> = {}, token = TOKENS.admin) =>
    fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };

  beforeAll(async () => {
    h = await startHarness([ACME]);
    await h.apply({
      ...ACME,
      tokens: [...ACME.tokens, { name: 'reader', secret: READER, projects: '*', access: 'read' }],
    });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await h.close();
  });

  describe('a 2026-07-28 client', () => {
    it('negotiates the revision, lists the default tools with titles, output schemas and a cache hint', async () => {
      const client = await modern(TOKENS.admin);
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(client.getProtocolEra()).toBe('modern');
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      for (const name of REQUIRED_TOOLS) expect(names).toContain(name);
      for (const tool of tools) {
        expect(tool.title, tool.name).toMatch(/^[A-Z][a-z]/);
        expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
      }
      expect(tools.find((tool) => tool.name === 'list_issues')).toMatchObject({
        title: 'List issues',
        outputSchema: { properties: { issues: { type: 'array' }, pageInfo: { type: 'object' } } },
      });
    });

    it('answers server/discover with the revision, and tools/list with ttlMs and cacheScope, in at most 16 KB', async () => {
      const discover = await post(
        { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' },
      );
      expect(discover.status).toBe(200);
      const discovered = await discover.json();
      expect(discovered.result.supportedVersions).toContain(MODERN);
      expect(discovered.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'wsx' });
      expect(discovered.result.capabilities.tools).toBeDefined();

      const list = await post(
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
      );
      const text = await list.text();
      expect(list.status).toBe(200);
      expect(text.length).toBeLessThanOrEqual(16 * 1024);
      expect(JSON.parse(text).result).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'private' });
    });

    it('refuses a Mcp-Method header that disagrees with the body (-32020) and an unsupported revision (-32022)', async () => {
      const mismatch = await post(
        { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: envelope } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' },
      );
      expect((await mismatch.json()).error).toMatchObject({ code: -32020 });

      const future = { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
      const unsupported = await post(
        { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: future } },
        { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
      );
      const refused = await unsupported.json();
      expect(refused.error).toMatchObject({ code: -32022 });
      expect(JSON.stringify(refused.error.data)).toContain(MODERN);
    });

    it('calls tools: a result, a domain error, a page and the next one, an idempotent retry', async () => {
      const client = await modern(TOKENS.admin);
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as Result;
      for (const title of ['Era one', 'Era two', 'Era three'])
        expect((await call('create_issue', { title, teamKey: 'ENG', projectKey: 'API' })).isError).toBeUndefined();

      const first = await call('list_issues', { q: 'Era', limit: 2 });
      expect(first.structuredContent.issues).toHaveLength(2);
      const next = await call('list_issues', {
        q: 'Era',
        limit: 2,
        cursor: first.structuredContent.pageInfo.nextCursor,
      });
      expect(next.structuredContent.issues).toHaveLength(1);
      expect(JSON.parse(first.content[0].text!)).toEqual(first.structuredContent);

      const missing = await call('get_issue', { issueId: 'ENG-99999' });
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toMatchObject({ code: 'ISSUE_NOT_FOUND' });

      const args = { title: 'Era retry', teamKey: 'ENG', projectKey: 'API', idempotencyKey: 'era-retry-1' };
      const made = await call('create_issue', args);
      const again = await call('create_issue', args);
      expect(again.structuredContent.issue.id).toBe(made.structuredContent.issue.id);
      expect(again._meta?.['wsx/idempotentReplayed']).toBe(true);
    });

    it('serves a read-only workspace token only the read tools, and answers a write TOKEN_READ_ONLY', async () => {
      const client = await modern(READER);
      const { tools } = await client.listTools();
      for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      const write = (await client.callTool({
        name: 'create_issue',
        arguments: { title: 'Reader write', teamKey: 'ENG', projectKey: 'API' },
      })) as Result;
      expect(write).toMatchObject({ isError: true, structuredContent: { code: 'TOKEN_READ_ONLY' } });
    });
  });

  describe('a 2025-11-25 client', () => {
    it('initializes, lists and calls tools as before', async () => {
      const client = await legacy(TOKENS.admin);
      expect(client.getServerVersion()?.name).toBe('wsx');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining([...REQUIRED_TOOLS]));
      const teams = (await client.callTool({ name: 'list_teams', arguments: {} })) as Result;
      expect(teams.structuredContent.teams.map((team: { teamKey: string }) => team.teamKey)).toContain('ENG');
      const refused = (await client.callTool({ name: 'list_issues', arguments: { limit: '5' } })) as Result;
      expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'VALIDATION_FAILED' } });
    });

    it('pages, retries idempotently and refuses a read-only token’s write, as the 2026 client does', async () => {
      const client = await legacy(TOKENS.admin);
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as Result;
      const args = { title: 'Legacy retry', teamKey: 'ENG', projectKey: 'API', idempotencyKey: 'legacy-retry-1' };
      const made = await call('create_issue', args);
      const again = await call('create_issue', args);
      expect(again.structuredContent.issue.issueId).toBe(made.structuredContent.issue.issueId);
      expect(again._meta?.['wsx/idempotentReplayed']).toBe(true);
      const first = await call('list_issues', { limit: 1 });
      const next = await call('list_issues', { limit: 1, cursor: first.structuredContent.pageInfo.nextCursor });
      expect(next.structuredContent.issues[0].issueId).not.toBe(first.structuredContent.issues[0].issueId);

      const reader = await legacy(READER);
      const write = (await reader.callTool({
        name: 'create_issue',
        arguments: { title: 'Legacy reader write', teamKey: 'ENG', projectKey: 'API' },
      })) as Result;
      expect(write).toMatchObject({ isError: true, structuredContent: { code: 'TOKEN_READ_ONLY' } });
    });

    it('answers a 2025-06-18 initialize with that revision', async () => {
      const reply = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      });
      expect(reply.status).toBe(200);
      expect((await reply.json()).result.protocolVersion).toBe('2025-06-18');
    });
  });

  describe('every tool', () => {
    it('returns structuredContent that validates against its outputSchema', async () => {
      const client = await modern(TOKENS.admin, '?toolsets=all');
      const { tools } = await client.listTools();
      const ajv = new Ajv({ strict: false });
      const validators = new Map(tools.map((tool) => [tool.name, ajv.compile(tool.outputSchema ?? {})]));
      expect(tools.length).toBeGreaterThan(80);
      // Ids met in any answer (issueId, meetingId, groupId, …), to name records in the reads after.
      const ids = new Map<string, string>();
      const harvest = (value: unknown): void => {
        if (Array.isArray(value)) value.forEach(harvest);
        else if (typeof value === 'object' && value !== null)
          for (const [key, item] of Object.entries(value)) {
            if (/Id$/.test(key) && typeof item === 'string' && !ids.has(key)) ids.set(key, item);
            else harvest(item);
          }
      };
      const validated = new Set<string>();
      const check = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as Result;
        if (result.isError) return result;
        const validate = validators.get(name)!;
        expect(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
        harvest(result.structuredContent);
        validated.add(name);
        return result;
      };
      // Writes that make one record of each kind, so every read below has something to read.
      const issue = (await check('create_issue', { title: 'Schema check', teamKey: 'ENG', projectKey: 'API' }))
        .structuredContent.issue;
      await check('add_comment', { issueId: issue.issueKey, body: 'Schema check' });
      await check('create_meeting', { title: 'Schema check', teamKey: 'ENG' });
      await check('create_agenda_item', { meetingId: ids.get('meetingId'), title: 'Schema check' });
      await check('create_discussion_group', { name: 'Schema check' });
      await check('create_discussion_topic', { groupId: ids.get('groupId'), title: 'Schema check' });
      await check('create_webhook', { url: 'https://hooks.example.test/schema', events: ['*'] });
      for (const tool of tools.filter((candidate) => candidate.annotations?.readOnlyHint)) {
        const named = Object.keys(tool.inputSchema.properties ?? {}).filter(
          (name) => ids.has(name) && (tool.name.startsWith('get_') || tool.inputSchema.required?.includes(name)),
        );
        const args = Object.fromEntries(named.map((name) => [name, ids.get(name)]));
        if ('issueId' in (tool.inputSchema.properties ?? {})) args.issueId = issue.issueKey;
        await check(tool.name, args);
      }
      const reads = tools.filter((tool) => tool.annotations?.readOnlyHint).length;
      expect(validated.size, [...validated].join(', ')).toBeGreaterThan(reads * 0.8);
    });
  });
});
