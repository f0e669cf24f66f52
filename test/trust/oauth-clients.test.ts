import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/core/clock.js';
import { openSession } from '../../src/web/sessions.js';
import { ACME } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import {
  LOOPBACK_REDIRECT,
  authorizeRequest,
  listening,
  personOf,
  pkce,
  registerClient,
} from '../support/oauth-flow.js';

/**
 * What a registering client may claim, and how the pages show it: private-use redirect
 * schemes only in reverse domain-name form (RFC 8252 §7.1), refused as
 * `invalid_redirect_uri`; client names without invisible, control or direction characters
 * or look-alike letters, NFKC-normalised and short; and the consent and sign-in pages name
 * where the browser goes beside the name the client chose.
 */

let h: Harness;
let base: string;
let cookie: string;

beforeAll(async () => {
  h = await startHarness([ACME], { oauthRateLimitPerMinute: 0 });
  base = await listening(h.app);
  const session = await openSession(h.database.db, await personOf(h, 'alice'));
  cookie = `wsx_session=${session.secret}`;
});
afterAll(() => h.close());

const register = (metadata: Record<string, unknown>) =>
  registerClient(base, { token_endpoint_auth_method: 'none', ...metadata });

const named = (client_name: string) => register({ client_name, redirect_uris: [LOOPBACK_REDIRECT] });

describe('redirect URI schemes', () => {
  it.each([
    ['a single-word private-use scheme', 'myapp:/callback'],
    ['x-safari-https:', 'x-safari-https://client.example/cb'],
    ['a scheme with no period', 'cursor://anysphere.cursor-retrieval/oauth/callback'],
  ])('refuses %s with invalid_redirect_uri and says which form works', async (_label, uri) => {
    const { status, body } = await register({ redirect_uris: [LOOPBACK_REDIRECT, uri] });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_redirect_uri');
    expect(body.error_description).toMatch(/^redirect_uris\[1\] uses the private-use scheme [a-z-]+:/);
    expect(body.error_description).toContain('reverse domain name');
    expect(body.error_description).toContain('com.example.app:/callback');
  });

  it('registers reverse domain-name schemes, https and http on loopback as before', async () => {
    const uris = [
      'com.example.app:/oauth2redirect',
      'dev.example.desktop://callback',
      'https://client.example/cb',
      'http://127.0.0.1/callback',
      'http://localhost:8976/cb',
      'http://[::1]:9000/cb',
    ];
    const { status, body } = await register({ redirect_uris: uris });
    expect(status).toBe(201);
    expect(body.redirect_uris).toEqual(uris);
  });

  it('answers every other redirect URI problem as invalid_redirect_uri too', async () => {
    for (const uris of [['http://example.com/cb'], ['https://client.example/cb#x'], []]) {
      const { status, body } = await register({ redirect_uris: uris });
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_redirect_uri');
    }
  });
});

describe('client_name', () => {
  it.each([
    ['a zero-width space', 'Good\u200bApp', 'U+200B'],
    ['a zero-width joiner', 'Good\u200dApp', 'U+200D'],
    ['a right-to-left override', 'Good\u202eppA', 'U+202E'],
    ['a first-strong isolate', 'Good \u2068App', 'U+2068'],
    ['a soft hyphen', 'Go\u00adod', 'U+00AD'],
    ['a byte-order mark', '\ufeffGood', 'U+FEFF'],
    ['a Hangul filler', 'Good\u3164App', 'U+3164'],
    ['a tag character', 'Good\u{e0041}', 'U+E0041'],
    ['a new line', 'Good\nApproved by your administrator', 'U+000A'],
    ['a line separator', 'Good\u2028App', 'U+2028'],
    ['a private-use character', 'Good \ue000', 'U+E000'],
  ])('refuses %s, naming it', async (_label, name, codePoint) => {
    const { status, body } = await named(name);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toContain(`client_name holds ${codePoint}`);
  });

  it.each([
    ['Cyrillic С in a Latin word', '\u0421laude Desktop', 'Latin and Cyrillic', '\u0421laude'],
    ['Greek ο in a Latin word', 'G\u03bfogle Drive', 'Latin and Greek', 'G\u03bfogle'],
  ])('refuses %s as a look-alike', async (_label, name, scripts, word) => {
    const { status, body } = await named(name);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toContain(`mixes ${scripts} letters in the word "${word}"`);
  });

  it.each([
    ['words of different scripts', 'Claude для Windows'],
    ['one script', 'Ελληνικά εργαλεία'],
    ['Latin beside Japanese', 'Notes ノート 日本語'],
    ['accents', 'Café Crème'],
    ['an emoji', 'Notes ✅'],
  ])('registers a name of %s', async (_label, name) => {
    const { status, body } = await named(name);
    expect(status).toBe(201);
    expect(body.client_name).toBe(name.normalize('NFKC'));
  });

  it.each([
    ['mathematical bold letters', '\u{1d402}\u{1d425}\u{1d41a}\u{1d42e}\u{1d41d}\u{1d41e}', 'Claude'],
    ['fullwidth letters', 'Ｃｌａｕｄｅ', 'Claude'],
    ['a ligature', 'Pro\ufb01le sync', 'Profile sync'],
    ['wide and repeated spaces', '  Desk\u00a0\u00a0 \u3000Tool ', 'Desk Tool'],
    ['a decomposed accent', 'Cafe\u0301', 'Café'],
  ])('stores %s in their NFKC form, spaces collapsed', async (_label, name, stored) => {
    const { status, body } = await named(name);
    expect(status).toBe(201);
    expect(body.client_name).toBe(stored);
    const row = await h.database.db
      .selectFrom('oauth_clients')
      .select('client_name')
      .where('id', '=', body.client_id)
      .executeTakeFirstOrThrow();
    expect(row.client_name).toBe(stored);
  });

  it('bounds the name to 100 characters, counted after normalisation', async () => {
    expect((await named('n'.repeat(100))).status).toBe(201);
    const long = await named('n'.repeat(101));
    expect(long.status).toBe(400);
    expect(long.body.error_description).toContain('client_name is 101 characters long; at most 100');
    // Each of these is one character that NFKC spells with 18.
    const expanding = await named('\ufdfa'.repeat(6));
    expect(expanding.status).toBe(400);
    expect(expanding.body.error_description).toContain('at most 100');
  });

  it('refuses a name with nothing visible, and marks stacked over a letter', async () => {
    const blank = await named(' \u3000 ');
    expect(blank).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    expect(blank.body.error_description).toContain('at least one visible character');
    const stacked = await named(`Z${'\u0301\u0300\u0302\u0303\u0304'.repeat(2)}ero`);
    expect(stacked.status).toBe(400);
    expect(stacked.body.error_description).toContain('combining marks');
  });
});

