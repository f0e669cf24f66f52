import { randomInt } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * Failed authentications are limited per client address, valid credentials never; and a
 * Redis that does not answer neither slows requests down nor stops them.
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const FAILURE_LIMIT = 3;

/** A fresh address per use: counters in a shared Redis outlive one test run. */
const randomIPv4 = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

interface Sent {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

async function send(
  app: FastifyInstance,
  ip: string,
  options: { url?: string; method?: string; headers?: Record<string, string>; payload?: string } = {},
): Promise<Sent> {
  const reply = await app.inject({
    method: (options.method ?? 'GET') as never,
    url: options.url ?? '/api/external/teams',
    remoteAddress: ip,
    headers: options.headers,
    payload: options.payload,
  });
  return { status: reply.statusCode, body: reply.body ? JSON.parse(reply.body) : undefined, headers: reply.headers };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Each a different reason a credential fails; all of them count. */
const FAILURES: Array<Record<string, string>> = [
  {},
  bearer('svc_pat_short'),
  bearer(TOKENS.off),
  bearer(`svc_pat_${'x1Y2'.repeat(10)}`),
  { 'x-api-key': 'nope' },
];

function expectFailureLimited(reply: Sent) {
  expect(reply.status).toBe(429);
  expect(reply.body).toMatchObject({
    code: 'RATE_LIMITED',
    details: { reason: 'authentication_failures', limit: FAILURE_LIMIT },
  });
  expect(Object.keys(reply.body).sort()).toEqual(['code', 'details', 'error', 'suggestion']);
  expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(reply.headers['retry-after'])).toBeLessThanOrEqual(60);
}

describe('failed authentications per client address (in memory)', () => {
  let h: Harness;
  let baseline: unknown;
  beforeAll(async () => {
    h = await startHarness([ACME], { authFailureLimit: FAILURE_LIMIT });
    baseline = (await send(h.app, randomIPv4())).body;
  });
  afterAll(() => h.close());

  it(`answers 401 to the first ${FAILURE_LIMIT} failures, then 429 RATE_LIMITED with Retry-After`, async () => {
    const ip = randomIPv4();
    for (const headers of FAILURES.slice(0, FAILURE_LIMIT)) {
      const reply = await send(h.app, ip, { headers });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(baseline);
    }
    for (const headers of FAILURES) expectFailureLimited(await send(h.app, ip, { headers }));
  });

  it('never refuses a valid credential from a limited address, on HTTP or MCP', async () => {
    const ip = randomIPv4();
    for (let i = 0; i <= FAILURE_LIMIT; i++) await send(h.app, ip);
    expectFailureLimited(await send(h.app, ip));
    expect((await send(h.app, ip, { headers: bearer(TOKENS.admin) })).status).toBe(200);
    expect((await send(h.app, ip, { headers: bearer(TOKENS.alice), url: '/api/external/projects' })).status).toBe(200);
    const mcp = await send(h.app, ip, {
      method: 'POST',
      url: '/api/mcp',
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      headers: { ...bearer(TOKENS.bot), 'content-type': 'application/json' },
    });
    expect(mcp.status).toBe(200);
    // ...and the failures stay limited.
    expectFailureLimited(await send(h.app, ip, { headers: bearer(TOKENS.off) }));
  });

  it('counts failures on /api/mcp, under any spelling, against the same budget', async () => {
    const ip = randomIPv4();
    const mcp = {
      method: 'POST',
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
      headers: { 'content-type': 'application/json' },
    };
    expect((await send(h.app, ip, { ...mcp, url: '/api/mcp' })).status).toBe(401);
    expect((await send(h.app, ip, { ...mcp, url: '/api/%6dcp' })).status).toBe(401);
    expect((await send(h.app, ip, { url: '/api/%65xternal/teams' })).status).toBe(401);
    expectFailureLimited(await send(h.app, ip, { ...mcp, url: '/api/mcp' }));
  });

  it('keeps one budget per address: another address still gets 401', async () => {
    const limited = randomIPv4();
    for (let i = 0; i <= FAILURE_LIMIT; i++) await send(h.app, limited);
    expectFailureLimited(await send(h.app, limited));
    expect((await send(h.app, randomIPv4())).status).toBe(401);
  });

  it('reads an IPv4-mapped IPv6 address as IPv4, and an IPv6 address by its /64', async () => {
    const v4 = randomIPv4();
    await send(h.app, v4);
    await send(h.app, `::ffff:${v4}`);
    await send(h.app, v4);
    expectFailureLimited(await send(h.app, `::ffff:${v4}`));

    const prefix = `2001:db8:${randomInt(0xffff).toString(16)}:${randomInt(0xffff).toString(16)}`;
    await send(h.app, `${prefix}::1`);
    await send(h.app, `${prefix}::2`);
    await send(h.app, `${prefix}:1:2:3:4`);
    expectFailureLimited(await send(h.app, `${prefix}::ffff`));
    expect((await send(h.app, `2001:db8:ffff:${randomInt(0xffff).toString(16)}::1`)).status).toBe(401);
  });

  it('does not count app pages or the public OpenAPI document', async () => {
    const ip = randomIPv4();
    for (let i = 0; i < FAILURE_LIMIT * 2; i++) {
      expect((await send(h.app, ip, { url: '/settings' })).status).toBe(401);
      expect((await send(h.app, ip, { url: '/api/external/openapi.json' })).status).toBe(200);
    }
    expect((await send(h.app, ip)).status).toBe(401);
  });

  it('sends no RateLimit headers on the 401s and 429s of failed credentials', async () => {
    const ip = randomIPv4();
    for (let i = 0; i <= FAILURE_LIMIT + 1; i++)
      expect((await send(h.app, ip)).headers['ratelimit-limit']).toBeUndefined();
  });
});

describe('failed-authentication limit settings', () => {
  it('defaults to 20 per minute and reads WSX_AUTH_FAILURE_LIMIT; 0 turns it off', () => {
    expect(loadConfig({}).authFailureLimit).toBe(20);
    expect(loadConfig({ WSX_AUTH_FAILURE_LIMIT: '5' }).authFailureLimit).toBe(5);
    expect(loadConfig({ WSX_AUTH_FAILURE_LIMIT: '0' }).authFailureLimit).toBe(0);
    expect(() => loadConfig({ WSX_AUTH_FAILURE_LIMIT: 'many' })).toThrow(/WSX_AUTH_FAILURE_LIMIT must be an integer/);
    expect(() => loadConfig({ WSX_AUTH_FAILURE_LIMIT: '-1' })).toThrow(/WSX_AUTH_FAILURE_LIMIT/);
  });

  it('answers every failure 401 when the limit is off', async () => {
    const h = await startHarness([ACME], { authFailureLimit: 0 });
    try {
      const ip = randomIPv4();
      for (let i = 0; i < 25; i++) expect((await send(h.app, ip)).status).toBe(401);
    } finally {
      await h.close();
    }
  });

  it('limits failures even with the per-credential limit off, and the other way round', async () => {
    const failuresOnly = await startHarness([ACME], { authFailureLimit: FAILURE_LIMIT, rateLimitPerMinute: 0 });
    const requestsOnly = await startHarness([ACME], { authFailureLimit: 0, rateLimitPerMinute: 2 });
    try {
      const ip = randomIPv4();
      for (let i = 0; i < FAILURE_LIMIT; i++) await send(failuresOnly.app, ip);
      expectFailureLimited(await send(failuresOnly.app, ip));
      expect(
        (await send(failuresOnly.app, ip, { headers: bearer(TOKENS.admin) })).headers['ratelimit-limit'],
      ).toBeUndefined();

      for (let i = 0; i < 10; i++) expect((await send(requestsOnly.app, ip)).status).toBe(401);
      expect((await send(requestsOnly.app, ip, { headers: bearer(TOKENS.admin) })).status).toBe(200);
      expect((await send(requestsOnly.app, ip, { headers: bearer(TOKENS.admin) })).status).toBe(200);
      expect((await send(requestsOnly.app, ip, { headers: bearer(TOKENS.admin) })).status).toBe(429);
    } finally {
      await failuresOnly.close();
      await requestsOnly.close();
    }
  });
});

describe('failed authentications shared through Redis', () => {
  let h: Harness;
  let secondNode: FastifyInstance;
  beforeAll(async () => {
    h = await startHarness([ACME], { authFailureLimit: FAILURE_LIMIT, redisUrl: REDIS_URL });
    secondNode = await buildApp({
      database: h.database,
      config: { ...loadConfig({}), rateLimitPerMinute: 0, authFailureLimit: FAILURE_LIMIT, redisUrl: REDIS_URL },
    });
  });
  afterAll(async () => {
    await secondNode.close();
    await h.close();
  });

  it('spends one failure budget across both nodes, and valid credentials pass on both', async () => {
    const ip = randomIPv4();
    expect((await send(h.app, ip)).status).toBe(401);
    expect((await send(secondNode, ip)).status).toBe(401);
    expect((await send(h.app, ip)).status).toBe(401);
    expectFailureLimited(await send(secondNode, ip));
    expectFailureLimited(await send(h.app, ip));
    expect((await send(h.app, ip, { headers: bearer(TOKENS.admin) })).status).toBe(200);
    expect((await send(secondNode, ip, { headers: bearer(TOKENS.admin) })).status).toBe(200);
    expect((await send(secondNode, randomIPv4())).status).toBe(401);
  });
});

/**
 * A port with nothing listening on it (taken, then released), below Linux's ephemeral range
 * (32768 and up). A port in that range can be taken meanwhile as the local end of an outgoing
 * connection, even of the client's own reconnects to it (a socket connected to itself), and
 * the proxy could then not listen there.
 */
async function closedPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = randomInt(20_000, 32_768);
    const server = createServer();
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!listening) continue;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }
  throw new Error('no free port below the ephemeral range');
}

