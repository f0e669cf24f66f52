import { setTimeout as sleep } from 'node:timers/promises';
import { auth, extractWWWAuthenticateParams, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BrowserContext } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWsxClient, WsxError, type OAuthTokens as WsxOAuthTokens } from '../../packages/client/src/index.js';
import { launchChromium, type HeadlessChromium } from '../support/browser.js';
import { runWsx } from '../support/cli.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { MemoryOAuthProvider, startLoopbackListener, type LoopbackListener } from '../support/oauth-client.js';

/**
 * OAuth end to end, as a person connects a desktop client: the client knows only the server
 * URL. Its first request is refused with a pointer to the protected-resource metadata; it
 * discovers the authorization server, registers itself, and sends the person's browser to
 * the authorize URL. The person signs in with a link the admin made (`wsx login-link`),
 * approves on the consent page, and the browser lands on the client's loopback listener
 * with the code. The client then works, refreshes its token when the access token expires,
 * and is refused once the person (connectors page) or the admin (`wsx oauth revoke`) takes
 * the access back. The MCP SDK's own client drives /api/mcp; @wsx/client drives
 * /api/external with the tokens the same flow gave.
 */

const WAIT = { timeout: 30_000 };
/** Short enough to wait out in a test, long enough for a few calls on a slow store. */
const ACCESS_TOKEN_TTL_SECONDS = 3;
const ACCESS_TOKEN = /^svc_oat_[0-9A-Za-z]{40}$/;
const REFRESH_TOKEN = /^svc_ort_[0-9A-Za-z]{40}$/;

let h: Harness;
let origin: string;
let chromium: HeadlessChromium;
let loopback: LoopbackListener;
let users: Record<string, string>;
let publicUrlBefore: string | undefined;

beforeAll(async () => {
  // Without WSX_PUBLIC_URL the server names itself by the address it listens on.
  h = await startHarness([ACME], { oauthAccessTokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS });
  origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
  // `wsx login-link` runs beside the server and prints links under the public URL it is given.
  publicUrlBefore = process.env.WSX_PUBLIC_URL;
  process.env.WSX_PUBLIC_URL = origin;
  const listed = await h.call('GET', '/api/external/users', { token: TOKENS.admin });
  users = Object.fromEntries(listed.body.users.map((u: { handle: string; userId: string }) => [u.handle, u.userId]));
  chromium = await launchChromium();
  loopback = await startLoopbackListener();
}, 120_000);

afterAll(async () => {
  await loopback?.close();
  await chromium?.close();
  await h?.close();
  if (publicUrlBefore === undefined) delete process.env.WSX_PUBLIC_URL;
  else process.env.WSX_PUBLIC_URL = publicUrlBefore;
});

/** `wsx login-link` as the admin runs it: a one-time sign-in link for `user` that ends on `next`. */
async function loginLink(user: string, next: string): Promise<string> {
  const run = await runWsx(h.database, ['login-link', '--workspace', 'acme', '--user', user, '--next', next]);
  expect(run.code, run.stderr).toBe(0);
  const link = /https?:\/\/\S+/.exec(run.stdout)?.[0];
  expect(link, run.stdout).toMatch(new RegExp(`^${origin}/login/`));
  return link!;
}

/**
 * The person's part, in a browser context of its own (no cookies of an earlier run): open the authorize URL the client was sent
 * to (the consent page asks for a sign-in link), open the link the admin made for that
 * page, read what the page asks, approve. Answers the query the loopback listener received.
 */
