import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { connectClient, listening, personOf, refresh } from '../support/oauth-flow.js';

/**
 * A connector's access tokens follow one another under its grant: the grant, not the access
 * token, is the credential that scopes Idempotency-Key records and the per-credential rate
 * budget, so a retry after a refresh replays instead of writing twice, and refreshing gives
 * no fresh budget. Tokens of the workspace file keep one scope each.
 */

const LIMIT = 6;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let h: Harness;
let base: string;
let person: { workspaceId: string; userId: string };
let apiProject: string;

beforeAll(async () => {
  h = await startHarness([ACME], { rateLimitPerMinute: LIMIT, oauthRateLimitPerMinute: 0 });
  base = await listening(h.app);
  person = await personOf(h, 'carol');
  apiProject = (await h.apply(ACME)).projects['ENG/API'];
});
afterAll(() => h.close());

/** A connector, refreshed once: the access tokens before and after the refresh. */
async function refreshedConnector() {
  const { clientId, tokens } = await connectClient(h, base, person);
  const refreshed = await refresh(base, clientId, tokens.refresh_token);
  expect(refreshed.status).toBe(200);
  return { before: tokens.access_token, after: refreshed.body.access_token as string };
}

const createIssue = (token: string, key: string, title: string) =>
  h.call('POST', '/api/external/issues', {
    token,
    body: { projectKey: 'API', teamKey: 'ENG', title },
    headers: { 'idempotency-key': key },
  });

const issuesTitled = async (title: string) =>
  (
    await h.call('GET', `/api/external/issues?q=${encodeURIComponent(title)}&limit=200`, { token: TOKENS.admin })
  ).body.issues.filter((issue: { title: string }) => issue.title === title);

describe('Idempotency-Key across a refresh', () => {
  it('replays the first answer to a retry sent with the refreshed access token: one issue', async () => {
    const { clientId, tokens } = await connectClient(h, base, person);
    const first = await createIssue(tokens.access_token, 'retry-after-refresh', 'Written once');
    expect(first.status).toBe(201);

    const refreshed = await refresh(base, clientId, tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    const retry = await createIssue(refreshed.body.access_token, 'retry-after-refresh', 'Written once');
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect((await issuesTitled('Written once')).map((issue: { key: string }) => issue.key)).toEqual([
      first.body.issue.key,
    ]);
  });

  it('replays an MCP idempotencyKey across a refresh too', async () => {
    const { before, after } = await refreshedConnector();
    const call = async (token: string) => {
      const reply = await h.app.inject({
        method: 'POST',
        url: '/api/mcp',
        payload: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'create_issue',
            arguments: { title: 'Written once over MCP', projectId: apiProject, idempotencyKey: 'mcp-after-refresh' },
          },
        }),
        headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      });
      expect(reply.statusCode).toBe(200);
      return JSON.parse(reply.body).result;
    };
    const first = await call(before);
    const retry = await call(after);
    expect(retry._meta).toEqual({ 'wsx/idempotentReplayed': true });
    expect(retry.structuredContent).toEqual(first.structuredContent);
    expect(await issuesTitled('Written once over MCP')).toHaveLength(1);
  });

  it('keeps two connectors of one person apart: the same key is two requests', async () => {
    const one = await refreshedConnector();
    const two = await refreshedConnector();
    expect((await createIssue(one.after, 'same-key-two-grants', 'Per grant')).status).toBe(201);
    const other = await createIssue(two.after, 'same-key-two-grants', 'Per grant');
    expect(other.status).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await issuesTitled('Per grant')).toHaveLength(2);
  });
});

describe('the rate budget across a refresh', () => {
  const teams = (token: string) => h.call('GET', '/api/external/teams', { token });

  it('is one budget for every access token of the grant', async () => {
    const { before, after } = await refreshedConnector();
    const spent = await teams(before);
    expect(spent.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
    const next = await teams(after);
    expect(next.status).toBe(200);
    expect(next.headers['ratelimit-remaining']).toBe(String(LIMIT - 2));
    for (let i = 2; i < LIMIT; i++) expect((await teams(i % 2 ? before : after)).status).toBe(200);
    const limited = await teams(after);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect((await teams(before)).status).toBe(429);
    // Another connector of the same person has a budget of its own.
    expect((await teams((await refreshedConnector()).after)).status).toBe(200);
  });

  it('stays per token for the tokens of the workspace file', async () => {
    // alice's token has no grant: its budget is its own, untouched by the connectors above.
    expect((await teams(TOKENS.alice)).headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
    expect((await teams(TOKENS.alice)).headers['ratelimit-remaining']).toBe(String(LIMIT - 2));
  });
});
