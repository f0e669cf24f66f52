import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type AppConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { hashSecret } from '../../src/modules/auth/secrets.js';
import { ACME } from '../support/fixtures.js';
import { startHarness } from '../support/harness.js';
import {
  LOOPBACK_REDIRECT,
  connectClient,
  listening,
  personOf,
  publicClient,
  randomIPv4,
  refresh,
  registerClient,
  tokenRequest,
  type Answer,
} from '../support/oauth-flow.js';

/**
 * The limits of the OAuth endpoints behind a proxy: refused requests are counted per client
 * address and never refuse a valid one; valid requests are counted per grant (/token), per
 * client and address (/authorize, /revoke) or per address (/register); addresses are read
 * from X-Forwarded-For only through the proxies WSX_TRUST_PROXY names, for the API's
 * failed-authentication limit too; and the counters are shared through Redis.
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const FAILURE_LIMIT = 3;
/** The address every request of a test comes from behind the proxy, when the proxy is trusted. */
const from = (ip: string) => ({ 'x-forwarded-for': ip });

async function start(config: Partial<AppConfig>) {
  const h = await startHarness([ACME], config);
  const base = await listening(h.app);
  return { h, base, person: await personOf(h, 'carol') };
}

function expectTooMany(reply: Answer) {
  expect(reply.status).toBe(429);
  expect(reply.body.error).toBe('too_many_requests');
  expect(reply.body.error_description).toEqual(expect.any(String));
  expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(Number(reply.headers.get('retry-after'))).toBeLessThanOrEqual(60);
}

const junkRefresh = (base: string, clientId: string, headers = {}) =>
  refresh(base, clientId, `svc_ort_${'x'.repeat(40)}`, headers);

describe('behind an untrusted proxy (every request from one address)', () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    // The defaults of WSX_OAUTH_RATE_LIMIT; the failure limit low.
    s = await start({ authFailureLimit: FAILURE_LIMIT });
  });
  afterAll(() => s.h.close());

  it('keeps refreshing a connector while junk /token requests from the same address are refused', async () => {
    const { clientId, tokens } = await connectClient(s.h, s.base, s.person);
    for (let i = 0; i < FAILURE_LIMIT; i++) {
      const refused = await junkRefresh(s.base, clientId);
      expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    }
    // More junk than the old per-address budget of 60 requests a minute.
    for (let i = 0; i < 70; i++) expectTooMany(await junkRefresh(s.base, clientId));
    const unknownClient = await tokenRequest(s.base, { grant_type: 'refresh_token', client_id: 'ocl_nobody' });
    expectTooMany(unknownClient);

    const refreshed = await refresh(s.base, clientId, tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).toMatch(/^svc_oat_/);
    // A valid request is answered in full; the refusals go on being 429.
    expect((await refresh(s.base, clientId, refreshed.body.refresh_token)).status).toBe(200);
    expectTooMany(await junkRefresh(s.base, clientId));
  });

  it('registers a client while junk registrations from the same address are refused', async () => {
    const junk = { redirect_uris: ['http://attacker.example/cb'], token_endpoint_auth_method: 'none' };
    // Every request here is the proxy's, whose refusals other tests may have spent already.
    let refused = await registerClient(s.base, junk);
    for (let i = 0; i < FAILURE_LIMIT && refused.status === 400; i++) refused = await registerClient(s.base, junk);
    expectTooMany(refused);
    for (let i = 0; i < 15; i++) expectTooMany(await registerClient(s.base, junk));
    const registered = await registerClient(s.base, {
      client_name: 'Real desktop client',
      redirect_uris: [LOOPBACK_REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    expect(registered.status).toBe(201);
  });
});

describe('valid requests', () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    // /token: 2 a minute per grant; /register: 1 a minute per address. The proxy on loopback is trusted.
    s = await start({ oauthRateLimitPerMinute: 2, trustProxy: ['127.0.0.1'] });
  });
  afterAll(() => s.h.close());

  it('counts token requests per grant: one connector at its budget leaves the others alone', async () => {
    const first = await connectClient(s.h, s.base, s.person, from(randomIPv4()));
    const second = await connectClient(s.h, s.base, s.person, from(randomIPv4()));

    const refreshed = await refresh(s.base, first.clientId, first.tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get('ratelimit-limit')).toBe('2');
    expect(refreshed.headers.get('ratelimit-remaining')).toBe('0');
    // The code exchange and this refresh spent the grant's two.
    const limited = await refresh(s.base, first.clientId, refreshed.body.refresh_token);
    expectTooMany(limited);
    expect(limited.body.error_description).toMatch(/grant/);
    // Refused before the exchange: the refresh token is not spent, and works once the window is over.
    const row = await s.h.database.db
      .selectFrom('oauth_refresh_tokens')
      .select('rotated_at')
      .where('secret_hash', '=', hashSecret(refreshed.body.refresh_token))
      .executeTakeFirstOrThrow();
    expect(row.rotated_at).toBeNull();

    // Same address (the proxy's), another grant: its own budget.
    expect((await refresh(s.base, second.clientId, second.tokens.refresh_token)).status).toBe(200);
  });

  it('does not charge refused token requests to a grant', async () => {
    const { clientId, tokens } = await connectClient(s.h, s.base, s.person, from(randomIPv4()));
    // The wrong client for the refresh token, then an unsupported scope: refused, not counted.
    const other = await publicClient(s.base, from(randomIPv4()));
    for (let i = 0; i < 5; i++)
      expect((await refresh(s.base, other, tokens.refresh_token)).body.error).toBe('invalid_grant');
    for (let i = 0; i < 5; i++) {
      const refused = await tokenRequest(s.base, {
        grant_type: 'refresh_token',
        client_id: clientId,
        refresh_token: tokens.refresh_token,
        scope: 'admin',
      });
      expect(refused.body.error).toBe('invalid_scope');
    }
    expect((await refresh(s.base, clientId, tokens.refresh_token)).status).toBe(200);
  });

  it('counts registrations per client address read through the trusted proxy', async () => {
    const address = randomIPv4();
    expect((await registerClient(s.base, registration(), from(address))).status).toBe(201);
    const limited = await registerClient(s.base, registration(), from(address));
    expectTooMany(limited);
    expect(limited.body.error_description).toMatch(/registrations from this address/);
    expect((await registerClient(s.base, registration(), from(randomIPv4()))).status).toBe(201);
    // Refused registrations do not spend the budget of valid ones.
    const fresh = randomIPv4();
    const refused = await registerClient(s.base, { redirect_uris: ['myapp:/cb'] }, from(fresh));
    expect(refused.status).toBe(400);
    expect((await registerClient(s.base, registration(), from(fresh))).status).toBe(201);
  });

  it('counts authorization requests per client and address', async () => {
    const address = randomIPv4();
    const clientId = await publicClient(s.base, from(address));
    const authorize = (ip: string) =>
      fetch(
        `${s.base}/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: LOOPBACK_REDIRECT,
          code_challenge: 'a'.repeat(43),
          code_challenge_method: 'S256',
        })}`,
        { redirect: 'manual', headers: from(ip) },
      );
    expect((await authorize(address)).status).toBe(302);
    expect((await authorize(address)).status).toBe(302);
    const limited = await authorize(address);
    expect(limited.status).toBe(429);
    expect((await limited.json()).error).toBe('too_many_requests');
    // Someone else naming the same (public) client id spends their own budget, not this one's.
    expect((await authorize(randomIPv4())).status).toBe(302);
  });
});