async function approveInBrowser(
  context: BrowserContext,
  authorizationUrl: URL,
  person: { user: string; clientName: string; scopes: string[] },
): Promise<URLSearchParams> {
  const page = await context.newPage();
  await page.goto(authorizationUrl.href, WAIT);
  const consent = new URL(page.url());
  expect(consent.origin).toBe(origin);
  expect(consent.pathname).toBe('/oauth/consent');
  expect(consent.searchParams.get('request')).toMatch(/^oar_/);
  expect(await page.$eval('body', (body) => body.innerText)).toMatch(/sign-in link/i);

  await page.goto(await loginLink(person.user, consent.pathname + consent.search), WAIT);
  expect(page.url()).toBe(consent.href);
  const session = (await context.cookies()).find((cookie) => cookie.name === 'wsx_session');
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
  const asked = await page.$eval('main', (main) => main.innerText);
  expect(asked).toContain(person.clientName);
  expect(asked).toContain('Acme');
  expect(asked.includes('Create and change')).toBe(person.scopes.includes('write'));

  const received = loopback.next();
  await page.locator('::-p-aria([name="Approve"][role="button"])').setTimeout(WAIT.timeout).click();
  const query = await received;
  await page.waitForFunction((url) => window.location.href.startsWith(url), WAIT, loopback.redirectUrl);
  await page.close();
  return query;
}

/** What the SDK asked the browser to open: the authorize endpoint, PKCE S256, this resource and these scopes. */
function expectAuthorizationUrl(url: URL, provider: MemoryOAuthProvider, resource: string, scope: string) {
  expect(`${url.origin}${url.pathname}`).toBe(`${origin}/authorize`);
  expect(Object.fromEntries(url.searchParams)).toMatchObject({
    response_type: 'code',
    client_id: provider.clientId,
    redirect_uri: loopback.redirectUrl,
    code_challenge_method: 'S256',
    state: provider.lastState,
    resource,
    scope,
  });
}

/** When an access token received at `receivedAt` has expired at the latest. */
const expiry = (tokens: WsxOAuthTokens, receivedAt: number) => receivedAt + (tokens.expires_in ?? 0) * 1000;

/** Waits until `instant` has passed, plus a margin for the server's clock read. */
const waitUntil = async (instant: number) => sleep(Math.max(0, instant - Date.now() + 250));

/** One request with `accessToken` alone, outside any client's refresh logic (tools/list for /api/mcp). */
async function sendWith(path: string, accessToken: string): Promise<Response> {
  return fetch(`${origin}${path}`, {
    method: path === '/api/mcp' ? 'POST' : 'GET',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    ...(path === '/api/mcp' ? { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) } : {}),
  });
}

interface ToolResult {
  structuredContent?: any;
  isError?: boolean;
}

