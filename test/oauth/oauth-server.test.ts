import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approveAuthorization,
  denyAuthorization,
  readPendingAuthorization,
} from '../../src/modules/oauth/authorization-requests.js';
import { listGrants, revokeGrant } from '../../src/modules/oauth/grants.js';
import { runWsx } from '../support/cli.js';
import { ACME } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * wsx as an OAuth 2.1 authorization server, over HTTP against a listening server: metadata
 * (RFC 8414, RFC 9728), registration (RFC 7591), authorize → consent request (approved here
 * through approveAuthorization, as the consent page does), code exchange with PKCE S256,
 * access levels of the issued `svc_oat_` tokens on /api/external and /api/mcp, refresh
 * rotation and reuse detection, code reuse, revocation (RFC 7009), expiry, resource
 * indicators (RFC 8707) and the 401's WWW-Authenticate. The browser side (sign-in and the
 * consent page) is test/oauth/oauth-e2e.test.ts's.
 */

const LOOPBACK_REDIRECT = 'http://127.0.0.1:33418/callback';

interface Started {
  h: Harness;
  base: string;
  person: { workspaceId: string; userId: string };
}

async function start(config: Parameters<typeof startHarness>[1] = {}): Promise<Started> {
  // The OAuth endpoints' own rate limit is off, as the harness turns the others off; one test turns it on.
  const h = await startHarness([ACME], { oauthRateLimitPerMinute: 0, ...config });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  const carol = await h.database.db
    .selectFrom('users as u')
    .innerJoin('workspaces as w', 'w.id', 'u.workspace_id')
    .select(['u.id', 'u.workspace_id'])
    .where('w.slug', '=', 'acme')
    .where('u.handle', '=', 'carol')
    .executeTakeFirstOrThrow();
  return { h, base, person: { workspaceId: carol.workspace_id, userId: carol.id } };
}

let s: Started;
beforeAll(async () => {
  s = await start();
});
afterAll(() => s.h.close());

const json = async (response: Response) => ({ status: response.status, body: await response.json() });

const register = async (metadata: Record<string, unknown>) =>
  json(
    await fetch(`${s.base}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(metadata),
    }),
  );

async function publicClient(redirect = LOOPBACK_REDIRECT): Promise<string> {
  const { status, body } = await register({
    client_name: 'Test Desktop',
    redirect_uris: [redirect],
    token_endpoint_auth_method: 'none',
  });
  expect(status).toBe(201);
  return body.client_id as string;
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** GET /authorize; answers where the server sends the browser. */
async function authorize(clientId: string, params: Record<string, string>): Promise<URL> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: LOOPBACK_REDIRECT,
    code_challenge_method: 'S256',
    state: 'st-1',
    ...params,
  });
  const response = await fetch(`${s.base}/authorize?${query}`, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location') as string, s.base);
}

const tokenRequest = async (params: Record<string, string>) =>
  json(
    await fetch(`${s.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params),
    }),
  );

const revoke = async (params: Record<string, string>) =>
  fetch(`${s.base}/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });

/** Authorize and approve (as the consent page would) for `scopes`; answers the code and its verifier. */
async function approvedCode(clientId: string, scopes: string[], extra: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const consent = await authorize(clientId, { code_challenge: challenge, scope: scopes.join(' '), ...extra });
  const requestId = consent.searchParams.get('request') as string;
  const redirect = new URL(await approveAuthorization(s.h.database.db, requestId, s.person, scopes, `${s.base}/`));
  expect(redirect.searchParams.get('state')).toBe('st-1');
  return { code: redirect.searchParams.get('code') as string, verifier };
}

/** A client connected for `scopes`: its id and its first token answer. */
async function connect(scopes: string[]) {
  const clientId = await publicClient();
  const { code, verifier } = await approvedCode(clientId, scopes);
  const { status, body } = await tokenRequest({
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: LOOPBACK_REDIRECT,
  });
  expect(status).toBe(200);
  return { clientId, tokens: body as { access_token: string; refresh_token: string; scope: string } };
}

const api = (method: string, path: string, token?: string, body?: unknown) =>
  s.h.call(method, `/api/external${path}`, { ...(token ? { token } : {}), ...(body ? { body } : {}) });

const mcp = async (token: string, method: string, params: Record<string, unknown> = {}) =>
  fetch(`${s.base}/api/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });

