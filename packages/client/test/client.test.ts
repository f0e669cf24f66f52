import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../../../test/support/fixtures.js';
import { startHarness, type Harness } from '../../../test/support/harness.js';
import { createWsxClient, WsxError, type WsxClient } from '../src/index.js';
import { errorResponse, listen, scriptedFetch } from './server.js';

/** @wsx/client against the real app over HTTP: typed calls, errors, pages, idempotent retries. */

let h: Harness;
let baseUrl: string;
let client: WsxClient;

beforeAll(async () => {
  h = await startHarness([ACME]);
  baseUrl = await listen(h);
  client = createWsxClient({ baseUrl, token: TOKENS.admin });
});
afterAll(async () => {
  await h.close();
});

const newIssue = (title: string) => ({ projectKey: 'API', teamKey: 'ENG', title });

/** The issues whose title contains `text`, read through the server. */
const issuesTitled = async (text: string) => {
  const found = [];
  for await (const issue of client.paginate('/api/external/issues', { params: { query: { q: text } } })) {
    found.push(issue);
  }
  return found;
};

describe('typed calls', () => {
  it('creates an issue and reads it back, typed end to end', async () => {
    const { issue } = await client.POST('/api/external/issues', { body: newIssue('Typed create') });
    const read = await client.GET('/api/external/issues/{issueId}', { params: { path: { issueId: issue.issueId } } });
    expect(read.issue.issueKey).toBe(issue.issueKey);
    expect(read.issue.title).toBe('Typed create');
    expect(read.issue.teamKey).toBe('ENG');
  });

  it('answers undefined for a 204', async () => {
    const { issue } = await client.POST('/api/external/issues', { body: newIssue('Commented') });
    const { comment } = await client.POST('/api/external/issues/{issueId}/comments', {
      params: { path: { issueId: issue.issueId } },
      body: { body: 'to delete' },
    });
    const deleted = await client.DELETE('/api/external/issues/{issueId}/comments/{commentId}', {
      params: { path: { issueId: issue.issueId, commentId: comment.commentId } },
    });
    expect(deleted).toBeUndefined();
  });
});

describe('WsxError', () => {
  it('carries the code, status and details of a not-found', async () => {
    const missing = client.GET('/api/external/issues/{issueId}', { params: { path: { issueId: 'iss_missing' } } });
    const error = await missing.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WsxError);
    expect(error).toMatchObject({
      name: 'WsxError',
      code: 'ISSUE_NOT_FOUND',
      status: 404,
      details: { issueId: 'iss_missing' },
      method: 'GET',
      path: '/api/external/issues/iss_missing',
    });
    expect((error as WsxError).suggestion).not.toBe('');
  });

  it('carries the field of a validation error', async () => {
    const error = await client
      .GET('/api/external/issues', { params: { query: { limit: 'many' as unknown as number } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WsxError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, details: { field: 'limit' } });
  });

  it('reports an error answer that is not the API error body as UNEXPECTED_RESPONSE', async () => {
    const proxy = scriptedFetch(async () => new Response('<html>Bad gateway</html>', { status: 502 }));
    const behindProxy = createWsxClient({ baseUrl, token: TOKENS.admin, fetch: proxy.fetch });
    const error = await behindProxy.GET('/api/external/projects').catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      status: 502,
      details: { body: '<html>Bad gateway</html>' },
    });
  });
});

describe('paginate', () => {
  it('follows nextCursor over several pages and yields every item once', async () => {
    const created = [];
    for (let i = 1; i <= 5; i++) {
      created.push((await client.POST('/api/external/issues', { body: newIssue(`Paged item ${i}`) })).issue.issueId);
    }
    const recorder = scriptedFetch(() => undefined);
    const paged = createWsxClient({ baseUrl, token: TOKENS.admin, fetch: recorder.fetch });
    const seen: string[] = [];
    for await (const issue of paged.paginate('/api/external/issues', {
      params: { query: { q: 'Paged item', limit: 2 } },
    })) {
      seen.push(issue.issueId);
    }
    expect(seen.sort()).toEqual([...created].sort());
    expect(recorder.sent.map((s) => s.path)).toHaveLength(3);
    expect(recorder.sent[0].path).not.toContain('cursor=');
    expect(recorder.sent[1].path).toContain('cursor=');
    expect(recorder.sent.every((s) => s.path.includes('limit=2'))).toBe(true);
  });
});