const registration = () => ({
  client_name: 'Desktop',
  redirect_uris: [LOOPBACK_REDIRECT],
  token_endpoint_auth_method: 'none',
});

describe('refused requests per client address, read through the trusted proxy', () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    s = await start({ authFailureLimit: FAILURE_LIMIT, trustProxy: ['127.0.0.1'] });
  });
  afterAll(() => s.h.close());

  it('limits the refusals of one address and leaves another address its own budget', async () => {
    const clientId = await publicClient(s.base);
    const noisy = randomIPv4();
    for (let i = 0; i < FAILURE_LIMIT; i++) expect((await junkRefresh(s.base, clientId, from(noisy))).status).toBe(400);
    expectTooMany(await junkRefresh(s.base, clientId, from(noisy)));
    const revoke = await fetch(`${s.base}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...from(noisy) },
      body: new URLSearchParams({ client_id: 'ocl_nobody', token: 'x' }),
    });
    expect(revoke.status).toBe(429);
    expect((await junkRefresh(s.base, clientId, from(randomIPv4()))).status).toBe(400);
  });

  it('charges authorization requests refused to the browser, a refused client_id URL among them', async () => {
    const noisy = randomIPv4();
    const authorize = (clientId: string, ip: string) =>
      fetch(
        `${s.base}/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          code_challenge: 'a'.repeat(43),
          code_challenge_method: 'S256',
        })}`,
        { redirect: 'manual', headers: from(ip) },
      );
    for (let i = 0; i < FAILURE_LIMIT; i++)
      expect((await authorize('https://10.0.0.7/client.json', noisy)).status).toBe(400);
    const limited = await authorize('ocl_nobody', noisy);
    expect(limited.status).toBe(429);
    expect((await limited.json()).error).toBe('too_many_requests');
    expect((await authorize('ocl_nobody', randomIPv4())).status).toBe(400);
  });

  it('reads X-Forwarded-For only from a trusted proxy', async () => {
    const strict = await start({ authFailureLimit: FAILURE_LIMIT, trustProxy: ['10.255.255.1'] });
    try {
      const clientId = await publicClient(strict.base);
      // From loopback, which is no trusted proxy here: every request is loopback's, whatever it claims.
      for (let i = 0; i < FAILURE_LIMIT; i++)
        expect((await junkRefresh(strict.base, clientId, from(randomIPv4()))).status).toBe(400);
      expectTooMany(await junkRefresh(strict.base, clientId, from(randomIPv4())));
    } finally {
      await strict.h.close();
    }
  });
});

describe("WSX_TRUST_PROXY and the API's failed-authentication limit", () => {
  const failAt = async (app: FastifyInstance, headers: Record<string, string>) =>
    (await app.inject({ method: 'GET', url: '/api/external/teams', remoteAddress: '127.0.0.1', headers })).statusCode;

  it('charges failed authentications to the address the trusted proxy names', async () => {
    const h = await startHarness([ACME], { authFailureLimit: 2, trustProxy: ['127.0.0.1'] });
    try {
      const noisy = randomIPv4();
      expect(await failAt(h.app, from(noisy))).toBe(401);
      expect(await failAt(h.app, from(noisy))).toBe(401);
      expect(await failAt(h.app, from(noisy))).toBe(429);
      expect(await failAt(h.app, from(randomIPv4()))).toBe(401);
    } finally {
      await h.close();
    }
  });

  it('reads a hop count as the addresses that many proxies saw', async () => {
    const h = await startHarness([ACME], { authFailureLimit: 2, trustProxy: 1 });
    try {
      const client = randomIPv4();
      // One proxy in front: the address it saw is the last entry; what the client wrote before it is not believed.
      for (const forged of ['203.0.113.1', '203.0.113.2'])
        expect(await failAt(h.app, from(`${forged}, ${client}`))).toBe(401);
      expect(await failAt(h.app, from(`203.0.113.3, ${client}`))).toBe(429);
      expect(await failAt(h.app, from(randomIPv4()))).toBe(401);
    } finally {
      await h.close();
    }
  });

  it('ignores X-Forwarded-For by default', async () => {
    const h = await startHarness([ACME], { authFailureLimit: 2 });
    try {
      expect(await failAt(h.app, from(randomIPv4()))).toBe(401);
      expect(await failAt(h.app, from(randomIPv4()))).toBe(401);
      expect(await failAt(h.app, from(randomIPv4()))).toBe(429);
    } finally {
      await h.close();
    }
  });

  it('reads the setting in the forms Fastify takes, and refuses anything else', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ WSX_TRUST_PROXY: '' }).trustProxy).toBe(false);
    expect(loadConfig({ WSX_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ WSX_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ WSX_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ WSX_TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ WSX_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8,::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      'fd00::/8',
      '::1',
    ]);
    expect(loadConfig({ WSX_TRUST_PROXY: 'loopback,uniquelocal' }).trustProxy).toEqual(['loopback', 'uniquelocal']);
    for (const wrong of ['proxy.internal', '10.1', '10.0.0.0/33', 'yes', '127.0.0.1,,10.0.0.1'])
      expect(() => loadConfig({ WSX_TRUST_PROXY: wrong }), wrong).toThrow(/^WSX_TRUST_PROXY must be/);
    expect(() => loadConfig({ WSX_TRUST_PROXY: '127.0.0.1, proxy.internal' })).toThrow(/"proxy\.internal" is none/);
  });
});

describe('OAuth limits shared through Redis', () => {
  let s: Awaited<ReturnType<typeof start>>;
  let second: FastifyInstance;
  let secondBase: string;
  beforeAll(async () => {
    const config = {
      authFailureLimit: FAILURE_LIMIT,
      oauthRateLimitPerMinute: 6,
      trustProxy: ['127.0.0.1'],
      redisUrl: REDIS_URL,
    };
    s = await start(config);
    second = await buildApp({
      database: s.h.database,
      config: { ...loadConfig({}), rateLimitPerMinute: 0, ...config },
    });
    secondBase = await listening(second);
  });
  afterAll(async () => {
    await second.close();
    await s.h.close();
  });

  it('spends one registration budget and one refusal budget per address across both processes', async () => {
    const address = randomIPv4();
    expect((await registerClient(s.base, registration(), from(address))).status).toBe(201);
    expectTooMany(await registerClient(secondBase, registration(), from(address)));

    const clientId = await publicClient(s.base, from(randomIPv4()));
    const noisy = randomIPv4();
    expect((await junkRefresh(s.base, clientId, from(noisy))).status).toBe(400);
    expect((await junkRefresh(secondBase, clientId, from(noisy))).status).toBe(400);
    expect((await junkRefresh(s.base, clientId, from(noisy))).status).toBe(400);
    expectTooMany(await junkRefresh(secondBase, clientId, from(noisy)));
    expectTooMany(await junkRefresh(s.base, clientId, from(noisy)));
  });
});

describe('Redis unreachable', () => {
  it('lets OAuth requests through unlimited', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const s = await start({
      authFailureLimit: 1,
      oauthRateLimitPerMinute: 6,
      redisUrl: `redis://127.0.0.1:${port}`,
    });
    try {
      for (let i = 0; i < 3; i++) expect((await registerClient(s.base, registration())).status).toBe(201);
      const clientId = await publicClient(s.base);
      for (let i = 0; i < 3; i++) expect((await junkRefresh(s.base, clientId)).status).toBe(400);
    } finally {
      await s.h.close();
    }
  });
});
