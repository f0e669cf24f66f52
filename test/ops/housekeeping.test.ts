import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness([ACME]);
});
afterAll(() => h.close());

describe('background housekeeping', () => {
  it('drops expired idempotency records when the workers start, and keeps live ones', async () => {
    for (const key of ['stale', 'fresh']) {
      const reply = await h.call('POST', '/api/external/projects', {
        token: TOKENS.admin,
        body: { name: key },
        headers: { 'idempotency-key': key },
      });
      expect(reply.status).toBe(201);
    }
    await h.database.db
      .updateTable('idempotency_keys')
      .set({ expires_at: '2000-01-01T00:00:00.000Z' })
      .where('key', '=', 'stale')
      .execute();

    const server = await buildApp({
      database: h.database,
      config: { ...loadConfig({}), rateLimitPerMinute: 0 },
      workers: true,
    });
    await server.ready();
    await expect
      .poll(async () =>
        (await h.database.db.selectFrom('idempotency_keys').select('key').execute()).map((r) => r.key).sort(),
      )
      .toEqual(['fresh']);
    await server.close();
  });
});