describe('Idempotency-Key and retries', () => {
  it('sends a POST whose answer was lost again with the same key, and the server creates one record', async () => {
    // The first answer is dropped after the server carried the request out, as a broken connection would.
    const lossy = scriptedFetch(async (n, _request, send) => {
      if (n > 1) return undefined;
      await (await send()).body?.cancel();
      throw new TypeError('fetch failed');
    });
    const retrying = createWsxClient({ baseUrl, token: TOKENS.admin, fetch: lossy.fetch });
    const { issue } = await retrying.POST('/api/external/issues', { body: newIssue('Sent twice') });

    expect(lossy.sent).toHaveLength(2);
    expect(lossy.sent[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(lossy.sent[1].idempotencyKey).toBe(lossy.sent[0].idempotencyKey);
    expect((await issuesTitled('Sent twice')).map((i) => i.issueId)).toEqual([issue.issueId]);
  });

  it('gives each POST its own key, and keeps a key the caller gives', async () => {
    const recorder = scriptedFetch(() => undefined);
    const keyed = createWsxClient({ baseUrl, token: TOKENS.admin, fetch: recorder.fetch });
    await keyed.POST('/api/external/issues', { body: newIssue('Own key 1') });
    await keyed.POST('/api/external/issues', { body: newIssue('Own key 2') });
    const header = { 'Idempotency-Key': `caller-${Date.now()}` };
    const first = await keyed.POST('/api/external/issues', { params: { header }, body: newIssue('Caller key') });
    const replay = await keyed.POST('/api/external/issues', { params: { header }, body: newIssue('Caller key') });

    const keys = recorder.sent.map((s) => s.idempotencyKey);
    expect(new Set(keys.slice(0, 2)).size).toBe(2);
    expect(keys.slice(2)).toEqual([header['Idempotency-Key'], header['Idempotency-Key']]);
    expect(replay.issue.issueId).toBe(first.issue.issueId);
  });

  it('does not send a PATCH again when its answer was lost', async () => {
    const { issue } = await client.POST('/api/external/issues', { body: newIssue('Patched once') });
    const lossy = scriptedFetch(async () => {
      throw new TypeError('fetch failed');
    });
    const patching = createWsxClient({ baseUrl, token: TOKENS.admin, fetch: lossy.fetch });
    const patch = patching.PATCH('/api/external/issues/{issueId}', {
      params: { path: { issueId: issue.issueId } },
      body: { title: 'Patched twice?' },
    });
    await expect(patch).rejects.toThrow('fetch failed');
    expect(lossy.sent).toHaveLength(1);
  });

  it('waits Retry-After on a 429, then sends again', async () => {
    const limited = scriptedFetch(async (n) =>
      n === 1 ? errorResponse(429, 'RATE_LIMITED', { 'retry-after': '1' }) : undefined,
    );
    const patient = createWsxClient({ baseUrl, token: TOKENS.admin, fetch: limited.fetch });
    const started = Date.now();
    const { issue } = await patient.POST('/api/external/issues', { body: newIssue('After a 429') });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(issue.title).toBe('After a 429');
    expect(limited.sent).toHaveLength(2);
    expect(limited.sent[1].idempotencyKey).toBe(limited.sent[0].idempotencyKey);
  });

  it('retries a 503 with backoff when it names no Retry-After, at most maxRetries times', async () => {
    const once = scriptedFetch(async (n) => (n === 1 ? errorResponse(503, 'DATABASE_UNAVAILABLE') : undefined));
    const recovered = await createWsxClient({ baseUrl, token: TOKENS.admin, fetch: once.fetch }).GET(
      '/api/external/projects',
    );
    expect(recovered.projects.length).toBeGreaterThan(0);
    expect(once.sent).toHaveLength(2);

    const always = scriptedFetch(async () => errorResponse(503, 'SERVER_SHUTTING_DOWN', { 'retry-after': '0' }));
    const error = await createWsxClient({ baseUrl, token: TOKENS.admin, fetch: always.fetch, maxRetries: 2 })
      .GET('/api/external/projects')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SERVER_SHUTTING_DOWN', status: 503 });
    expect(always.sent).toHaveLength(3);
  });

  it('refuses a retry count the retry loop could not end on', () => {
    for (const maxRetries of [-1, 1.5, Number.NaN]) {
      expect(() => createWsxClient({ baseUrl, token: TOKENS.admin, maxRetries })).toThrow(RangeError);
    }
  });

  it('does not retry other error statuses', async () => {
    const failing = scriptedFetch(async () => errorResponse(500, 'INTERNAL_ERROR'));
    const error = await createWsxClient({ baseUrl, token: TOKENS.admin, fetch: failing.fetch })
      .GET('/api/external/projects')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
    expect(failing.sent).toHaveLength(1);
  });
});

describe('against the real rate limit', () => {
  let limited: Harness;
  let limitedUrl: string;
  beforeAll(async () => {
    limited = await startHarness([ACME], { rateLimitPerMinute: 1 });
    limitedUrl = await listen(limited);
  });
  afterAll(async () => {
    await limited.close();
  });

  it('answers RATE_LIMITED once the retries are spent', async () => {
    const noRetries = createWsxClient({ baseUrl: limitedUrl, token: TOKENS.admin, maxRetries: 0 });
    await noRetries.GET('/api/external/projects');
    const error = await noRetries.GET('/api/external/projects').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WsxError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
  });
});
