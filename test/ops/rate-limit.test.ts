import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

const LIMIT = 3;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const rateHeaders = (headers: Record<string, unknown>) => ({
  limit: headers['ratelimit-limit'],
  remaining: headers['ratelimit-remaining'],
  reset: headers['ratelimit-reset'],
});

describe('rate limiting on (in-memory counters)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness([ACME], { rateLimitPerMinute: LIMIT });
  });
  afterAll(() => h.close());

  it('sends RateLimit headers and answers 429 RATE_LIMITED with Retry-After past the limit', async () => {
    const remaining: unknown[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const reply = await h.call('GET', '/api/external/teams', { token: TOKENS.admin });
      expect(reply.status).toBe(200);
      const headers = rateHeaders(reply.headers);
      expect(headers.limit).toBe(String(LIMIT));
      expect(Number(headers.reset)).toBeGreaterThan(0);
      expect(Number(headers.reset)).toBeLessThanOrEqual(60);
      remaining.push(headers.remaining);
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const limited = await h.call('GET', '/api/external/teams', { token: TOKENS.admin });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Object.keys(limited.body).sort()).toEqual(['code', 'details', 'error', 'suggestion']);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(rateHeaders(limited.headers)).toMatchObject({ limit: String(LIMIT), remaining: '0' });
  });

  it('keeps one budget per credential: another token is unaffected', async () => {
    const reply = await h.call('GET', '/api/external/teams', { token: TOKENS.bot });
    expect(reply.status).toBe(200);
    expect(rateHeaders(reply.headers)).toMatchObject({ limit: String(LIMIT), remaining: '2' });
  });

  it('counts unknown routes and sends the headers on their 404', async () => {
    const reply = await h.call('GET', '/api/external/no-such-route', { token: TOKENS.alice });
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('ROUTE_NOT_FOUND');
    expect(rateHeaders(reply.headers)).toMatchObject({ limit: String(LIMIT), remaining: '2' });
  });

  it('sends the headers on a 415 and a 400 as well', async () => {
    const unsupported = await h.app.inject({
      method: 'POST',
      url: '/api/external/projects',
      payload: 'x',
      headers: { authorization: `Bearer ${TOKENS.idle}`, 'content-type': 'text/plain' },
    });
    expect(unsupported.statusCode).toBe(415);
    expect(rateHeaders(unsupported.headers)).toMatchObject({ limit: String(LIMIT), remaining: '2' });

    const invalid = await h.call('POST', '/api/external/projects', { token: TOKENS.idle, body: { name: '' } });
    expect(invalid.status).toBe(400);
    expect(rateHeaders(invalid.headers)).toMatchObject({ limit: String(LIMIT), remaining: '1' });
  });

  it('does not count requests without a credential; they answer 401 without RateLimit headers', async () => {
    for (let i = 0; i <= LIMIT; i++) {
      const reply = await h.call('GET', '/api/external/teams');
      expect(reply.status).toBe(401);
      expect(reply.headers['ratelimit-limit']).toBeUndefined();
    }
    const health = await h.call('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.headers['ratelimit-limit']).toBeUndefined();
  });
});

describe('rate limiting off', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness([ACME], { rateLimitPerMinute: 0 });
  });
  afterAll(() => h.close());

  it('sends no RateLimit headers and never answers 429', async () => {
    for (let i = 0; i < LIMIT + 2; i++) {
      const reply = await h.call('GET', '/api/external/teams', { token: TOKENS.admin });
      expect(reply.status).toBe(200);
      expect(rateHeaders(reply.headers)).toEqual({ limit: undefined, remaining: undefined, reset: undefined });
    }
    const notFound = await h.call('GET', '/api/external/no-such-route', { token: TOKENS.admin });
    expect(notFound.headers['ratelimit-limit']).toBeUndefined();
  });
});

describe('rate limiting shared through Redis', () => {
  let h: Harness;
  let secondNode: FastifyInstance;
  beforeAll(async () => {
    // Two app instances on one database, as two nodes behind a load balancer. Counters are
    // keyed by credential ids that are fresh in every test database, so no flush is needed.
    h = await startHarness([ACME], { rateLimitPerMinute: LIMIT, redisUrl: REDIS_URL });
    secondNode = await buildApp({
      database: h.database,
      config: { ...loadConfig({}), rateLimitPerMinute: LIMIT, redisUrl: REDIS_URL },
    });
  });
  afterAll(async () => {
    await secondNode.close();
    await h.close();
  });

  const callSecondNode = (token: string) =>
    secondNode.inject({ method: 'GET', url: '/api/external/teams', headers: { authorization: `Bearer ${token}` } });

  it('spends one budget across both nodes', async () => {
    const first = await h.call('GET', '/api/external/teams', { token: TOKENS.admin });
    const second = await callSecondNode(TOKENS.admin);
    const third = await h.call('GET', '/api/external/teams', { token: TOKENS.admin });
    expect([first.status, second.statusCode, third.status]).toEqual([200, 200, 200]);
    expect([
      first.headers['ratelimit-remaining'],
      second.headers['ratelimit-remaining'],
      third.headers['ratelimit-remaining'],
    ]).toEqual(['2', '1', '0']);

    const limited = await callSecondNode(TOKENS.admin);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('keeps other credentials unaffected in the shared store', async () => {
    const reply = await callSecondNode(TOKENS.bot);
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['ratelimit-remaining']).toBe('2');
  });
});