describe('metadata', () => {
  it('serves the authorization server metadata (RFC 8414)', async () => {
    const { status, body } = await json(await fetch(`${s.base}/.well-known/oauth-authorization-server`));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      issuer: `${s.base}/`,
      authorization_endpoint: `${s.base}/authorize`,
      token_endpoint: `${s.base}/token`,
      registration_endpoint: `${s.base}/register`,
      revocation_endpoint: `${s.base}/revoke`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      scopes_supported: ['read', 'write'],
    });
    expect(body.token_endpoint_auth_methods_supported).toContain('none');
  });

  it('answers an OAuth path with trailing slashes or a query as the path itself', async () => {
    for (const suffix of ['/', '//?probe=1', '?probe=1']) {
      const { status, body } = await json(await fetch(`${s.base}/.well-known/oauth-authorization-server${suffix}`));
      expect(status, suffix).toBe(200);
      expect(body.issuer, suffix).toBe(`${s.base}/`);
    }
    const { status, body } = await json(await fetch(`${s.base}/.well-known/oauth-authorization-server-x`));
    expect(status).toBe(404);
    expect(body.code).toBe('ROUTE_NOT_FOUND');
  });

  it.each([
    ['/.well-known/oauth-protected-resource/api/mcp', '/api/mcp'],
    ['/.well-known/oauth-protected-resource/api/external', '/api/external'],
    ['/.well-known/oauth-protected-resource', '/'],
  ])('serves protected-resource metadata at %s (RFC 9728)', async (path, resource) => {
    const { status, body } = await json(await fetch(`${s.base}${path}`));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      resource: `${s.base}${resource}`,
      authorization_servers: [`${s.base}/`],
      scopes_supported: ['read', 'write'],
    });
  });

  it('names the metadata in WWW-Authenticate on the 401s of /api/external and /api/mcp, body unchanged', async () => {
    const external = await fetch(`${s.base}/api/external/projects`);
    expect(external.status).toBe(401);
    expect(external.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${s.base}/.well-known/oauth-protected-resource/api/external"`,
    );
    const body = await external.json();
    expect(body).toMatchObject({ code: 'UNAUTHORIZED', details: {} });
    const door = await mcp('svc_oat_unknownunknownunknownunknownunknown', 'tools/list');
    expect(door.status).toBe(401);
    expect(door.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${s.base}/.well-known/oauth-protected-resource/api/mcp"`,
    );
    expect(await door.json()).toEqual(body);
  });
});

