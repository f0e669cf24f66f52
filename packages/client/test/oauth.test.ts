import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../../../test/support/fixtures.js';
import { oatFor, startHarness, type Harness } from '../../../test/support/harness.js';
import { createWsxClient, WsxError, type OAuthTokens } from '../src/index.js';
import { listen, scriptedFetch } from './server.js';

/**
 * @wsx/client's OAuth session against the real API, with the token endpoint answered by the
 * test: the access token it starts with is refused (as an expired one is), and the
 * "refreshed" one is the fixture's OAuth token for alice. The flow against the server's own
 * authorization server is test/oauth/oauth-e2e.test.ts.
 */

let h: Harness;
let baseUrl: string;

beforeAll(async () => {
  h = await startHarness([ACME]);
  baseUrl = await listen(h);
});
afterAll(async () => {
  await h.close();
});

const EXPIRED = oatFor('expired');
const newIssue = (title: string) => ({ projectKey: 'API', teamKey: 'ENG', title });

/** A fetch whose token endpoint (at the discovered address) answers `answer`, the API answering the rest. */
function withTokenEndpoint(answer: (form: URLSearchParams) => Response) {
  const forms: URLSearchParams[] = [];
  const recorder = scriptedFetch(async (_n, request) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/.well-known/oauth-authorization-server')
      return Response.json({ issuer: baseUrl, token_endpoint: `${baseUrl}/test-token` });
    if (pathname !== '/test-token') return undefined;
    const form = new URLSearchParams(await request.text());
    forms.push(form);
    return answer(form);
  });
  return { ...recorder, forms };
}

const rotated = (n: number): OAuthTokens => ({
  access_token: TOKENS.alice,
  token_type: 'Bearer',
  expires_in: 3600,
  refresh_token: `svc_ort_${n}`,
  scope: 'read write',
});

describe('an OAuth session', () => {
  it('refreshes on a 401, sends the call again with its body, and hands the new pair to onTokens', async () => {
    const server = withTokenEndpoint(() => Response.json(rotated(2)));
    const saved: OAuthTokens[] = [];
    const wsx = createWsxClient({
      baseUrl,
      fetch: server.fetch,
      oauth: {
        clientId: 'cli_test',
        accessToken: EXPIRED,
        refreshToken: 'svc_ort_1',
        onTokens: (t) => void saved.push(t),
      },
    });

    const { issue } = await wsx.POST('/api/external/issues', { body: newIssue('After a refresh') });
    expect(issue.title).toBe('After a refresh');
    expect(server.sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /api/external/issues',
      'GET /.well-known/oauth-authorization-server',
      'POST /test-token',
      'POST /api/external/issues',
    ]);
    expect(Object.fromEntries(server.forms[0])).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'svc_ort_1',
      client_id: 'cli_test',
    });
    expect(saved).toEqual([rotated(2)]);

    // The next call goes out with the new token at once.
    const me = await wsx.GET('/api/external');
    expect(me.principal.kind).toBe('user');
    expect(server.sent).toHaveLength(5);
  });

  it('refreshes once for calls refused together', async () => {
    const server = withTokenEndpoint(() => Response.json(rotated(2)));
    const wsx = createWsxClient({
      baseUrl,
      fetch: server.fetch,
      oauth: {
        clientId: 'cli_test',
        accessToken: EXPIRED,
        refreshToken: 'svc_ort_1',
        tokenEndpoint: `${baseUrl}/test-token`,
      },
    });
    const answers = await Promise.all([1, 2, 3].map(() => wsx.GET('/api/external/projects')));
    expect(answers.every((answer) => answer.projects.length > 0)).toBe(true);
    expect(server.forms.map((form) => form.get('refresh_token'))).toEqual(['svc_ort_1']);
    // tokenEndpoint given: nothing discovered.
    expect(server.sent.some((s) => s.path.startsWith('/.well-known/'))).toBe(false);
  });

  it('presents the rotated refresh token at the next refresh, and sends a call again only once', async () => {
    // The first refresh answers an access token the API refuses too.
    const pairs = [{ ...rotated(2), access_token: oatFor('also-expired') }, rotated(3)];
    const server = withTokenEndpoint(() => Response.json(pairs.shift()));
    const wsx = createWsxClient({
      baseUrl,
      fetch: server.fetch,
      oauth: { clientId: 'cli_test', accessToken: EXPIRED, refreshToken: 'svc_ort_1' },
    });
    const refused = await wsx.GET('/api/external/projects').catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 401 });
    expect((await wsx.GET('/api/external/projects')).projects.length).toBeGreaterThan(0);
    expect(server.forms.map((form) => form.get('refresh_token'))).toEqual(['svc_ort_1', 'svc_ort_2']);
  });

  it('answers the 401 when the refresh is refused, and does not try that refresh again', async () => {
    const server = withTokenEndpoint(() => Response.json({ error: 'invalid_grant' }, { status: 400 }));
    const wsx = createWsxClient({
      baseUrl,
      fetch: server.fetch,
      oauth: { clientId: 'cli_test', accessToken: EXPIRED, refreshToken: 'svc_ort_revoked' },
    });
    for (let i = 0; i < 2; i++) {
      const error = await wsx.GET('/api/external/projects').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WsxError);
      expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    }
    expect(server.forms).toHaveLength(1);
  });
});

describe('a token function', () => {
  it('is asked for the token before every request', async () => {
    const tokens = [TOKENS.admin, TOKENS.alice];
    let asked = 0;
    const wsx = createWsxClient({ baseUrl, token: async () => tokens[asked++ % 2] });
    expect((await wsx.GET('/api/external')).principal.kind).toBe('api_token');
    expect((await wsx.GET('/api/external')).principal.kind).toBe('user');
    expect(asked).toBe(2);
  });
});