/** Forwards `port` to the real Redis: Redis "comes back" on that port. `close` drops every connection. */
async function redisProxy(port: number): Promise<{ close: () => Promise<void> }> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('Redis unreachable (REDIS_URL on a closed port)', () => {
  const LIMIT = 3;
  let h: Harness;
  let port: number;
  let proxy: { close: () => Promise<void> } | undefined;
  let warn: { mock: { calls: unknown[][] }; mockRestore: () => void };
  let info: { mock: { calls: unknown[][] }; mockRestore: () => void };

  beforeAll(async () => {
    port = await closedPort();
    h = await startHarness([ACME], {
      rateLimitPerMinute: LIMIT,
      authFailureLimit: FAILURE_LIMIT,
      redisUrl: `redis://127.0.0.1:${port}`,
    });
    warn = vi.spyOn(h.app.log, 'warn');
    info = vi.spyOn(h.app.log, 'info');
  });
  afterAll(async () => {
    warn.mockRestore();
    info.mockRestore();
    await h.close();
    await proxy?.close();
  });

  const outageWarnings = () => warn.mock.calls.filter((call) => /Redis is unreachable/.test(String(call[1])));

  it('lets 20 sequential requests through unlimited and logs the outage once', async () => {
    for (let i = 0; i < 20; i++) {
      const reply = await h.call('GET', '/api/external/teams', { token: TOKENS.admin });
      expect(reply.status).toBe(200);
    }
    const ip = randomIPv4();
    for (let i = 0; i < FAILURE_LIMIT * 3; i++) expect((await send(h.app, ip)).status).toBe(401);
    const batch = `[${Array.from({ length: 10 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"list_teams","arguments":{}}}`).join(',')}]`;
    const mcp = await send(h.app, ip, {
      method: 'POST',
      url: '/api/mcp',
      payload: batch,
      headers: { ...bearer(TOKENS.bot), 'content-type': 'application/json' },
    });
    expect(mcp.status).toBe(200);
    expect(outageWarnings()).toHaveLength(1);
    expect(outageWarnings()[0][0]).toMatchObject({ redis: `redis://127.0.0.1:${port}` });
  });

  it('resumes limiting once Redis answers again, and logs that once', async () => {
    proxy = await redisProxy(port);
    // ioredis reconnects in the background; poll with a token that has not been counted yet.
    let reply = await h.call('GET', '/api/external/teams', { token: TOKENS.idle });
    while (reply.headers['ratelimit-remaining'] === String(LIMIT)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      reply = await h.call('GET', '/api/external/teams', { token: TOKENS.idle });
    }
    expect(reply.status).toBe(200);
    expect(reply.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
    expect((await h.call('GET', '/api/external/teams', { token: TOKENS.idle })).status).toBe(200);
    expect((await h.call('GET', '/api/external/teams', { token: TOKENS.idle })).status).toBe(200);
    const limited = await h.call('GET', '/api/external/teams', { token: TOKENS.idle });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');

    const ip = randomIPv4();
    for (let i = 0; i < FAILURE_LIMIT; i++) expect((await send(h.app, ip)).status).toBe(401);
    expectFailureLimited(await send(h.app, ip));

    expect(info.mock.calls.filter((call) => /Redis answers again/.test(String(call[1])))).toHaveLength(1);
    expect(outageWarnings()).toHaveLength(1);
  });
});
