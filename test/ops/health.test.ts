import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness([], { rateLimitPerMinute: 2 });
});
afterAll(() => h.close());

describe('health endpoints', () => {
  it('GET /healthz answers 200 without auth', async () => {
    const reply = await h.call('GET', '/healthz');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 without auth when the database answers', async () => {
    const reply = await h.call('GET', '/readyz');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ready', database: h.database.dialect });
  });

  it('is never rate limited', async () => {
    for (let i = 0; i < 4; i++) {
      expect((await h.call('GET', '/healthz')).status).toBe(200);
      expect((await h.call('GET', '/readyz')).status).toBe(200);
    }
  });
});
