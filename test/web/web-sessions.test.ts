import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { freePort } from '../support/free-port.js';
import { runWsx } from '../support/cli.js';

/**
 * The browser side of sign-in and consent, over real HTTP with cookies and redirects by
 * hand: one-time sign-in links (`wsx login-link`), the session cookie, the consent page and
 * its CSRF-checked answers, the connectors page, sign-out, and `wsx oauth list|revoke`.
 * Pending authorization requests are made the way a client makes them: registration, then
 * /authorize.
 */

let h: Harness;
let origin: string;
const REDIRECT_URI = 'http://127.0.0.1:45678/callback';

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  h = await startHarness([ACME, GLOBEX], { publicUrl: origin });
  await h.app.listen({ host: '127.0.0.1', port });
});
afterAll(() => h.close());

/** One `wsx` command line against a harness's database, with WSX_PUBLIC_URL set to `publicUrl`. */
const wsx = (args: string[], publicUrl = origin, on: Harness = h) =>
  runWsx(on.database, args, { WSX_PUBLIC_URL: publicUrl });

/** A fresh sign-in link for `user` of acme, as `wsx login-link` prints it. */
async function loginLink(user: string, ...extra: string[]): Promise<string> {
  const run = await wsx(['login-link', '--workspace', 'acme', '--user', user, '--json', ...extra]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout).url as string;
}

const request = (url: string, init: RequestInit = {}) => fetch(url, { redirect: 'manual', ...init });

const sessionCookieOf = (response: Response): string | undefined =>
  response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith('wsx_session='))
    ?.split(';')[0];

/** Opens a link and answers the session cookie (`wsx_session=…`) and where the browser is sent. */
async function signIn(user: string, ...extra: string[]) {
  const response = await request(await loginLink(user, ...extra));
  expect(response.status).toBe(303);
  return { cookie: sessionCookieOf(response)!, location: response.headers.get('location') };
}

const page = (path: string, cookie?: string, headers: Record<string, string> = {}) =>
  request(`${origin}${path}`, { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}), ...headers } });

const postForm = (path: string, fields: Record<string, string>, cookie?: string) =>
  request(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(fields).toString(),
  });

const csrfIn = (html: string): string => /name="csrf" value="([^"]+)"/.exec(html)![1];