/** A client with this redirect URI and a pending authorization request; answers the request id. */
async function pending(clientName: string | null, redirectUri: string) {
  const registered = await register({
    ...(clientName ? { client_name: clientName } : {}),
    redirect_uris: [redirectUri],
  });
  expect(registered.status).toBe(201);
  const clientId = registered.body.client_id as string;
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  });
  const authorized = await fetch(`${base}/authorize?${query}`, { redirect: 'manual' });
  expect(authorized.status).toBe(302);
  return { clientId, requestId: new URL(authorized.headers.get('location')!, base).searchParams.get('request')! };
}

const consentHtml = async (requestId: string, withCookie = true) => {
  const response = await fetch(`${base}/oauth/consent?request=${requestId}`, {
    headers: withCookie ? { cookie } : {},
  });
  return { status: response.status, html: await response.text() };
};

describe('the consent and sign-in pages', () => {
  it('name the host the browser goes to, prominently, right under the question', async () => {
    const { requestId } = await pending('Calendar sync', 'https://app.example.com/oauth/callback');
    const { status, html } = await consentHtml(requestId);
    expect(status).toBe(200);
    const question = html.indexOf('<h1>');
    const destination = html.indexOf('<p class="destination">');
    expect(destination).toBeGreaterThan(question);
    expect(html.slice(destination, html.indexOf('</p>', destination))).toContain(
      '<strong><code>app.example.com</code></strong>',
    );
    expect(destination).toBeLessThan(html.indexOf('Calendar sync</strong>'));
    expect(html.replace(/\s+/g, ' ')).toContain(
      'calls itself <strong>Calendar sync</strong> (a name it chose, which wsx cannot check)',
    );
  });

  it('show an internationalised host in the form the browser resolves, not as look-alike letters', async () => {
    const { requestId } = await pending('Pay', 'https://pаypal.example/cb');
    const { html } = await consentHtml(requestId);
    expect(html).toContain('<code>xn--pypal-4ve.example</code>');
  });

  it('name a native app by its reverse domain-name scheme', async () => {
    const { requestId } = await pending('Phone app', 'com.example.phone:/oauth');
    const { html } = await consentHtml(requestId);
    expect(html).toContain('<strong><code>com.example.phone: (an app on this device)</code></strong>');
  });

  it('tell a visitor who is not signed in the name is the application’s own claim, and where the answer goes', async () => {
    const { requestId } = await pending('Calendar sync', 'https://app.example.com/oauth/callback');
    const { status, html } = await consentHtml(requestId, false);
    expect(status).toBe(401);
    expect(html).toContain('An application that calls itself “Calendar sync” asks to connect as you');
    expect(html).toContain('your answer goes to app.example.com');
  });

  it('show the client id instead of a name registered before these rules that they refuse', async () => {
    const { clientId, requestId } = await pending('Placeholder', LOOPBACK_REDIRECT);
    const disguised = 'Acme IT\u202e\u2066 (approved)';
    await h.database.db
      .updateTable('oauth_clients')
      .set({ client_name: disguised, metadata: JSON.stringify({ client_name: disguised }) })
      .where('id', '=', clientId)
      .execute();
    for (const withCookie of [true, false]) {
      const { html } = await consentHtml(requestId, withCookie);
      expect(html).not.toContain('Acme IT');
      expect(html).toContain(clientId);
    }
    // The connectors page too, once approved.
    const person = await personOf(h, 'alice');
    await h.database.db
      .insertInto('oauth_grants')
      .values({
        id: `ogr_${clientId.slice(4)}`,
        workspace_id: person.workspaceId,
        user_id: person.userId,
        client_id: clientId,
        scopes: 'read',
        resource: null,
        created_at: nowIso(),
        updated_at: nowIso(),
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
    const connectors = await (await fetch(`${base}/settings/connectors`, { headers: { cookie } })).text();
    expect(connectors).not.toContain('Acme IT');
    expect(connectors).toContain(clientId);
  });

  it('are reached from /authorize as before', async () => {
    const registered = await named('Loopback tool');
    const authorized = await authorizeRequest(base, registered.body.client_id, pkce().challenge);
    expect(authorized.status).toBe(302);
    const { html } = await consentHtml(new URL(authorized.headers.get('location')!, base).searchParams.get('request')!);
    expect(html).toContain('<strong><code>127.0.0.1:33418</code></strong>');
  });
});
