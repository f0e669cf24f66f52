import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/** `fields=` on reads and lists: each record keeps only the fields named; the default is the full record. */

let h: Harness;
let projects: Record<string, string>;
let issue: { issueId: string; issueKey: string };
const get = (url: string) => h.call('GET', url, { token: TOKENS.admin });

beforeAll(async () => {
  h = await startHarness([ACME]);
  projects = (await h.apply(ACME)).projects;
  for (const title of ['First', 'Second', 'Third']) {
    const reply = await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body: { title, projectId: projects['ENG/API'], description: 'a long description an agent does not need' },
    });
    expect(reply.status).toBe(201);
    issue = reply.body.issue;
  }
});
afterAll(() => h.close());

describe('fields=', () => {
  it('trims a single record to the fields named, in the record’s order', async () => {
    const reply = await get(`/api/external/issues/${issue.issueId}?fields=title,issueKey`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ issue: { issueKey: issue.issueKey, title: 'Third' } });
    // Its ETag still carries the version, so it can be sent back in If-Match.
    expect(String(reply.headers.etag)).toMatch(/^"1-/);
    const full = await get(`/api/external/issues/${issue.issueId}`);
    expect(reply.headers.etag).not.toBe(full.headers.etag);
    const write = await h.call('PATCH', `/api/external/issues/${issue.issueId}`, {
      token: TOKENS.admin,
      body: { priority: 'high' },
      headers: { 'If-Match': String(reply.headers.etag) },
    });
    expect(write.status).toBe(200);
  });

  it('trims every record of a list and keeps pageInfo whole', async () => {
    const reply = await get(`/api/external/issues?projectId=${projects['ENG/API']}&fields=issueKey,status&limit=2`);
    expect(reply.status).toBe(200);
    expect(reply.body.issues).toHaveLength(2);
    for (const item of reply.body.issues) expect(Object.keys(item)).toEqual(['issueKey', 'statusId', 'statusKey']);
    expect(reply.body.pageInfo).toMatchObject({ hasMore: true, limit: 2 });
    const next = await get(
      `/api/external/issues?projectId=${projects['ENG/API']}&fields=issueKey,status&limit=2&cursor=${encodeURIComponent(reply.body.pageInfo.nextCursor)}`,
    );
    expect(next.status).toBe(200);
    expect(next.body.issues.map((i: { issueKey: string }) => i.issueKey)).toHaveLength(1);
  });

  it('applies to other records too', async () => {
    const reply = await get(`/api/external/projects/${projects['ENG/API']}?fields=projectKey,name`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ project: { projectKey: 'API', name: 'Public API' } });
  });

  it('refuses a name the record does not have, naming it and the allowed ones', async () => {
    const reply = await get(`/api/external/issues/${issue.issueId}?fields=title,bogus`);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details.field).toBe('fields');
    expect(reply.body.details.unknownFields).toEqual(['bogus']);
    expect(reply.body.details.allowed).toContain('issueKey');
    expect((await get('/api/external/issues?fields=,')).status).toBe(400);
  });

  it('is an MCP argument of read tools', async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const endpoint = new URL(`http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/mcp`);
    const client = new Client({ name: 'wsx-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: { Authorization: `Bearer ${TOKENS.admin}` } },
      }),
    );
    try {
      const result = (await client.callTool({
        name: 'list_issues',
        arguments: { projectId: projects['ENG/API'], fields: 'issueKey,title' },
      })) as unknown as { structuredContent: { issues: Array<Record<string, unknown>> } };
      expect(result.structuredContent.issues).toHaveLength(3);
      for (const item of result.structuredContent.issues) expect(Object.keys(item)).toEqual(['issueKey', 'title']);
    } finally {
      await client.close();
    }
  });
});
