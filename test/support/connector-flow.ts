import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { runWsx } from './cli.js';
import type { Harness } from './harness.js';

/**
 * A person connecting an application, over real HTTP against a listening harness, the way a
 * browser and an MCP client do it: `wsx login-link` and its link (the session cookie), a
 * client's registration and /authorize, the consent page's CSRF-checked answer, and the
 * client's token requests. Redirects are followed by hand, so a test sees every answer.
 */

export const REDIRECT_URI = 'http://127.0.0.1:45679/callback';

export interface ConnectorTokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  expires_in: number;
}

export interface Connected {
  clientId: string;
  tokens: ConnectorTokens;
  /** The browser session the person approved with (`wsx_session=…`). */
  cookie: string;
}

const request = (url: string, init: RequestInit = {}) => fetch(url, { redirect: 'manual', ...init });

export const sessionCookieOf = (response: Response): string | undefined =>
  response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith('wsx_session='))
    ?.split(';')[0];

export const csrfIn = (html: string): string => /name="csrf" value="([^"]+)"/.exec(html)![1];

export function connectorFlow(h: Harness, origin: string, workspace = 'acme') {
  const wsx = (args: string[]) => runWsx(h.database, args, { WSX_PUBLIC_URL: origin });

  /** A fresh sign-in link for `user`, as `wsx login-link` prints it. */
  async function loginLink(user: string): Promise<string> {
    const run = await wsx(['login-link', '--workspace', workspace, '--user', user, '--json']);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout).url as string;
  }

  /** Opens a fresh link for `user`: answers the session cookie. */
  async function signIn(user: string): Promise<string> {
    const response = await request(await loginLink(user));
    expect(response.status).toBe(303);
    return sessionCookieOf(response)!;
  }

  const page = (path: string, cookie?: string) =>
    request(`${origin}${path}`, { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });

  const postForm = (path: string, fields: Record<string, string>, cookie?: string) =>
    request(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields).toString(),
    });

  /** Registers a public client and starts an authorization: the pending request, client and PKCE verifier. */
  async function pendingRequest(scope = 'read write') {
    const registered = await request(`${origin}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Test connector',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'st',
      scope,
    });
    const authorize = await request(`${origin}/authorize?${query}`);
    expect(authorize.status).toBe(302);
    const consent = new URL(authorize.headers.get('location')!, origin);
    return { requestId: consent.searchParams.get('request')!, clientId, verifier };
  }

  /** Answers a pending request on the consent page with the session `cookie`: the raw answer. */
  async function answer(requestId: string, cookie: string, decision: 'approve' | 'deny' = 'approve') {
    const shown = await page(`/oauth/consent?request=${requestId}`, cookie);
    expect(shown.status).toBe(200);
    const csrf = csrfIn(await shown.text());
    return postForm('/oauth/consent', { request: requestId, csrf, decision }, cookie);
  }

  const tokenRequest = async (params: Record<string, string>) => {
    const response = await request(`${origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** `user` signs in, approves a new client for `scope`, and the client trades the code for tokens. */
  async function connect(user: string, scope = 'read write', cookie?: string): Promise<Connected> {
    const session = cookie ?? (await signIn(user));
    const pending = await pendingRequest(scope);
    const approved = await answer(pending.requestId, session);
    expect(approved.status).toBe(303);
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
    const exchanged = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: pending.clientId,
      code,
      code_verifier: pending.verifier,
      redirect_uri: REDIRECT_URI,
    });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    return { clientId: pending.clientId, tokens: exchanged.body as unknown as ConnectorTokens, cookie: session };
  }

  const refresh = (connected: Pick<Connected, 'clientId' | 'tokens'>) =>
    tokenRequest({
      grant_type: 'refresh_token',
      client_id: connected.clientId,
      refresh_token: connected.tokens.refresh_token,
    });

  return { wsx, loginLink, signIn, page, postForm, pendingRequest, answer, tokenRequest, connect, refresh };
}
