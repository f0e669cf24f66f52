import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * Tool results within a budget (src/mcp/budget.ts) on a store of 10,000 issues: a page
 * holds fewer records and its cursor goes on from the last one; a long text is cut with a
 * marker and a resource_link that reads it whole; `_meta` sets the budget within bounds.
 */

const BUDGET = 32_000;
const ISSUES = 10_000;
const BULK = 50;
const LONG_TEXT = `${'Long description line.\n'.repeat(2_800)}The end.`;

type Result = {
  content: Array<{ type: string; text?: string; uri?: string }>;
  structuredContent: any;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};
const textOf = (result: Result) => result.content[0].text!;

describe('MCP results within their budget', () => {
  let h: Harness;
  let client: Client;
  let longKey: string;
  const call = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as Result;

  beforeAll(async () => {
    h = await startHarness([ACME]);
    await h.apply(ACME);
    for (let made = 0; made < ISSUES; made += BULK) {
      const items = Array.from({ length: BULK }, (_, n) => ({
        title: `Budget issue ${made + n}`,
        description: `Issue ${made + n} of the budget store, with a description of a few words.`,
        teamKey: 'ENG',
        projectKey: 'API',
      }));
      const reply = await h.call('POST', '/api/external/issues/bulk', { token: TOKENS.admin, body: { issues: items } });
      expect(reply.status).toBe(201);
    }
    const long = await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body: { title: 'The long one', description: LONG_TEXT, teamKey: 'ENG', projectKey: 'API' },
    });
    longKey = long.body.issue.issueKey;
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (h.app.server.address() as AddressInfo).port;
    client = new Client(
      { name: 'wsx-budget', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/api/mcp?toolsets=all`), {
        requestInit: { headers: { Authorization: `Bearer ${TOKENS.admin}` } },
      }),
    );
  }, 600_000);
  afterAll(async () => {
    await client?.close();
    await h.close();
  });

  it('holds every read tool that lists, or reads the long issue, under the budget, with the largest page', async () => {
    const { tools } = await client.listTools();
    // A tool that reads one record of another kind (get_project, list_agenda_items) needs its id.
    const reads = tools.filter(
      (tool) => tool.annotations?.readOnlyHint && !tool.inputSchema.required?.length && !tool.name.startsWith('get_'),
    );
    let held = 0;
    for (const tool of reads) {
      const properties = tool.inputSchema.properties ?? {};
      const args = {
        ...('limit' in properties ? { limit: 200 } : {}),
        ...('issueId' in properties ? { issueId: longKey } : {}),
      };
      const result = await call(tool.name, args);
      if (result.isError && /Id$/.test(result.structuredContent.details?.field ?? '')) continue;
      expect(result.isError, `${tool.name}: ${textOf(result).slice(0, 300)}`).toBeUndefined();
      expect(textOf(result).length, tool.name).toBeLessThanOrEqual(BUDGET);
      held++;
    }
    expect(held).toBeGreaterThan(15);
  });

  it('fetches a page over the budget with fewer records; its cursor goes on from the last one', async () => {
    const first = await call('list_issues', { limit: 200 });
    const issues = first.structuredContent.issues as Array<{ issueKey: string }>;
    expect(textOf(first).length).toBeLessThanOrEqual(BUDGET);
    expect(issues.length).toBeGreaterThan(10);
    expect(issues.length).toBeLessThan(200);
    expect(first.structuredContent.pageInfo).toMatchObject({ hasMore: true, limit: issues.length });
    // The same page over HTTP, as long, is followed by the second page without a gap.
    const http = await h.call('GET', `/api/external/issues?limit=${issues.length * 2}`, { token: TOKENS.admin });
    const second = await call('list_issues', { limit: 200, cursor: first.structuredContent.pageInfo.nextCursor });
    const keys = [...issues, ...second.structuredContent.issues].map((issue) => issue.issueKey);
    expect(keys.slice(0, issues.length * 2)).toEqual(
      http.body.issues.map((issue: { issueKey: string }) => issue.issueKey),
    );
  });

  it('cuts a long text with a marker and links it; resources/read answers it whole', async () => {
    const result = await call('get_issue', { issueId: longKey });
    expect(result.isError).toBeUndefined();
    expect(textOf(result).length).toBeLessThanOrEqual(BUDGET);
    const description = result.structuredContent.issue.description as string;
    expect(description.length).toBeLessThan(LONG_TEXT.length);
    expect(description).toMatch(/…\[cut: \d+ more characters\]$/);
    expect(LONG_TEXT.startsWith(description.replace(/…\[cut: \d+ more characters\]$/, ''))).toBe(true);
    expect(result._meta?.['wsx/truncated']).toEqual([
      { path: 'issue.description', shown: expect.any(Number), total: LONG_TEXT.length },
    ]);
    const link = result.content.find((block) => block.type === 'resource_link');
    expect(link?.uri).toMatch(/^wsx:text\?/);
    const read = await client.readResource({ uri: link!.uri! });
    expect(read.contents).toEqual([{ uri: link!.uri, mimeType: 'text/plain', text: LONG_TEXT }]);
  });

  it('takes a smaller budget from _meta, and refuses one out of bounds', async () => {
    const small = await call('list_issues', { limit: 200 }, { 'wsx/maxResultBytes': 8_000 });
    expect(textOf(small).length).toBeLessThanOrEqual(8_000);
    const tiny = await call('list_issues', { limit: 5 }, { 'wsx/maxResultBytes': 1_000 });
    expect(tiny).toMatchObject({
      isError: true,
      structuredContent: { code: 'VALIDATION_FAILED', details: { field: '_meta.wsx/maxResultBytes', min: 4_000 } },
    });
  });

  it('refuses a link that names a write tool or is not one of this server', async () => {
    const write = `wsx:text?tool=create_issue&arguments=${encodeURIComponent('{"title":"x"}')}&path=issue.title`;
    await expect(client.readResource({ uri: write })).rejects.toThrow(/no read tool/);
    await expect(client.readResource({ uri: 'https://example.com/x' })).rejects.toThrow(/Not a text link/);
  });
});
