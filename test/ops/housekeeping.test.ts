import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/core/clock.js';
import { loadConfig } from '../../src/config.js';
import { saveAuthorizationRequest } from '../../src/modules/oauth/authorization-requests.js';
import { issueCode } from '../../src/modules/oauth/codes.js';
import { grantForApproval } from '../../src/modules/oauth/grants.js';
import { buildApp } from '../../src/server/app.js';
import { runHousekeeping, type HousekeepingJob } from '../../src/server/housekeeping.js';
import { createLoginLink } from '../../src/web/login-links.js';
import { endSession, openSession } from '../../src/web/sessions.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { personOf } from '../support/oauth-flow.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness([ACME]);
});
afterAll(() => h.close());

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Starts an app with its background workers on the harness's store, until `work` is done. */
async function withWorkers(work: () => Promise<void>): Promise<void> {
  const server = await buildApp({
    database: h.database,
    config: { ...loadConfig({}), rateLimitPerMinute: 0 },
    workers: true,
  });
  await server.ready();
  try {
    await work();
  } finally {
    await server.close();
  }
}

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

    await withWorkers(() =>
      expect
        .poll(async () =>
          (await h.database.db.selectFrom('idempotency_keys').select('key').execute()).map((r) => r.key).sort(),
        )
        .toEqual(['fresh']),
    );
  });

  it('prunes what nobody can use any more (OAuth requests, codes and unused clients, sessions, sign-in links)', async () => {
    const db = h.database.db;
    const now = Date.now();
    const alice = await personOf(h, 'alice');
    const client = async (id: string, createdMs: number) => {
      await db
        .insertInto('oauth_clients')
        .values({ id, client_name: id, metadata: '{}', confidential: 0, created_at: nowIso(createdMs) })
        .execute();
      return id;
    };
    const request = (clientId: string, madeMs: number) =>
      saveAuthorizationRequest(
        db,
        {
          client_id: clientId,
          redirect_uri: 'http://127.0.0.1:33418/callback',
          code_challenge: 'x'.repeat(43),
          scopes: 'read',
          state: null,
          resource: null,
        },
        madeMs,
      );
    // Registered two days ago and never approved: pruned, with its expired request.
    const unused = await client('ocl_unused_for_two_days', now - 2 * DAY);
    await request(unused, now - HOUR);
    // Two days old too, but a person approved it: kept, with its grant and its codes' fate their own.
    const used = await client('ocl_approved_two_days_ago', now - 2 * DAY);
    const grantId = await grantForApproval(
      db,
      { ...alice, clientId: used, scopes: ['read'], resource: null },
      now - 2 * DAY,
    );
    // Two days old, never approved, but a request of it waits now on the consent page: kept.
    const waiting = await client('ocl_old_with_a_waiting_request', now - 2 * DAY);
    const live = await request(waiting, now);
    // Registered an hour ago: kept, and its expired request goes.
    const recent = await client('ocl_registered_an_hour_ago', now - HOUR);
    await request(recent, now - HOUR);
    const code = {
      workspace_id: alice.workspaceId,
      grant_id: grantId,
      client_id: used,
      redirect_uri: 'http://127.0.0.1:33418/callback',
      code_challenge: 'x'.repeat(43),
      scopes: 'read',
      resource: null,
    };
    await issueCode(db, code, now - 2 * MINUTE);
    await issueCode(db, code, now);
    // Sessions: past their 7 days, idle for 12 hours, signed out, and one in use.
    await openSession(db, alice, now - 8 * DAY);
    await openSession(db, alice, now - 13 * HOUR);
    await openSession(db, alice, now - HOUR);
    const signedOut = await db
      .selectFrom('browser_sessions')
      .select('id')
      .where('created_at', '=', nowIso(now - HOUR))
      .executeTakeFirstOrThrow();
    await endSession(db, signedOut.id, now - HOUR);
    await openSession(db, alice, now);
    // Sign-in links: expired two days ago (gone), and twenty minutes ago (kept a day, to read "expired").
    await createLoginLink(db, alice, now - 2 * DAY);
    await createLoginLink(db, alice, now - 20 * MINUTE);

    await withWorkers(async () => {
      await expect
        .poll(async () => (await db.selectFrom('oauth_clients').select('id').execute()).map((r) => r.id).sort())
        .toEqual([waiting, used, recent].sort());
      expect((await db.selectFrom('oauth_authorization_requests').select('id').execute()).map((r) => r.id)).toEqual([
        live,
      ]);
      expect((await db.selectFrom('oauth_codes').select('created_at').execute()).map((r) => r.created_at)).toEqual([
        nowIso(now),
      ]);
      expect((await db.selectFrom('oauth_grants').select('id').execute()).map((r) => r.id)).toEqual([grantId]);
      expect((await db.selectFrom('browser_sessions').select('created_at').execute()).map((r) => r.created_at)).toEqual(
        [nowIso(now)],
      );
      expect((await db.selectFrom('login_links').select('created_at').execute()).map((r) => r.created_at)).toEqual([
        nowIso(now - 20 * MINUTE),
      ]);
    });
  });

  it('logs a job that fails, by its name, and runs the next one', async () => {
    const ran: string[] = [];
    const warnings: Array<{ details: object; message: string }> = [];
    const jobs: HousekeepingJob[] = [
      {
        name: 'broken thing',
        run: () => {
          ran.push('broken thing');
          return Promise.reject(new Error('refused'));
        },
      },
      { name: 'next thing', run: () => Promise.resolve(ran.push('next thing')) },
    ];
    await runHousekeeping(
      { database: h.database, nowMs: Date.now(), retentionDays: 30 },
      { warn: (details, message) => warnings.push({ details, message }) },
      jobs,
    );
    expect(ran).toEqual(['broken thing', 'next thing']);
    expect(warnings).toEqual([
      {
        details: { err: expect.objectContaining({ message: 'refused' }), job: 'broken thing' },
        message: 'housekeeping: pruning broken thing failed; the next run tries again',
      },
    ]);
  });
});
