import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import { loadConfig } from '../../src/config.js';
import { ACME, GLOBEX } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startUpstream, type Upstream } from '../support/oidc-upstream.js';
import { freePort } from '../support/free-port.js';

/**
 * Signing in to the browser pages through an upstream OpenID Connect provider, over real
 * HTTP with redirects and cookies by hand: wsx against oidc-provider running in this
 * process. The provider's verified email picks the user; anything else signs no one in.
 */

let h: Harness;
let origin: string;
let upstream: Upstream;

/** Carol is a user of acme and of initech, spelled differently: her email matches both. */
const INITECH = {
  workspace: { slug: 'initech', name: 'Initech' },
  users: [{ handle: 'carol', name: 'Carol of Initech', email: 'Carol@ACME.test' }],
  teams: [{ key: 'ENG', name: 'Initech Engineering', default: true, members: ['carol'] }],
};

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  upstream = await startUpstream(`${origin}/login/oidc/callback`);
  upstream.accounts.set('alice-sub', { email: 'ALICE@acme.test', email_verified: true });
  upstream.accounts.set('carol-sub', { email: 'carol@acme.test', email_verified: true });
  upstream.accounts.set('stranger-sub', { email: 'nobody@elsewhere.test', email_verified: true });
  upstream.accounts.set('unverified-sub', { email: 'bob@acme.test', email_verified: false });
  upstream.accounts.set('no-email-sub', {});
  const oidc = loadConfig({
    WSX_OIDC_ISSUER: upstream.issuer,
    WSX_OIDC_CLIENT_ID: upstream.clientId,
    WSX_OIDC_CLIENT_SECRET: upstream.clientSecret,
  }).oidc;
  h = await startHarness([ACME, GLOBEX, INITECH], { publicUrl: origin, oidc });
  await h.app.listen({ host: '127.0.0.1', port });
});
afterAll(async () => {
  await h.close();
  await upstream.close();
});

const request = (url: string, init: RequestInit = {}) => fetch(url, { redirect: 'manual', ...init });

const cookieNamed = (response: Response, name: string): string | undefined =>
  response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(';')[0];

const page = (path: string, cookie?: string) =>
  request(`${origin}${path}`, { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });

/**
 * Starts a sign-in at wsx as `account` and follows the provider's redirects (keeping its
 * cookies) until it sends the browser back to wsx. Answers that callback URL and the
 * flow cookie wsx set at the start.
 */
async function throughUpstream(account: string, start: string) {
  upstream.signInAs = account;
  const started = await request(`${origin}${start}`);
  expect(started.status).toBe(303);
  const flowCookie = cookieNamed(started, 'wsx_oidc')!;
  expect(flowCookie).toBeDefined();
  const jar = new Map<string, string>();
  let location = started.headers.get('location')!;
  expect(location.startsWith(`${upstream.issuer}/`)).toBe(true);
  while (location.startsWith(`${upstream.issuer}/`)) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await request(location, { headers: cookie ? { cookie } : {} });
    expect([302, 303]).toContain(response.status);
    for (const set of response.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (value) jar.set(name, value);
      else jar.delete(name);
    }
    location = new URL(response.headers.get('location')!, location).href;
  }
  expect(location.startsWith(`${origin}/login/oidc/callback?`)).toBe(true);
  return { callbackUrl: location, flowCookie };
}

/** A whole sign-in: answers wsx's answer to the provider's redirect back. */
async function signInUpstream(account: string, start = '/login/oidc') {
  const { callbackUrl, flowCookie } = await throughUpstream(account, start);
  return request(callbackUrl, { headers: { accept: 'text/html', cookie: flowCookie } });
}