describe('dynamic client registration', () => {
  it('registers a public native client with a loopback redirect', async () => {
    const { status, body } = await register({
      client_name: 'Desktop Assistant',
      redirect_uris: ['http://127.0.0.1/callback', 'http://localhost:8976/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      jwks: { keys: [] },
    });
    expect(status).toBe(201);
    expect(body.client_id).toMatch(/^ocl_[0-9a-z]{26}$/);
    expect(body).toMatchObject({
      client_name: 'Desktop Assistant',
      token_endpoint_auth_method: 'none',
      response_types: ['code'],
    });
    expect(body.client_secret).toBeUndefined();
    expect(body.jwks).toBeUndefined();
  });

  it('registers custom-scheme redirect URIs as native apps use them', async () => {
    const { status, body } = await register({
      redirect_uris: ['com.example.app:/oauth2redirect', 'dev.example.editor://oauth/callback'],
      token_endpoint_auth_method: 'none',
    });
    expect(status).toBe(201);
    expect(body.redirect_uris).toHaveLength(2);
  });

  it('gives a confidential client a secret that does not expire, and checks it at the token endpoint', async () => {
    const { status, body } = await register({ redirect_uris: [LOOPBACK_REDIRECT] });
    expect(status).toBe(201);
    expect(body.token_endpoint_auth_method).toBe('client_secret_post');
    expect(body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.client_secret_expires_at).toBe(0);
    const { code, verifier } = await approvedCode(body.client_id, ['read']);
    const exchange = { grant_type: 'authorization_code', client_id: body.client_id, code, code_verifier: verifier };
    const wrong = await tokenRequest({ ...exchange, client_secret: 'x'.repeat(43) });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_client' } });
    const missing = await tokenRequest(exchange);
    expect(missing).toMatchObject({ status: 400, body: { error: 'invalid_client' } });
    const right = await tokenRequest({ ...exchange, client_secret: body.client_secret });
    expect(right.status).toBe(200);
  });

  it.each([
    ['http on a non-loopback host', ['http://example.com/callback']],
    ['a javascript: URI', ['javascript:alert(1)']],
    ['a file: URI', ['file:///etc/passwd']],
    ['a fragment', ['https://client.example/cb#frag']],
    ['user information', ['https://user:pw@client.example/cb']],
    ['no URI', []],
    ['eleven URIs', Array.from({ length: 11 }, (_, i) => `https://client.example/cb${i}`)],
    ['a URI over 2000 characters', [`https://client.example/${'a'.repeat(2000)}`]],
  ])('refuses %s as a redirect with invalid_client_metadata', async (_label, uris) => {
    const { status, body } = await register({ redirect_uris: uris, token_endpoint_auth_method: 'none' });
    expect(status).toBe(400);
    expect(body.error).toMatch(/^invalid_(client_metadata|redirect_uri)$/);
  });

  it.each([
    ['a client_name over 200 characters', { client_name: 'n'.repeat(201) }],
    ['a client_name with direction controls', { client_name: 'Good\u202eevil' }],
    ['an unsupported grant type', { grant_types: ['client_credentials'] }],
    ['an unsupported authentication method', { token_endpoint_auth_method: 'private_key_jwt' }],
    ['eleven contacts', { contacts: Array.from({ length: 11 }, (_, i) => `c${i}@x.test`) }],
  ])('refuses %s', async (_label, extra) => {
    const { status, body } = await register({ redirect_uris: [LOOPBACK_REDIRECT], ...extra });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
  });

  it('refuses a body over the size limit without reading it all', async () => {
    const response = await fetch(`${s.base}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [LOOPBACK_REDIRECT], client_name: 'x'.repeat(200_000) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('authorization', () => {
  it('saves the request and sends the browser to the consent page', async () => {
    const clientId = await publicClient();
    const { challenge } = pkce();
    const consent = await authorize(clientId, { code_challenge: challenge, scope: 'read' });
    expect(consent.pathname).toBe('/oauth/consent');
    const requestId = consent.searchParams.get('request') as string;
    expect(requestId).toMatch(/^oar_/);
    expect(await readPendingAuthorization(s.h.database.db, requestId)).toEqual({
      requestId,
      clientName: 'Test Desktop',
      clientId,
      redirectUri: LOOPBACK_REDIRECT,
      scopes: ['read'],
    });
  });

  it('asks for read and write when the client names no scope, and keeps the resource', async () => {
    const clientId = await publicClient();
    const consent = await authorize(clientId, { code_challenge: pkce().challenge, resource: `${s.base}/api/mcp` });
    const pending = await readPendingAuthorization(s.h.database.db, consent.searchParams.get('request') as string);
    expect(pending).toMatchObject({ scopes: ['read', 'write'], resource: `${s.base}/api/mcp` });
  });

  it('answers the client with error=access_denied when the person denies', async () => {
    const clientId = await publicClient();
    const consent = await authorize(clientId, { code_challenge: pkce().challenge });
    const requestId = consent.searchParams.get('request') as string;
    const redirect = new URL(await denyAuthorization(s.h.database.db, requestId, `${s.base}/`));
    expect(redirect.origin + redirect.pathname).toBe(LOOPBACK_REDIRECT);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe('st-1');
    expect(await readPendingAuthorization(s.h.database.db, requestId)).toBeUndefined();
    await expect(
      approveAuthorization(s.h.database.db, requestId, s.person, ['read'], `${s.base}/`),
    ).rejects.toMatchObject({
      reason: 'gone',
    });
  });

  it.each([
    ['the plain PKCE method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['an unknown scope', { scope: 'admin' }, 'invalid_scope'],
    ['a foreign resource', { resource: 'https://elsewhere.example/api/mcp' }, 'invalid_target'],
  ])('redirects %s back with the RFC error, the state and the issuer', async (_label, params, error) => {
    const clientId = await publicClient();
    const back = await authorize(clientId, { code_challenge: pkce().challenge, ...params });
    expect(back.origin + back.pathname).toBe(LOOPBACK_REDIRECT);
    expect(back.searchParams.get('error')).toBe(error);
    expect(back.searchParams.get('code')).toBeNull();
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('iss')).toBe(`${s.base}/`);
  });

  it('answers an unregistered redirect URI directly, never redirecting to it', async () => {
    const clientId = await publicClient();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'https://attacker.example/cb',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const response = await fetch(`${s.base}/authorize?${query}`, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('tokens', () => {
  it('exchanges a code only with the right PKCE verifier', async () => {
    const clientId = await publicClient();
    const { code, verifier } = await approvedCode(clientId, ['read', 'write']);
    const exchange = { grant_type: 'authorization_code', client_id: clientId, code };
    const wrong = await tokenRequest({ ...exchange, code_verifier: pkce().verifier });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const { status, body } = await tokenRequest({ ...exchange, code_verifier: verifier });
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read write' });
    expect(body.access_token).toMatch(/^svc_oat_[0-9A-Za-z]{40}$/);
    expect(body.refresh_token).toMatch(/^svc_ort_[0-9A-Za-z]{40}$/);
  });

  it('issues a read-only token for scope read, on /api/external and /api/mcp', async () => {
    const { tokens } = await connect(['read']);
    expect(tokens.scope).toBe('read');
    expect((await api('GET', '/projects', tokens.access_token)).status).toBe(200);
    const write = await api('POST', '/issues', tokens.access_token, { projectKey: 'API', teamKey: 'ENG', title: 'x' });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('TOKEN_READ_ONLY');
    // On /api/mcp the client may step up: it sees the write tools, and a call to one is a
    // 403 insufficient_scope challenge naming the scope to ask for, before anything runs.
    const listed = await mcp(tokens.access_token, 'tools/list');
    expect(listed.status).toBe(200);
    const tools = (await listed.json()).result.tools as Array<{ name: string }>;
    expect(tools.map((tool) => tool.name)).toContain('create_issue');
    const call = await mcp(tokens.access_token, 'tools/call', {
      name: 'create_issue',
      arguments: { projectKey: 'API', teamKey: 'ENG', title: 'Step up first' },
    });
    expect(call.status).toBe(403);
    const challenge = call.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="write"');
    expect(challenge).toContain(`resource_metadata="${s.base}/.well-known/oauth-protected-resource/api/mcp"`);
    expect((await api('GET', '/issues?q=Step%20up%20first', tokens.access_token)).body.issues).toEqual([]);
  });

  it('issues a token that writes for scope write, acting as the approving person', async () => {
    const { tokens } = await connect(['read', 'write']);
    const made = await api('POST', '/issues', tokens.access_token, {
      projectKey: 'API',
      teamKey: 'ENG',
      title: 'By OAuth',
    });
    expect(made.status).toBe(201);
    expect(made.body.issue.createdBy).toBe(s.person.userId);
  });

  it('refuses a token request for a foreign resource with invalid_target', async () => {
    const clientId = await publicClient();
    const { code, verifier } = await approvedCode(clientId, ['read']);
    const refused = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: verifier,
      resource: 'https://elsewhere.example/',
    });
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    const own = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: verifier,
      resource: `${s.base}/api/external`,
    });
    expect(own.status).toBe(200);
  });

  it('revokes the grant when a code is used twice', async () => {
    const clientId = await publicClient();
    const { code, verifier } = await approvedCode(clientId, ['read']);
    const exchange = { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier };
    const first = await tokenRequest(exchange);
    expect(first.status).toBe(200);
    expect((await api('GET', '/projects', first.body.access_token)).status).toBe(200);
    const second = await tokenRequest(exchange);
    expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await api('GET', '/projects', first.body.access_token)).status).toBe(401);
    expect(
      (
        await tokenRequest({
          grant_type: 'refresh_token',
          client_id: clientId,
          refresh_token: first.body.refresh_token,
        })
      ).body.error,
    ).toBe('invalid_grant');
  });

  it('rotates the refresh token on every use', async () => {
    const { clientId, tokens } = await connect(['read', 'write']);
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.body.access_token).not.toBe(tokens.access_token);
    expect(refreshed.body.scope).toBe('read write');
    expect((await api('GET', '/projects', refreshed.body.access_token)).status).toBe(200);
    // Fewer scopes may be asked for; more may not.
    const narrowed = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: refreshed.body.refresh_token,
      scope: 'read',
    });
    expect(narrowed.body.scope).toBe('read');
    const write = await api('POST', '/issues', narrowed.body.access_token, {
      projectKey: 'API',
      teamKey: 'ENG',
      title: 'x',
    });
    expect(write.body.code).toBe('TOKEN_READ_ONLY');
  });

  it('refuses a refresh asking for more than was granted with invalid_scope', async () => {
    const { clientId, tokens } = await connect(['read']);
    const refused = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: tokens.refresh_token,
      scope: 'read write',
    });
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
  });

  it('revokes the whole grant when a rotated refresh token comes back', async () => {
    const { clientId, tokens } = await connect(['read']);
    const refresh = (refreshToken: string) =>
      tokenRequest({ grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });
    const next = await refresh(tokens.refresh_token);
    expect(next.status).toBe(200);
    expect((await api('GET', '/projects', next.body.access_token)).status).toBe(200);
    const replayed = await refresh(tokens.refresh_token);
    expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // Every token of the grant stops at once, on this process.
    expect((await api('GET', '/projects', next.body.access_token)).status).toBe(401);
    expect((await api('GET', '/projects', tokens.access_token)).status).toBe(401);
    expect((await refresh(next.body.refresh_token)).body.error).toBe('invalid_grant');
    expect(
      (await listGrants(s.h.database.db, { workspaceId: s.person.workspaceId })).map((g) => g.clientId),
    ).not.toContain(clientId);
  });

  it('lets exactly one of two racing refreshes with one token through, then revokes the grant', async () => {
    const { clientId, tokens } = await connect(['read']);
    const answers = await Promise.all(
      [1, 2].map(() =>
        tokenRequest({ grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.refresh_token }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    const issued = answers.find((answer) => answer.status === 200)!.body.access_token as string;
    expect((await api('GET', '/projects', issued)).status).toBe(401);
  });

  it("refuses another client's code and refresh token", async () => {
    const { tokens } = await connect(['read']);
    const other = await publicClient();
    const stolen = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: other,
      refresh_token: tokens.refresh_token,
    });
    expect(stolen).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});

describe('revocation (RFC 7009)', () => {
  it('revokes one access token at once, even one the credential cache holds', async () => {
    const { clientId, tokens } = await connect(['read']);
    expect((await api('GET', '/projects', tokens.access_token)).status).toBe(200);
    const response = await revoke({ client_id: clientId, token: tokens.access_token, token_type_hint: 'access_token' });
    expect(response.status).toBe(200);
    const refused = await api('GET', '/projects', tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual((await api('GET', '/projects')).body);
    // The refresh token still works: only the access token was revoked.
    const next = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: tokens.refresh_token,
    });
    expect(next.status).toBe(200);
  });

  it('revokes the grant with a refresh token', async () => {
    const { clientId, tokens } = await connect(['read']);
    expect((await api('GET', '/projects', tokens.access_token)).status).toBe(200);
    expect((await revoke({ client_id: clientId, token: tokens.refresh_token })).status).toBe(200);
    expect((await api('GET', '/projects', tokens.access_token)).status).toBe(401);
    const next = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: tokens.refresh_token,
    });
    expect(next.body.error).toBe('invalid_grant');
  });

  it("answers 200 and does nothing for an unknown token or another client's", async () => {
    const { tokens } = await connect(['read']);
    const other = await publicClient();
    expect((await revoke({ client_id: other, token: tokens.access_token })).status).toBe(200);
    expect((await revoke({ client_id: other, token: 'nothing-like-a-token' })).status).toBe(200);
    expect((await api('GET', '/projects', tokens.access_token)).status).toBe(200);
  });
});

describe('grants', () => {
  it('lists the person’s connectors and revokes one with every token', async () => {
    const { clientId, tokens } = await connect(['read', 'write']);
    const grants = await listGrants(s.h.database.db, s.person);
    const grant = grants.find((g) => g.clientId === clientId);
    expect(grant).toMatchObject({ clientName: 'Test Desktop', userId: s.person.userId, scopes: ['read', 'write'] });
    expect(grant?.grantId).toMatch(/^ogr_/);
    expect(grant?.lastUsedAt).toEqual(expect.any(String));
    expect((await api('GET', '/projects', tokens.access_token)).status).toBe(200);
    expect(await revokeGrant(s.h.database.db, { workspaceId: s.person.workspaceId, grantId: grant!.grantId })).toBe(
      true,
    );
    expect(await revokeGrant(s.h.database.db, { workspaceId: s.person.workspaceId, grantId: grant!.grantId })).toBe(
      false,
    );
    expect((await api('GET', '/projects', tokens.access_token)).status).toBe(401);
  });

  it('keeps one grant per person and client however often it is approved', async () => {
    const clientId = await publicClient();
    await approvedCode(clientId, ['read']);
    await approvedCode(clientId, ['read', 'write']);
    const grants = (await listGrants(s.h.database.db, s.person)).filter((g) => g.clientId === clientId);
    expect(grants).toHaveLength(1);
    expect(grants[0].scopes).toEqual(['read', 'write']);
  });
});

describe('wsx token revoke', () => {
  it("ends the grant of a connector's token, so its refresh token mints nothing", async () => {
    const { clientId, tokens } = await connect(['read']);
    const revoked = await runWsx(s.h.database, [
      'token',
      'revoke',
      '--workspace',
      ACME.workspace.slug,
      '--oauth-user',
      'carol',
    ]);
    expect(revoked.code).toBe(0);
    expect((await api('GET', '/projects', tokens.access_token)).status).toBe(401);
    const next = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: tokens.refresh_token,
    });
    expect(next.body.error).toBe('invalid_grant');
    expect((await listGrants(s.h.database.db, s.person)).some((g) => g.clientId === clientId)).toBe(false);
  });
});

describe('the workspace file', () => {
  it("leaves a connector's tokens alone when an entry is about all of a user's tokens", async () => {
    const { tokens } = await connect(['read']);
    const issued = () =>
      s.h.database.db
        .selectFrom('oauth_tokens')
        .select(['expires_at', 'access', 'active'])
        .where('user_id', '=', s.person.userId)
        .where('grant_id', 'is not', null)
        .execute();
    const before = await issued();
    await s.h.apply({
      workspace: ACME.workspace,
      oauthTokens: [{ user: 'carol', expiresAt: '2999-12-31T23:59:59Z', access: 'write' }],
    });
    expect(await issued()).toEqual(before);
    expect((await api('GET', '/projects', tokens.access_token)).status).toBe(200);
  });
});

describe('rate limit', () => {
  it('bounds registrations per client address (a sixth of WSX_OAUTH_RATE_LIMIT)', async () => {
    const limited = await start({ oauthRateLimitPerMinute: 6 });
    const previous = s;
    s = limited;
    try {
      const first = await register({ redirect_uris: [LOOPBACK_REDIRECT], token_endpoint_auth_method: 'none' });
      expect(first.status).toBe(201);
      const second = await register({ redirect_uris: [LOOPBACK_REDIRECT], token_endpoint_auth_method: 'none' });
      expect(second).toMatchObject({ status: 429, body: { error: 'too_many_requests' } });
    } finally {
      s = previous;
      await limited.h.close();
    }
  });
});

describe('expiry', () => {
  it('refuses an expired access token with the 401 of any bad credential', async () => {
    const short = await start({ oauthAccessTokenTtlSeconds: 1 });
    const previous = s;
    s = short;
    try {
      const { tokens } = await connect(['read']);
      expect((await api('GET', '/projects', tokens.access_token)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const refused = await api('GET', '/projects', tokens.access_token);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual((await api('GET', '/projects')).body);
    } finally {
      s = previous;
      await short.h.close();
    }
  });
});