/** Registers a public client and starts an authorization: answers the pending request id. */
async function pendingRequest(clientName: string, scope = 'read write', state = 'st-123') {
  const registered = await request(`${origin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: clientName,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(registered.status).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    scope,
  });
  const authorize = await request(`${origin}/authorize?${query}`);
  expect(authorize.status).toBe(302);
  const consent = new URL(authorize.headers.get('location')!, origin);
  expect(consent.pathname).toBe('/oauth/consent');
  return { requestId: consent.searchParams.get('request')!, clientId };
}

/** The consent page for a request, read by a signed-in browser, with its CSRF token. */
async function consent(requestId: string, cookie: string) {
  const response = await page(`/oauth/consent?request=${requestId}`, cookie);
  expect(response.status).toBe(200);
  const html = await response.text();
  return { response, html, csrf: csrfIn(html) };
}

async function approve(user: string, clientName: string, scope = 'read write') {
  const { cookie } = await signIn(user);
  const { requestId } = await pendingRequest(clientName, scope);
  const { csrf } = await consent(requestId, cookie);
  const answer = await postForm('/oauth/consent', { request: requestId, csrf, decision: 'approve' }, cookie);
  expect(answer.status).toBe(303);
  return { cookie, location: new URL(answer.headers.get('location')!) };
}

const grantRows = (userHandle?: string) =>
  h.database.db
    .selectFrom('oauth_grants as g')
    .innerJoin('users as u', 'u.id', 'g.user_id')
    .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .select(['g.id', 'g.revoked_at', 'u.handle', 'c.client_name'])
    .$if(userHandle !== undefined, (q) => q.where('u.handle', '=', userHandle!))
    .execute();

/** Security headers every page carries. */
function expectPageHeaders(response: Response) {
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  const csp = response.headers.get('content-security-policy')!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('script-src');
  expect(csp).not.toContain('unsafe-inline');
}

describe('sign-in links', () => {
  it('prints a one-time link under WSX_PUBLIC_URL that expires in 10 minutes', async () => {
    const before = Date.now();
    const json = await wsx(['login-link', '--workspace', 'acme', '--user', 'alice', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const body = JSON.parse(json.stdout);
    expect(body).toEqual({
      url: expect.stringMatching(new RegExp(`^${origin}/login/[A-Za-z0-9_-]{43}$`)),
      workspace: 'acme',
      user: 'alice',
      expiresAt: expect.any(String),
    });
    const ttl = Date.parse(body.expiresAt) - before;
    expect(ttl).toBeGreaterThan(9.9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 5_000);

    const text = await wsx(['login-link', '--workspace', 'acme', '--user', 'alice'], 'https://wsx.example.test/');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Sign-in link for Alice Archer (alice) in workspace "acme", usable once until');
    expect(text.stdout).toMatch(/^ {2}https:\/\/wsx\.example\.test\/login\/[A-Za-z0-9_-]{43}$/m);
  });

  it('finds the user by handle, email (any case) or id, and refuses unknown users and workspaces', async () => {
    const users = (await h.call('GET', '/api/external/users', { token: TOKENS.admin })).body.users as Array<{
      handle: string;
      userId: string;
    }>;
    const bobId = users.find((user) => user.handle === 'bob')!.userId;
    for (const ref of ['bob', 'BOB@acme.test', bobId]) {
      const run = await wsx(['login-link', '--workspace', 'acme', '--user', ref, '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).user).toBe('bob');
    }
    const unknown = await wsx(['login-link', '--workspace', 'acme', '--user', 'gina']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no user "gina" in workspace "acme"');
    const noWorkspace = await wsx(['login-link', '--workspace', 'nope', '--user', 'bob']);
    expect(noWorkspace.code).toBe(1);
    expect(noWorkspace.stderr).toContain('no workspace with slug "nope"');
  });

  it('signs in once with HttpOnly, SameSite=Lax, Path=/ cookie, then refuses the same link and sets nothing', async () => {
    const link = await loginLink('alice');
    const first = await request(link);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/settings/connectors');
    const [cookie] = first.headers.getSetCookie();
    expect(cookie).toMatch(/^wsx_session=[A-Za-z0-9_-]{43}; /);
    const attributes = cookie.split('; ').slice(1);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=604800']));
    expect(attributes).not.toContain('Secure');

    const again = await request(link);
    expect(again.status).toBe(410);
    expect(again.headers.getSetCookie()).toEqual([]);
    expectPageHeaders(again);
    expect(await again.text()).toContain('Sign-in link already used');
  });

  it('answers an unknown or malformed link 400 and an expired one 410, setting no cookie', async () => {
    for (const path of ['/login/' + 'A'.repeat(43), '/login/short']) {
      const response = await request(`${origin}${path}`);
      expect(response.status).toBe(400);
      expect(response.headers.getSetCookie()).toEqual([]);
      expect(await response.text()).toContain('Sign-in link not valid');
    }
    const link = await loginLink('alice');
    await h.database.db
      .updateTable('login_links')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('used_at', 'is', null)
      .execute();
    const expired = await request(link);
    expect(expired.status).toBe(410);
    expect(expired.headers.getSetCookie()).toEqual([]);
    expect(await expired.text()).toContain('Sign-in link expired');
  });

  it('is not spent by a HEAD request (a link checker)', async () => {
    const link = await loginLink('alice');
    expect((await request(link, { method: 'HEAD' })).status).not.toBe(303);
    expect((await request(link)).status).toBe(303);
  });

  it('goes on to a same-origin `next` and refuses every other destination', async () => {
    const next = '/oauth/consent?request=oar_example';
    expect((await signIn('alice', '--next', next)).location).toBe(next);

    const link = async () => loginLink('alice');
    for (const hostile of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      '/\t/evil.example',
      'javascript:alert(1)',
      'settings',
    ]) {
      const response = await request(`${await link()}?next=${encodeURIComponent(hostile)}`);
      expect(response.status, hostile).toBe(303);
      expect(response.headers.get('location'), hostile).toBe('/settings/connectors');
    }
    const refused = await wsx(['login-link', '--workspace', 'acme', '--user', 'alice', '--next', '//evil.example']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--next must be a path on this server');
  });

  it('marks the cookie Secure when the public URL is https', async () => {
    const publicUrl = 'https://wsx.example.test';
    const secure = await startHarness([ACME], { publicUrl });
    try {
      const run = await wsx(['login-link', '--workspace', 'acme', '--user', 'alice', '--json'], publicUrl, secure);
      const url = new URL(JSON.parse(run.stdout).url);
      expect(url.origin).toBe(publicUrl);
      const response = await secure.app.inject({ method: 'GET', url: url.pathname });
      expect(response.statusCode).toBe(303);
      expect(String(response.headers['set-cookie'])).toMatch(/; Secure$/);
    } finally {
      await secure.close();
    }
  });
});

describe('the session', () => {
  it('opens the connectors page with strict headers and an accessible page', async () => {
    const { cookie } = await signIn('alice');
    const response = await page('/settings/connectors', cookie);
    expect(response.status).toBe(200);
    expectPageHeaders(response);
    expect(response.headers.get('content-security-policy')).toContain("form-action 'self'");
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>\s*<html lang="en">/);
    expect(html).toContain('<title>Connectors · wsx</title>');
    expect(html).toContain('<h1>Connectors</h1>');
    expect(html).toContain('Alice Archer');
    expect(html).not.toContain('<script');
    // The one stylesheet is inline, allowed by the hash of exactly its text.
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
    const styleHash = createHash('sha256').update(style).digest('base64');
    expect(response.headers.get('content-security-policy')).toContain(`style-src 'sha256-${styleHash}'`);
    // /settings leads to the connectors page.
    const settings = await page('/settings', cookie);
    expect(settings.status).toBe(303);
    expect(settings.headers.get('location')).toBe('/settings/connectors');
  });

  it('keeps app pages closed to API credentials and to requests without a session', async () => {
    for (const path of ['/settings/connectors', '/settings', '/board']) {
      for (const token of [undefined, TOKENS.admin, TOKENS.alice]) {
        const reply = await h.call('GET', path, { token });
        expect(reply.status, path).toBe(401);
        expect(reply.body).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'browser_session_required' } });
      }
    }
    const revoke = await h.call('POST', '/settings/connectors/ogr_x/revoke', { token: TOKENS.admin });
    expect(revoke.status).toBe(401);
    expect(revoke.body.details).toEqual({ reason: 'browser_session_required' });
    // A cookie that names no session is no session.
    const forged = await h.call('GET', '/settings/connectors', {
      headers: { cookie: `wsx_session=${'x'.repeat(43)}` },
    });
    expect(forged.status).toBe(401);
    // A browser gets a page saying how to sign in, and comes back here after.
    const browser = await page('/settings/connectors', undefined, { authorization: `Bearer ${TOKENS.admin}` });
    expect(browser.status).toBe(401);
    expectPageHeaders(browser);
    const html = await browser.text();
    expect(html).toContain('<h1>Sign in needed</h1>');
    expect(html).toContain('--next &#39;/settings/connectors&#39;');
  });

  it('ends after 12 hours idle and after 7 days in all', async () => {
    const idle = await signIn('carol');
    const fresh = await signIn('carol');
    const sessions = h.database.db.updateTable('browser_sessions');
    const hash = (cookie: string) => createHash('sha256').update(cookie.split('=')[1]).digest('hex');
    await sessions
      .set({ last_seen_at: new Date(Date.now() - 12 * 3_600_000 - 1000).toISOString() })
      .where('secret_hash', '=', hash(idle.cookie))
      .execute();
    await h.database.db
      .updateTable('browser_sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('secret_hash', '=', hash(fresh.cookie))
      .execute();
    for (const cookie of [idle.cookie, fresh.cookie])
      expect((await page('/settings/connectors', cookie)).status).toBe(401);
  });

  it('signs out with the CSRF token only, and the cookie then opens nothing', async () => {
    const { cookie } = await signIn('alice');
    const html = await (await page('/settings/connectors', cookie)).text();
    const refused = await postForm('/logout', {}, cookie);
    expect(refused.status).toBe(403);
    expect((await page('/settings/connectors', cookie)).status).toBe(200);

    const out = await postForm('/logout', { csrf: csrfIn(html) }, cookie);
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toMatch(/^wsx_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/);
    expect(await out.text()).toContain('<h1>Signed out</h1>');
    expect((await page('/settings/connectors', cookie)).status).toBe(401);
  });

  it('ends the previous session of a browser that signs in again', async () => {
    const first = await signIn('alice');
    const second = await request(await loginLink('bob'), { headers: { cookie: first.cookie } });
    expect(second.status).toBe(303);
    expect((await page('/settings/connectors', first.cookie)).status).toBe(401);
    const bob = await page('/settings/connectors', sessionCookieOf(second));
    expect(await bob.text()).toContain('Bob Builder');
  });

  it('reads form bodies only on the pages, within a bound', async () => {
    const { cookie } = await signIn('alice');
    const json = await request(`${origin}/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: '{}',
    });
    expect(json.status).toBe(415);
    const large = await postForm('/logout', { csrf: 'x'.repeat(10_000) }, cookie);
    expect(large.status).toBe(413);
    // The API still refuses a form body.
    const api = await h.call('POST', '/api/external/projects', {
      token: TOKENS.admin,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=x',
    });
    expect(api.status).toBe(415);
  });
});

