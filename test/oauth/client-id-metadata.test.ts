import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useHostLookup } from '../../src/events/receiver-address.js';
import { documentLifetimeMs } from '../../src/modules/oauth/client-document-lifetime.js';
import { listGrants } from '../../src/modules/oauth/grants.js';
import { REDIRECT_URI, connectorFlow } from '../support/connector-flow.js';
import { startDocumentServer, type DocumentServer } from '../support/document-server.js';
import { ACME } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { listening, personOf, pkce } from '../support/oauth-flow.js';

/**
 * Clients known by a Client ID Metadata Document: the client_id is the URL of a JSON document
 * the client serves (here on a loopback port, as a client being developed does, which wsx
 * accepts while it runs on loopback http itself), and wsx fetches it instead of looking up a
 * registration. The flow end to end through the consent page, the document's refusals, the
 * address rules webhook receivers follow, the cache; `iss` on every authorization response
 * (RFC 9207), and registration (DCR) beside it.
 */

let h: Harness;
let base: string;
let issuer: string;
let docs: DocumentServer;
let flow: ReturnType<typeof connectorFlow>;
let cookie: string;
let documents = 0;

beforeAll(async () => {
  h = await startHarness([ACME], { oauthRateLimitPerMinute: 0 });
  base = await listening(h.app);
  issuer = `${base}/`;
  docs = await startDocumentServer();
  flow = connectorFlow(h, base);
  cookie = await flow.signIn('carol');
});
afterAll(async () => {
  await docs.close();
  await h.close();
});

/** A fresh document path per test: the server keeps what it fetched in memory. */
let path: string;
beforeEach(() => {
  path = `/clients/${++documents}/client.json`;
});

const documentFor = (clientId: string, extra: Record<string, unknown> = {}) => ({
  client_id: clientId,
  client_name: 'Document Desktop',
  redirect_uris: [REDIRECT_URI],
  ...extra,
});

/** Serves a valid document at this test's path; answers its URL, the client_id. */
function serveDocument(extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): string {
  const clientId = docs.url(path);
  docs.serveJson(path, documentFor(clientId, extra), headers);
  return clientId;
}

/** GET /authorize with PKCE, the redirect not followed. */
async function authorize(clientId: string, params: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-cimd',
    scope: 'read write',
    ...params,
  });
  const response = await fetch(`${base}/authorize?${query}`, { redirect: 'manual' });
  return { response, verifier };
}

/** An authorize request refused to the browser itself: 400, JSON, never a redirect. */
async function expectRefused(clientId: string, error: string, description: RegExp) {
  const { response } = await authorize(clientId);
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  const body = await response.json();
  expect(body.error).toBe(error);
  expect(body.error_description).toMatch(description);
}

const requestIdOf = (response: Response) =>
  new URL(response.headers.get('location')!, base).searchParams.get('request')!;