async function mcpClient(provider: MemoryOAuthProvider): Promise<Client> {
  const client = new Client({ name: 'wsx-oauth-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/api/mcp`), { authProvider: provider }));
  return client;
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

describe('an MCP client with nothing but the URL', () => {
  it('discovers, registers, is approved in the browser, calls tools, refreshes, and is refused after revocation on the connectors page', async () => {
    const context = await chromium.browser.createBrowserContext();
    const clientName = 'E2E desktop assistant';
    const provider = new MemoryOAuthProvider(loopback.redirectUrl, clientName);
    const mcpUrl = `${origin}/api/mcp`;

    // The first request is refused; the SDK discovers, registers and asks to open the authorize URL.
    const sent: string[] = [];
    const recording = async (url: string | URL, init?: RequestInit) => {
      const response = await fetch(url, init);
      sent.push(`${init?.method ?? 'GET'} ${new URL(url).pathname} ${response.status}`);
      return response;
    };
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: recording });
    await expect(new Client({ name: 'wsx-oauth-e2e', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(sent).toEqual([
      'POST /api/mcp 401',
      'GET /.well-known/oauth-protected-resource/api/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /register 201',
    ]);
    expect(provider.clientInformation()?.client_id).toBeTruthy();
    expect(provider.authorizations).toHaveLength(1);
    expectAuthorizationUrl(provider.authorizations[0], provider, mcpUrl, 'read write');

    const answer = await approveInBrowser(context, provider.authorizations[0], {
      user: 'alice',
      clientName,
      scopes: ['read', 'write'],
    });
    expect(answer.get('state')).toBe(provider.lastState);
    expect(answer.get('error')).toBeNull();
    await transport.finishAuth(answer.get('code')!);
    const first = provider.tokens()!;
    expect(first).toMatchObject({
      token_type: expect.stringMatching(/^bearer$/i),
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
    });
    expect(first.access_token).toMatch(ACCESS_TOKEN);
    expect(first.refresh_token).toMatch(REFRESH_TOKEN);
    expect(first.scope?.split(' ').sort()).toEqual(['read', 'write']);

    // Connected: the tools act as alice, with write access.
    const client = await mcpClient(provider);
    expect(await toolNames(client)).toEqual(expect.arrayContaining(['whoami', 'create_issue']));
    const me = await callTool(client, 'whoami');
    expect(me.structuredContent).toMatchObject({ principal: { kind: 'user', id: users.alice }, access: 'write' });
    const created = await callTool(client, 'create_issue', {
      projectKey: 'API',
      teamKey: 'ENG',
      title: 'Filed through an approved connector',
    });
    expect(created.isError ?? false).toBe(false);
    expect(created.structuredContent.issue).toMatchObject({ title: 'Filed through an approved connector' });

    // The access token expires; the next call is refused once, the SDK refreshes and sends it again.
    const held = provider.tokens()!;
    await waitUntil(provider.accessTokenExpiry);
    expect((await sendWith('/api/mcp', held.access_token)).status).toBe(401);
    const saved = provider.savedTokens.length;
    expect((await callTool(client, 'whoami')).structuredContent.principal.id).toBe(users.alice);
    expect(provider.savedTokens.length).toBe(saved + 1);
    const refreshed = provider.tokens()!;
    expect(refreshed.access_token).toMatch(ACCESS_TOKEN);
    expect(refreshed.access_token).not.toBe(held.access_token);
    expect(refreshed.refresh_token).toMatch(REFRESH_TOKEN);
    expect(refreshed.refresh_token).not.toBe(held.refresh_token);

    // Alice takes the access back on the connectors page (the session of her sign-in link).
    const page = await context.newPage();
    await page.goto(`${origin}/settings/connectors`, WAIT);
    expect(await page.$eval('main', (main) => main.innerText)).toContain(clientName);
    await Promise.all([
      page.waitForNavigation(WAIT),
      page.locator(`::-p-aria([name="Revoke ${clientName}"][role="button"])`).setTimeout(WAIT.timeout).click(),
    ]);
    expect(await page.$eval('main', (main) => main.innerText)).not.toContain(clientName);
    await page.close();

    // Refused from the next call: the access token is dead, the refresh token too, so the
    // SDK can only send the person to authorize again.
    const revoked = await sendWith('/api/mcp', refreshed.access_token);
    expect(revoked.status).toBe(401);
    expect(extractWWWAuthenticateParams(revoked).resourceMetadataUrl?.href).toBe(
      `${origin}/.well-known/oauth-protected-resource/api/mcp`,
    );
    await expect(callTool(client, 'whoami')).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizations).toHaveLength(2);
    await client.close();
    await context.close();
  }, 120_000);

  it('with scope read gets a read-only token: a write tool call is asked to step up', async () => {
    const context = await chromium.browser.createBrowserContext();
    const clientName = 'E2E read-only viewer';
    const provider = new MemoryOAuthProvider(loopback.redirectUrl, clientName);
    const serverUrl = `${origin}/api/mcp`;

    // The SDK's transport asks for every scope the server lists; a client that wants less
    // runs the SDK's auth() with its scope.
    expect(await auth(provider, { serverUrl, scope: 'read' })).toBe('REDIRECT');
    expectAuthorizationUrl(provider.authorizations[0], provider, serverUrl, 'read');
    const answer = await approveInBrowser(context, provider.authorizations[0], {
      user: 'carol',
      clientName,
      scopes: ['read'],
    });
    expect(answer.get('state')).toBe(provider.lastState);
    expect(await auth(provider, { serverUrl, authorizationCode: answer.get('code')! })).toBe('AUTHORIZED');
    expect(provider.tokens()?.scope).toBe('read');

    const client = await mcpClient(provider);
    const names = await toolNames(client);
    // The write tools are listed too: a call to one asks the client to step up.
    expect(names).toEqual(expect.arrayContaining(['whoami', 'list_issues', 'get_issue', 'create_issue']));
    expect((await callTool(client, 'whoami')).structuredContent).toMatchObject({
      principal: { kind: 'user', id: users.carol },
      access: 'read',
    });
    // 403 insufficient_scope, before anything runs: the client may ask the person for `write`.
    await expect(
      callTool(client, 'create_issue', { projectKey: 'API', teamKey: 'ENG', title: 'Not allowed' }),
    ).rejects.toThrow(/403|insufficient_scope/);
    await client.close();
    await context.close();
  }, 120_000);
});

describe('@wsx/client with an OAuth grant', () => {
  it('uses the tokens of the same flow on /api/external, refreshes once for calls refused together, and is refused after `wsx oauth revoke`', async () => {
    const context = await chromium.browser.createBrowserContext();
    const clientName = 'E2E sync script';
    const provider = new MemoryOAuthProvider(loopback.redirectUrl, clientName);
    const serverUrl = `${origin}/api/external`;

    // From the URL alone: the 401 names the resource metadata, the SDK's auth() does the rest.
    const probe = await fetch(serverUrl);
    expect(probe.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(probe);
    expect(resourceMetadataUrl?.href).toBe(`${origin}/.well-known/oauth-protected-resource/api/external`);
    expect(await auth(provider, { serverUrl, resourceMetadataUrl })).toBe('REDIRECT');
    expectAuthorizationUrl(provider.authorizations[0], provider, serverUrl, 'read write');
    const answer = await approveInBrowser(context, provider.authorizations[0], {
      user: 'bob',
      clientName,
      scopes: ['read', 'write'],
    });
    expect(await auth(provider, { serverUrl, resourceMetadataUrl, authorizationCode: answer.get('code')! })).toBe(
      'AUTHORIZED',
    );
    const tokens = provider.tokens()!;

    const rotations: WsxOAuthTokens[] = [];
    let expiresAt = provider.accessTokenExpiry;
    const wsx = createWsxClient({
      baseUrl: origin,
      oauth: {
        clientId: provider.clientId,
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token!,
        onTokens: (next) => {
          rotations.push(next);
          expiresAt = expiry(next, Date.now());
        },
      },
    });
    const me = await wsx.GET('/api/external');
    expect(me).toMatchObject({ principal: { kind: 'user', id: users.bob }, access: 'write' });
    const { issue } = await wsx.POST('/api/external/issues', {
      body: { projectKey: 'INFRA', teamKey: 'OPS', title: 'Filed by a script bob approved' },
    });
    expect(issue.title).toBe('Filed by a script bob approved');

    // Expired: three calls refused together share one refresh (a second one would present a
    // rotated refresh token and revoke the grant).
    await waitUntil(expiresAt);
    const before = rotations.length;
    const held = rotations.at(-1)?.refresh_token ?? tokens.refresh_token;
    const reads = await Promise.all(
      [1, 2, 3].map(() => wsx.GET('/api/external/issues/{issueId}', { params: { path: { issueId: issue.issueId } } })),
    );
    expect(reads.map((read) => read.issue.issueId)).toEqual([issue.issueId, issue.issueId, issue.issueId]);
    expect(rotations).toHaveLength(before + 1);
    const latest = rotations.at(-1)!;
    expect(latest.access_token).toMatch(ACCESS_TOKEN);
    expect(latest.refresh_token).toMatch(REFRESH_TOKEN);
    expect(latest.refresh_token).not.toBe(held);

    // The admin lists the grants and revokes bob's.
    const list = await runWsx(h.database, ['oauth', 'list', '--workspace', 'acme', '--json']);
    expect(list.code, list.stderr).toBe(0);
    const { grants } = JSON.parse(list.stdout) as {
      grants: Array<{ grantId: string; clientName: string; user: string }>;
    };
    const grant = grants.find((each) => each.clientName === clientName);
    expect(grant).toMatchObject({ grantId: expect.stringMatching(/^ogr_/), user: 'bob' });
    const revoke = await runWsx(h.database, ['oauth', 'revoke', grant!.grantId, '--workspace', 'acme']);
    expect(revoke.code, revoke.stderr).toBe(0);

    const refused = await wsx.GET('/api/external/projects').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WsxError);
    expect(refused).toMatchObject({ status: 401 });
    expect(rotations).toHaveLength(before + 1);
    expect((await sendWith('/api/external', latest.access_token)).status).toBe(401);
    await context.close();
  }, 120_000);
});