/** Registers a public client and starts an authorization: answers the consent page's path. */
async function pendingConsentPath(): Promise<string> {
  const redirectUri = 'http://127.0.0.1:45678/callback';
  const registered = await request(`${origin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Notes app',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(registered.status).toBe(201);
  const { client_id } = (await registered.json()) as { client_id: string };
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st',
  });
  const authorize = await request(`${origin}/authorize?${query}`);
  expect(authorize.status).toBe(302);
  const consent = new URL(authorize.headers.get('location')!, origin);
  return `${consent.pathname}${consent.search}`;
}

const upstreamHost = () => new URL(upstream.issuer).host;

describe('signed-out pages', () => {
  it('offer "Sign in with <provider>" back to the page that was asked for', async () => {
    const settings = await page('/settings/connectors');
    expect(settings.status).toBe(401);
    const html = await settings.text();
    expect(html).toContain(`<a href="/login/oidc?next=%2Fsettings%2Fconnectors">Sign in with ${upstreamHost()}</a>`);
    expect(html).toContain('wsx login-link');

    const consentPath = await pendingConsentPath();
    const consent = await page(consentPath);
    expect(consent.status).toBe(401);
    expect(await consent.text()).toContain(`href="/login/oidc?next=${encodeURIComponent(consentPath)}"`);
  });

  it('look as without a provider when none is configured', async () => {
    const plain = await startHarness([ACME]);
    try {
      const settings = await plain.app.inject({ url: '/settings/connectors', headers: { accept: 'text/html' } });
      expect(settings.statusCode).toBe(401);
      expect(settings.body).toContain('wsx login-link');
      expect(settings.body).not.toContain('Sign in with');
      expect(settings.body).not.toContain('/login/oidc');
      // Without a provider /login/oidc is no route of its own: read as a sign-in link, which it is not.
      const start = await plain.app.inject({ url: '/login/oidc', headers: { accept: 'text/html' } });
      expect(start.statusCode).toBe(400);
      expect(start.headers['set-cookie']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});

describe('sign-in through the provider', () => {
  it('signs in the user with the verified email (any case) and lands on next', async () => {
    const consentPath = await pendingConsentPath();
    const { callbackUrl, flowCookie } = await throughUpstream(
      'alice-sub',
      `/login/oidc?next=${encodeURIComponent(consentPath)}`,
    );
    const answer = await request(callbackUrl, { headers: { cookie: flowCookie } });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(consentPath);
    // The flow is spent: its cookie is cleared, and the callback cannot be replayed.
    expect(cookieNamed(answer, 'wsx_oidc')).toBe('wsx_oidc=');
    const session = cookieNamed(answer, 'wsx_session')!;
    expect(session).toMatch(/^wsx_session=[A-Za-z0-9_-]{43}$/);
    const set = answer.headers.getSetCookie().find((cookie) => cookie.startsWith('wsx_session='))!;
    expect(set).toContain('HttpOnly');
    expect(set).toContain('SameSite=Lax');

    const consent = await page(consentPath, session);
    expect(consent.status).toBe(200);
    const html = await consent.text();
    expect(html).toContain('Alice Archer');
    expect(html).toContain('Notes app');

    const replay = await request(callbackUrl, { headers: { accept: 'text/html', cookie: flowCookie } });
    expect(replay.status).toBe(400);
    expect(cookieNamed(replay, 'wsx_session')).toBeUndefined();
  });

  it('goes to the connectors page without next', async () => {
    const answer = await signInUpstream('alice-sub');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/settings/connectors');
    const connectors = await page('/settings/connectors', cookieNamed(answer, 'wsx_session'));
    expect(connectors.status).toBe(200);
    expect(await connectors.text()).toContain('Alice Archer');
  });

  it('asks which workspace when the email belongs to users of several, then signs in to the one chosen', async () => {
    const answer = await signInUpstream('carol-sub', '/login/oidc?next=%2Fsettings%2Fconnectors');
    expect(answer.status).toBe(200);
    expect(cookieNamed(answer, 'wsx_session')).toBeUndefined();
    const html = await answer.text();
    expect(html).toContain('Choose a workspace');
    const links = [...html.matchAll(/<a href="([^"]+)"/g)].map((match) => match[1].replaceAll('&amp;', '&'));
    expect(links).toEqual([
      '/login/oidc?workspace=acme&next=%2Fsettings%2Fconnectors',
      '/login/oidc?workspace=initech&next=%2Fsettings%2Fconnectors',
    ]);

    const chosen = await signInUpstream('carol-sub', links[1]);
    expect(chosen.status).toBe(303);
    expect(chosen.headers.get('location')).toBe('/settings/connectors');
    const connectors = await page('/settings/connectors', cookieNamed(chosen, 'wsx_session'));
    const text = await connectors.text();
    expect(text).toContain('Carol of Initech');
    expect(text).toContain('(initech)');
  });
});

describe('refused sign-ins set no session', () => {
  const refused = async (answer: Response, status: number, words: string) => {
    expect(answer.status).toBe(status);
    expect(cookieNamed(answer, 'wsx_session')).toBeUndefined();
    const html = await answer.text();
    expect(html).toContain(words);
    return html;
  };

  it('an email no user has: 403', async () => {
    await refused(await signInUpstream('stranger-sub'), 403, 'No user of this server has the email address');
  });

  it('an unverified email, or none: 403', async () => {
    await refused(await signInUpstream('unverified-sub'), 403, 'Email not verified');
    await refused(await signInUpstream('no-email-sub'), 403, 'Email not verified');
  });

  it('a chosen workspace the email has no user in: 403', async () => {
    await refused(await signInUpstream('alice-sub', '/login/oidc?workspace=globex'), 403, 'No user of this server');
  });

  it('a tampered state, a callback without its flow, or a forged flow cookie: refused', async () => {
    const { callbackUrl, flowCookie } = await throughUpstream('alice-sub', '/login/oidc');
    const tampered = new URL(callbackUrl);
    tampered.searchParams.set('state', `${tampered.searchParams.get('state')}x`);
    const html = await refused(
      await request(tampered.href, { headers: { cookie: flowCookie } }),
      400,
      'Sign-in not completed',
    );
    // The page names no detail of the provider's answer.
    expect(html).not.toContain('state');

    const { callbackUrl: other } = await throughUpstream('alice-sub', '/login/oidc');
    await refused(await request(other), 400, 'Sign-in expired');
    const [payload, tag] = flowCookie.slice('wsx_oidc='.length).split('.');
    const forged = `wsx_oidc=${payload}x.${tag}`;
    await refused(await request(other, { headers: { cookie: forged } }), 400, 'Sign-in expired');
  });

  it('a next that leaves this server: 400 before the provider is asked', async () => {
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'settings']) {
      const answer = await request(`${origin}/login/oidc?next=${encodeURIComponent(next)}`);
      expect(answer.status, next).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
      expect(cookieNamed(answer, 'wsx_oidc')).toBeUndefined();
    }
  });

  it('an unreachable provider: 502, and no flow', async () => {
    const port = await freePort();
    const down = await startHarness([ACME], {
      oidc: loadConfig({
        WSX_OIDC_ISSUER: `http://127.0.0.1:${port}`,
        WSX_OIDC_CLIENT_ID: 'x',
        WSX_OIDC_CLIENT_SECRET: 'y',
      }).oidc,
    });
    try {
      const answer = await down.app.inject({ url: '/login/oidc' });
      expect(answer.statusCode).toBe(502);
      expect(answer.body).toContain('could not reach');
      expect(answer.headers['set-cookie']).toBeUndefined();
    } finally {
      await down.close();
    }
  });
});