describe('a client known by its metadata document', () => {
  it('connects end to end: authorize, sign-in and consent, a code with iss, tokens, an API call', async () => {
    const clientId = serveDocument({}, { 'cache-control': 'max-age=300' });
    const { response, verifier } = await authorize(clientId);
    expect(response.status).toBe(302);
    const consent = new URL(response.headers.get('location')!, base);
    expect(consent.pathname).toBe('/oauth/consent');

    const shown = await flow.page(`${consent.pathname}${consent.search}`, cookie);
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toContain('Document Desktop');
    expect(html).toContain(`It describes itself in a document at <strong><code>${new URL(clientId).host}</code>`);
    expect(html).toContain(clientId);

    const answered = await flow.answer(requestIdOf(response), cookie);
    expect(answered.status).toBe(303);
    const back = new URL(answered.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe('st-cimd');
    expect(back.searchParams.get('iss')).toBe(issuer);

    const exchanged = await flow.tokenRequest({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: back.searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
    });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    expect(exchanged.body).toMatchObject({ token_type: 'Bearer', scope: 'read write' });
    const projects = await h.call('GET', '/api/external/projects', { token: exchanged.body.access_token as string });
    expect(projects.status).toBe(200);

    const refreshed = await flow.tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: exchanged.body.refresh_token as string,
    });
    expect(refreshed.status).toBe(200);
    const grants = await listGrants(h.database.db, await personOf(h, 'carol'));
    expect(grants.find((grant) => grant.clientId === clientId)?.clientName).toBe('Document Desktop');
    // Authorize, token and refresh read the document once, within its max-age.
    expect(docs.hits(path)).toBe(1);
  });

  it('sends Deny back with error=access_denied, the state and iss', async () => {
    const { response } = await authorize(serveDocument());
    const denied = await flow.answer(requestIdOf(response), cookie, 'deny');
    expect(denied.status).toBe(303);
    const back = new URL(denied.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-cimd');
    expect(back.searchParams.get('iss')).toBe(issuer);
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('names the host of the document on the sign-in page too', async () => {
    const clientId = serveDocument();
    const { response } = await authorize(clientId);
    const consent = new URL(response.headers.get('location')!, base);
    const shown = await flow.page(`${consent.pathname}${consent.search}`);
    expect(shown.status).toBe(401);
    expect(await shown.text()).toContain(`calls itself “Document Desktop” (described at ${new URL(clientId).host})`);
  });

  it('enforces the redirect_uris of the document, answering any other one directly', async () => {
    const clientId = serveDocument();
    const { response } = await authorize(clientId, { redirect_uri: 'http://127.0.0.1:45679/elsewhere' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect((await response.json()).error).toBe('invalid_request');
  });

  it('redirects a refusal of the request itself back with the error, the state and iss', async () => {
    const { response } = await authorize(serveDocument(), { scope: 'admin' });
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('error')).toBe('invalid_scope');
    expect(back.searchParams.get('state')).toBe('st-cimd');
    expect(back.searchParams.get('iss')).toBe(issuer);
  });
});

describe('documents wsx refuses, as an unknown client: 400 invalid_client, no redirect', () => {
  it.each([
    ['a client_id other than its URL', () => documentFor(docs.url('/someone-else.json')), /client_id differs/],
    ['a client_secret', () => documentFor(docs.url(path), { client_secret: 'shh' }), /holds client_secret/],
    [
      'a secret-based authentication method',
      () => documentFor(docs.url(path), { token_endpoint_auth_method: 'client_secret_post' }),
      /token_endpoint_auth_method must be "none"/,
    ],
    ['no redirect_uris', () => documentFor(docs.url(path), { redirect_uris: [] }), /must list its redirect_uris/],
    [
      'a redirect URI wsx refuses',
      () => documentFor(docs.url(path), { redirect_uris: ['http://client.example/cb'] }),
      /redirect_uris\[0\] uses http/,
    ],
    [
      'a misleading client_name',
      () => documentFor(docs.url(path), { client_name: 'Good\u202eApp' }),
      /client_name holds U\+202E/,
    ],
    ['a JSON array', () => [documentFor(docs.url(path))], /not a JSON object/],
  ])('refuses a document with %s', async (_label, document, reason) => {
    docs.serveJson(path, document());
    await expectRefused(docs.url(path), 'invalid_client', reason);
  });

  it('refuses a document that is not JSON', async () => {
    docs.serve(path, (response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>'));
    await expectRefused(docs.url(path), 'invalid_client', /not JSON/);
  });

  it('refuses a document over 5 KiB', async () => {
    docs.serveJson(path, documentFor(docs.url(path), { software_id: 'x'.repeat(6000) }));
    await expectRefused(docs.url(path), 'invalid_client', /larger than 5120 bytes/);
  });

  it('refuses a document sent without a length past 5 KiB', async () => {
    docs.serve(path, (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 8; i++) response.write(' '.repeat(1024));
      response.end(JSON.stringify(documentFor(docs.url(path))));
    });
    await expectRefused(docs.url(path), 'invalid_client', /larger than 5120 bytes/);
  });

  it('does not follow a redirect', async () => {
    const target = `${path}.moved`;
    docs.serveJson(target, documentFor(docs.url(path)));
    docs.serve(path, (response) => response.writeHead(302, { location: docs.url(target) }).end());
    await expectRefused(docs.url(path), 'invalid_client', /answered a redirect \(HTTP 302\), which is not followed/);
    expect(docs.hits(target)).toBe(0);
  });

  it('refuses a URL that answers 404', async () => {
    await expectRefused(docs.url(path), 'invalid_client', /answered HTTP 404/);
  });

  it('gives up on a document that does not come within 5 s', { timeout: 20_000 }, async () => {
    docs.serve(path, () => {});
    await expectRefused(docs.url(path), 'invalid_client', /took longer than 5 s/);
  });
});

describe('client_id URLs wsx refuses before fetching anything', () => {
  it.each([
    ['a cloud metadata address', 'https://169.254.169.254/latest/client.json', /169\.254\.169\.254.*cloud metadata/],
    ['a private address', 'https://10.0.0.7/client.json', /10\.0\.0\.7.*\(private\)/],
    ['plain http on another host', 'http://client.example/client.json', /must use https/],
    ['no path', 'https://client.example', /must have a path/],
    ['a fragment', 'https://client.example/client.json#x', /must not have a fragment/],
    ['user information', 'https://me:pw@client.example/client.json', /must not carry user information/],
    ['a dot segment', 'https://client.example/a/../client.json', /must not have "\." or "\.\." path segments/],
    ['an encoded dot segment', 'https://client.example/a/%2e%2E/client.json', /path segments/],
    ['a URL not in its normal form', 'https://CLIENT.example/client.json', /normal form: https:\/\/client\.example\//],
    ['another scheme', 'ftp://client.example/client.json', /must use https/],
    ['a URL over 2048 characters', `https://client.example/${'a'.repeat(2048)}`, /longer than 2048 characters/],
  ])('refuses %s', async (_label, clientId, reason) => {
    await expectRefused(clientId, 'invalid_client', reason);
  });

  it('refuses a host whose name resolves to a private address, and connects to nothing', async () => {
    const restore = useHostLookup(async (host) => (host === 'cimd.test' ? ['10.1.2.3'] : []));
    try {
      await expectRefused('https://cimd.test/client.json', 'invalid_client', /resolves to 10\.1\.2\.3.*\(private\)/);
    } finally {
      restore();
    }
  });

  it('refuses a plain http client_id on loopback when wsx does not run for local development', async () => {
    const remote = await startHarness([ACME], {
      oauthRateLimitPerMinute: 0,
      publicUrl: 'https://wsx.example.test',
      publicUrlDerived: false,
    });
    try {
      const clientId = serveDocument();
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      });
      // Reached on its loopback port, as the TLS proxy in front of it would.
      const response = await fetch(`${await listening(remote.app)}/authorize?${query}`, { redirect: 'manual' });
      expect(response.status).toBe(400);
      const body = await response.json();
      expect(body.error).toBe('invalid_client');
      expect(body.error_description).toMatch(/must use https/);
      expect(docs.hits(path)).toBe(0);
    } finally {
      await remote.close();
    }
  });
});

describe('the document cache', () => {
  it('does not fetch again within max-age', async () => {
    const clientId = serveDocument({}, { 'cache-control': 'public, max-age=600' });
    for (let i = 0; i < 2; i++) expect((await authorize(clientId)).response.status).toBe(302);
    expect(docs.hits(path)).toBe(1);
  });

  it('fetches a no-store document again for every request', async () => {
    const clientId = serveDocument({}, { 'cache-control': 'no-store' });
    for (let i = 0; i < 2; i++) expect((await authorize(clientId)).response.status).toBe(302);
    expect(docs.hits(path)).toBe(2);
  });

  it('reads a changed document once the cached one has gone: a redirect URI taken away is refused', async () => {
    const clientId = serveDocument({}, { 'cache-control': 'no-cache' });
    expect((await authorize(clientId)).response.status).toBe(302);
    docs.serveJson(path, documentFor(clientId, { redirect_uris: ['http://127.0.0.1:45679/other'] }));
    expect((await authorize(clientId)).response.status).toBe(400);
  });

  it.each([
    ['max-age', { cacheControl: 'max-age=60' }, 60_000],
    ['no-store', { cacheControl: 'no-store, max-age=60' }, 0],
    ['no-cache', { cacheControl: 'no-cache' }, 0],
    ['max-age over 12 hours, clamped', { cacheControl: 'max-age=999999' }, 12 * 60 * 60_000],
    [
      'Expires against Date',
      { expires: 'Thu, 01 Jan 2026 00:10:00 GMT', date: 'Thu, 01 Jan 2026 00:00:00 GMT' },
      10 * 60_000,
    ],
    ['an Expires that is no date', { expires: '0' }, 0],
    ['max-age before Expires', { cacheControl: 'max-age=30', expires: 'Thu, 01 Jan 2099 00:00:00 GMT' }, 30_000],
    ['no caching headers', {}, 5 * 60_000],
  ])('keeps a document for its lifetime: %s', (_label, headers, lifetime) => {
    expect(documentLifetimeMs(headers, Date.parse('2026-01-01T00:00:00Z'))).toBe(lifetime);
  });
});

describe('the authorization-server metadata', () => {
  it('says client_ids may be metadata documents and responses carry iss, and keeps registration', async () => {
    const response = await fetch(`${base}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      issuer,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      registration_endpoint: `${base}/register`,
      authorization_endpoint: `${base}/authorize`,
    });
  });
});

describe('a registered client (DCR), as before', () => {
  it('connects end to end, the code coming back with iss', async () => {
    const pending = await flow.pendingRequest();
    const answered = await flow.answer(pending.requestId, cookie);
    expect(answered.status).toBe(303);
    const back = new URL(answered.headers.get('location')!);
    expect(back.searchParams.get('iss')).toBe(issuer);
    const exchanged = await flow.tokenRequest({
      grant_type: 'authorization_code',
      client_id: pending.clientId,
      code: back.searchParams.get('code')!,
      code_verifier: pending.verifier,
      redirect_uri: REDIRECT_URI,
    });
    expect(exchanged.status).toBe(200);
    const projects = await h.call('GET', '/api/external/projects', { token: exchanged.body.access_token as string });
    expect(projects.status).toBe(200);
  });

  it('takes the request as a POSTed form too; refuses a repeated parameter, a large form, other methods', async () => {
    const clientId = await flow.pendingRequest().then((pending) => pending.clientId);
    const form = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    };
    const posted = await flow.postForm('/authorize', form);
    expect(posted.status).toBe(302);
    expect(new URL(posted.headers.get('location')!, base).pathname).toBe('/oauth/consent');

    const repeated = await fetch(`${base}/authorize?${new URLSearchParams(form)}&client_id=${clientId}`, {
      redirect: 'manual',
    });
    expect(repeated.status).toBe(400);
    expect(await repeated.json()).toMatchObject({ error: 'invalid_request', error_description: /more than once/ });

    const large = await flow.postForm('/authorize', { ...form, state: 's'.repeat(20_000) });
    expect(large.status).toBe(413);
    expect((await large.json()).error).toBe('invalid_request');

    const put = await fetch(`${base}/authorize`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect((await put.json()).error).toBe('method_not_allowed');
  });

  it('answers an unknown client_id directly, as before', async () => {
    await expectRefused('ocl_nobody', 'invalid_client', /Invalid client_id/);
  });
});