describe('the consent page', () => {
  it('tells a person who is not signed in how to get a link that comes back here (401)', async () => {
    const { requestId } = await pendingRequest('Notes app');
    const response = await page(`/oauth/consent?request=${requestId}`);
    expect(response.status).toBe(401);
    expectPageHeaders(response);
    const html = await response.text();
    expect(html).toContain('Notes app');
    expect(html).toContain(
      `wsx login-link --workspace WORKSPACE --user YOUR-HANDLE --next &#39;/oauth/consent?request=${requestId}&#39;`,
    );
  });

  it('answers a missing request 400 and an unknown one 410', async () => {
    const { cookie } = await signIn('alice');
    for (const path of ['/oauth/consent', '/oauth/consent?request=%3Cx%3E'])
      expect((await page(path, cookie)).status).toBe(400);
    const unknown = await page('/oauth/consent?request=oar_unknown', cookie);
    expect(unknown.status).toBe(410);
    expect(await unknown.text()).toContain('Authorization request expired');
  });

  it('names the client, where it returns to, the workspace and the scopes in words', async () => {
    const { cookie } = await signIn('alice');
    const { requestId, clientId } = await pendingRequest('Desk Assistant');
    const { response, html } = await consent(requestId, cookie);
    expectPageHeaders(response);
    // The answered form is followed to the client's redirect URI, so the policy allows that origin.
    expect(response.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:45678");
    expect(html).toContain('Connect <q>Desk Assistant</q> to Acme?');
    expect(html).toContain('<code>127.0.0.1:45678</code>');
    expect(html).toContain(clientId);
    expect(html).toContain('<strong>Acme</strong> (acme)');
    expect(html).toContain('Read everything you can see');
    expect(html).toContain('Create and change');
    expect(html.match(/<form method="post" action="\/oauth\/consent">/g)).toHaveLength(2);
    expect(html).toContain('<button type="submit" class="primary">Approve</button>');
    expect(html).toContain('<button type="submit" class="secondary">Deny</button>');

    const readOnly = await pendingRequest('Reader', 'read');
    const readHtml = (await consent(readOnly.requestId, cookie)).html;
    expect(readHtml).toContain('Read everything you can see');
    expect(readHtml).not.toContain('Create and change');
  });

  it('escapes a hostile client name everywhere it is shown', async () => {
    const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)>'&`;
    const { cookie } = await signIn('alice');
    const { requestId } = await pendingRequest(hostile);
    for (const html of [
      (await consent(requestId, cookie)).html,
      await (await page(`/oauth/consent?request=${requestId}`)).text(),
    ]) {
      expect(html).not.toContain('<script>');
      expect(html).not.toContain('<img');
      expect(html).toContain(
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&amp;',
      );
    }
  });

  it('refuses an answer without the session’s CSRF token (403) and approves nothing', async () => {
    const alice = await signIn('alice');
    const bob = await signIn('bob');
    const { requestId } = await pendingRequest('Forged');
    const bobsToken = (await consent(requestId, bob.cookie)).csrf;
    const before = (await grantRows()).length;
    const answers: Array<Record<string, string>> = [
      { request: requestId, decision: 'approve' },
      { request: requestId, decision: 'approve', csrf: 'wrong' },
      { request: requestId, decision: 'approve', csrf: bobsToken },
    ];
    for (const fields of answers) {
      const answer = await postForm('/oauth/consent', fields, alice.cookie);
      expect(answer.status).toBe(403);
      expectPageHeaders(answer);
      expect(await answer.text()).toContain('Form refused');
    }
    // Without a session there is nobody to approve as.
    expect(
      (await postForm('/oauth/consent', { request: requestId, decision: 'approve', csrf: bobsToken })).status,
    ).toBe(401);
    expect((await grantRows()).length).toBe(before);
    expect((await page(`/oauth/consent?request=${requestId}`, alice.cookie)).status).toBe(200);
  });

  it('approves: 303 to the redirect URI with a code and the state, as the signed-in person', async () => {
    const { cookie } = await signIn('alice');
    const { requestId } = await pendingRequest('Approved app', 'read write', 'state-approve');
    const { csrf } = await consent(requestId, cookie);
    const answer = await postForm('/oauth/consent', { request: requestId, csrf, decision: 'approve' }, cookie);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const location = new URL(answer.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('code')).toBeTruthy();
    expect(location.searchParams.get('state')).toBe('state-approve');
    const grants = (await grantRows('alice')).filter((grant) => grant.client_name === 'Approved app');
    expect(grants).toHaveLength(1);
    // The request is answered: it cannot be answered again.
    expect((await page(`/oauth/consent?request=${requestId}`, cookie)).status).toBe(410);
    const twice = await postForm('/oauth/consent', { request: requestId, csrf, decision: 'approve' }, cookie);
    expect(twice.status).toBe(410);
  });

  it('denies: 303 to the redirect URI with error=access_denied and the state, nothing granted', async () => {
    const { cookie } = await signIn('alice');
    const { requestId } = await pendingRequest('Denied app', 'read', 'state-deny');
    const { csrf } = await consent(requestId, cookie);
    const answer = await postForm('/oauth/consent', { request: requestId, csrf, decision: 'deny' }, cookie);
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('state-deny');
    expect(location.searchParams.get('code')).toBeNull();
    expect((await grantRows()).filter((grant) => grant.client_name === 'Denied app')).toEqual([]);
  });
});