describe('configuration', () => {
  it('a partial set stops `wsx serve` with one line', async () => {
    const stderr: string[] = [];
    const ctx: CliContext = {
      out: () => undefined,
      err: (text) => stderr.push(text),
      withDatabase: () => undefined as never,
    };
    const code = await runCli(['serve'], ctx, { WSX_OIDC_CLIENT_SECRET: 's' });
    expect(code).toBe(1);
    expect(stderr).toEqual([
      'wsx: WSX_OIDC_ISSUER, WSX_OIDC_CLIENT_ID, WSX_OIDC_CLIENT_SECRET are set together or not at all (missing: WSX_OIDC_ISSUER, WSX_OIDC_CLIENT_ID)',
    ]);
  });

  it('takes the three settings together or not at all', () => {
    expect(loadConfig({}).oidc).toBeUndefined();
    expect(() => loadConfig({ WSX_OIDC_ISSUER: 'https://id.example.com' })).toThrow(
      /set together or not at all \(missing: WSX_OIDC_CLIENT_ID, WSX_OIDC_CLIENT_SECRET\)/,
    );
    const both = { WSX_OIDC_CLIENT_ID: 'wsx', WSX_OIDC_CLIENT_SECRET: 's' };
    expect(() => loadConfig({ ...both, WSX_OIDC_ISSUER: 'http://id.example.com' })).toThrow(/must be an https URL/);
    expect(loadConfig({ ...both, WSX_OIDC_ISSUER: 'https://id.example.com' }).oidc).toEqual({
      issuer: 'https://id.example.com',
      issuerHost: 'id.example.com',
      clientId: 'wsx',
      clientSecret: 's',
    });
  });
});
