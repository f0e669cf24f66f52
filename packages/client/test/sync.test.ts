import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../../../test/support/fixtures.js';
import { startHarness, type Harness } from '../../../test/support/harness.js';
import { createWsxClient, ifMatch, WsxError, type WsxClient } from '../src/index.js';
import { listen } from './server.js';

/** @wsx/client's conditional reads, If-Match writes and sync walks against the real app. */

let h: Harness;
let client: WsxClient;

beforeAll(async () => {
  h = await startHarness([ACME]);
  client = createWsxClient({ baseUrl: await listen(h), token: TOKENS.admin });
});
afterAll(async () => {
  await h.close();
});

const create = async (title: string) =>
  (await client.POST('/api/external/issues', { body: { projectKey: 'API', teamKey: 'ENG', title } })).issue;

describe('conditional requests', () => {
  it('reads a record, then learns for free that it has not changed, then that it has', async () => {
    const issue = await create('Polled');
    const path = { params: { path: { issueId: issue.issueId } } };
    const first = await client.getIfChanged('/api/external/issues/{issueId}', undefined, path);
    expect(first.notModified).toBe(false);
    if (first.notModified) throw new Error('unreachable');
    expect(first.body.issue.title).toBe('Polled');
    expect(first.etag).toMatch(/^"1-/);

    const idle = await client.getIfChanged('/api/external/issues/{issueId}', first.etag, path);
    expect(idle).toEqual({ notModified: true, etag: first.etag });

    await client.PATCH('/api/external/issues/{issueId}', { ...path, body: { priority: 'high' } });
    const changed = await client.getIfChanged('/api/external/issues/{issueId}', first.etag, path);
    expect(changed.notModified).toBe(false);
    if (!changed.notModified) expect(changed.body.issue.priority).toBe('high');
  });

  it('writes with If-Match and throws PRECONDITION_FAILED, with the current record, on a stale one', async () => {
    const issue = await create('Guarded');
    const path = { issueId: issue.issueId };
    await client.PATCH('/api/external/issues/{issueId}', {
      params: { path, header: ifMatch(issue.version) },
      body: { title: 'Guarded by me' },
    });
    const stale = await client
      .PATCH('/api/external/issues/{issueId}', {
        params: { path, header: ifMatch(issue.version) },
        body: { title: 'Lost' },
      })
      .catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(WsxError);
    expect((stale as WsxError).code).toBe('PRECONDITION_FAILED');
    expect((stale as WsxError).details.currentVersion).toBe(2);
    expect((stale as WsxError).details.current).toMatchObject({ title: 'Guarded by me' });
  });
});

describe('sync()', () => {
  it('walks every change since the last walk, and none twice when nothing changed', async () => {
    const a = await create('Sync A');
    const b = await create('Sync B');
    const first = client.sync('/api/external/issues', { query: { limit: 2 } });
    const seen = new Map<string, string>();
    for await (const issue of first) seen.set(issue.issueId, issue.title);
    expect(seen.get(a.issueId)).toBe('Sync A');
    expect(seen.get(b.issueId)).toBe('Sync B');
    expect(first.since).toBeDefined();

    await client.PATCH('/api/external/issues/{issueId}', {
      params: { path: { issueId: a.issueId } },
      body: { title: 'Sync A2', archived: true },
    });
    const second = client.sync('/api/external/issues', { since: first.since });
    const changed = [];
    for await (const issue of second) changed.push(issue);
    // The boundary is inclusive: the last record of the previous walk may come again.
    const titles = changed.map((issue) => issue.title);
    expect(titles).toContain('Sync A2');
    expect(titles).not.toContain('Sync A');
    expect(changed.find((issue) => issue.issueId === a.issueId)?.archived).toBe(true);
    expect(second.since! > first.since!).toBe(true);
  });
});