describe('the connectors page', () => {
  it('lists and revokes only the signed-in person’s own connectors', async () => {
    const alice = await approve('alice', 'Alice tool');
    await approve('bob', 'Bob tool', 'read');
    const bobGrant = (await grantRows('bob')).find((grant) => grant.client_name === 'Bob tool')!;
    const aliceGrant = (await grantRows('alice')).find((grant) => grant.client_name === 'Alice tool')!;

    const listed = await (await page('/settings/connectors', alice.cookie)).text();
    expect(listed).toContain('Alice tool');
    expect(listed).not.toContain('Bob tool');
    expect(listed).toContain('aria-label="Revoke Alice tool"');
    expect(listed).toMatch(/<time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
    const csrf = csrfIn(listed);

    const foreign = await postForm(`/settings/connectors/${bobGrant.id}/revoke`, { csrf }, alice.cookie);
    expect(foreign.status).toBe(404);
    expect((await grantRows('bob')).find((grant) => grant.id === bobGrant.id)!.revoked_at).toBeNull();

    const noToken = await postForm(`/settings/connectors/${aliceGrant.id}/revoke`, {}, alice.cookie);
    expect(noToken.status).toBe(403);
    expect((await grantRows('alice')).find((grant) => grant.id === aliceGrant.id)!.revoked_at).toBeNull();

    const revoked = await postForm(`/settings/connectors/${aliceGrant.id}/revoke`, { csrf }, alice.cookie);
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/settings/connectors');
    expect((await grantRows('alice')).find((grant) => grant.id === aliceGrant.id)!.revoked_at).not.toBeNull();
    expect(await (await page('/settings/connectors', alice.cookie)).text()).not.toContain('Alice tool');
  });
});

describe('wsx oauth list|revoke', () => {
  it('lists a workspace’s connectors, by user, and revokes one by its grant id', async () => {
    await approve('carol', 'Carol CLI tool');
    const grant = (await grantRows('carol')).find((row) => row.client_name === 'Carol CLI tool')!;

    const all = await wsx(['oauth', 'list', '--workspace', 'acme']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.split('\n')[0]).toMatch(/^GRANT +USER +CLIENT +SCOPES +CREATED +LAST USED$/);
    expect(all.stdout).toMatch(new RegExp(`^${grant.id} +carol +Carol CLI tool +read write +\\S+ +never$`, 'm'));

    const json = await wsx(['oauth', 'list', '--workspace', 'acme', '--user', 'carol@acme.test', '--json']);
    const listed = JSON.parse(json.stdout).grants;
    expect(listed.every((row: { user: string }) => row.user === 'carol')).toBe(true);
    expect(listed).toContainEqual(
      expect.objectContaining({
        grantId: grant.id,
        clientName: 'Carol CLI tool',
        user: 'carol',
        scopes: ['read', 'write'],
      }),
    );

    const other = await wsx(['oauth', 'list', '--workspace', 'globex']);
    expect(other.stdout).toBe('No connectors in workspace "globex".');
    const wrongWorkspace = await wsx(['oauth', 'revoke', grant.id, '--workspace', 'globex']);
    expect(wrongWorkspace.code).toBe(1);
    expect(wrongWorkspace.stderr).toContain(`no active connector "${grant.id}" in workspace "globex"`);

    const revoked = await wsx(['oauth', 'revoke', grant.id, '--workspace', 'acme']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`Revoked connector ${grant.id}`);
    expect((await grantRows('carol')).find((row) => row.id === grant.id)!.revoked_at).not.toBeNull();
    const after = await wsx(['oauth', 'list', '--workspace', 'acme', '--user', 'carol', '--json']);
    expect(JSON.parse(after.stdout).grants.map((row: { grantId: string }) => row.grantId)).not.toContain(grant.id);
    expect((await wsx(['oauth', 'revoke', grant.id, '--workspace', 'acme'])).code).toBe(1);
  });
});
