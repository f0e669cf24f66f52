import { spawnSync } from 'node:child_process';
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { registerOperations } from '../../src/http/operations.js';
import { HOST_KEY } from '../../src/modules/idempotency/holder.js';
import { requestFingerprint } from '../../src/modules/idempotency/idempotency.service.js';
import { created, defineOperation } from '../../src/operations/define.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness, type Reply } from '../support/harness.js';

/**
 * Idempotency claims after a crash: a claim names the instance holding it and carries a
 * heartbeat, so a key is never blocked for longer than the 30 s lease, at once when its
 * holder is known to be gone, and Retry-After says how long to wait.
 */

let h: Harness;
let scope: { workspace_id: string; credential_id: string };

beforeAll(async () => {
  h = await startHarness([ACME]);
  // An operation whose claim is taken over while it runs (as by another process after a
  // long stall): it writes an event, then moves the key's claim to another holder.
  registerOperations(
    h.app,
    [
      defineOperation({
        id: 'stalled_for_test',
        method: 'POST',
        path: '/api/external/stalled-for-test',
        tag: 'Test',
        summary: 'Loses its claim while running.',
        body: Type.Object({ marker: Type.String() }),
        run: async (ctx, { body }) => {
          await ctx.db
            .insertInto('outbox_events')
            .values({
              id: `evt_${body.marker}`,
              workspace_id: ctx.workspace.id,
              type: 'test.stalled',
              project_id: null,
              payload: '{}',
              created_at: ctx.now,
            })
            .execute();
          await ctx.db
            .updateTable('idempotency_keys')
            .set({ claim_id: 'clm_someone_else', holder: 'srv_someone_else' })
            .where('key', '=', body.marker)
            .where('state', '=', 'running')
            .execute();
          return created({ marker: body.marker });
        },
      }),
    ],
    h.database,
    loadConfig({}),
    h.holder,
  );
  const probe = await createProject('probe', { name: 'Probe' });
  expect(probe.status).toBe(201);
  const row = await h.database.db
    .selectFrom('idempotency_keys')
    .select(['workspace_id', 'credential_id'])
    .where('key', '=', 'probe')
    .executeTakeFirstOrThrow();
  scope = row;
});
afterAll(() => h.close());

const createProject = (key: string, body: unknown) =>
  h.call('POST', '/api/external/projects', { token: TOKENS.admin, body, headers: { 'idempotency-key': key } });

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** A pid that no process has: a child that already exited. */
const exitedPid = () => spawnSync(process.execPath, ['-e', '']).pid;

async function seedInstance(id: string, { host = 'another-host', pid = 4242, heartbeatAgoMs = 0 } = {}) {
  await h.database.db
    .insertInto('server_instances')
    .values({ id, host, pid, started_at: ago(60_000), heartbeat_at: ago(heartbeatAgoMs) })
    .execute();
}

/** A `running` claim of `holder` for POST /api/external/projects with `body`, as a crashed or busy server leaves it. */
async function seedClaim(
  key: string,
  body: unknown,
  { holder, heartbeatAgoMs = 0 }: { holder: string | null; heartbeatAgoMs?: number },
) {
  await h.database.db
    .insertInto('idempotency_keys')
    .values({
      ...scope,
      key,
      request_hash: requestFingerprint('POST', '/api/external/projects', body),
      state: 'running',
      response_status: null,
      response_body: null,
      created_at: ago(heartbeatAgoMs),
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      holder,
      claim_id: holder === null ? null : `clm_${key}`,
      heartbeat_at: holder === null ? null : ago(heartbeatAgoMs),
    })
    .execute();
}

const claimOf = (key: string) =>
  h.database.db
    .selectFrom('idempotency_keys')
    .select(['state', 'holder', 'claim_id'])
    .where('key', '=', key)
    .executeTakeFirst();

async function projectsNamed(name: string): Promise<number> {
  const reply = await h.call('GET', '/api/external/projects?limit=200', { token: TOKENS.admin });
  return reply.body.projects.filter((p: { name: string }) => p.name === name).length;
}

const expectCreatedOnce = async (reply: Reply, name: string) => {
  expect(reply.status).toBe(201);
  expect(reply.headers['idempotent-replayed']).toBeUndefined();
  expect(reply.body.project.name).toBe(name);
  expect(await projectsNamed(name)).toBe(1);
};

const expectInUse = (reply: Reply, key: string) => {
  expect(reply.status).toBe(409);
  expect(reply.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE', details: { idempotencyKey: key } });
};

describe('a claim whose holder is gone', () => {
  it('is taken over at once when its process on this host has exited (kill -9)', async () => {
    await seedInstance('srv_killed', { host: HOST_KEY, pid: exitedPid() });
    await seedClaim('after-kill', { name: 'After kill' }, { holder: 'srv_killed' });
    const retry = await createProject('after-kill', { name: 'After kill' });
    await expectCreatedOnce(retry, 'After kill');
    expect(await claimOf('after-kill')).toMatchObject({ state: 'done' });
    const replay = await createProject('after-kill', { name: 'After kill' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await projectsNamed('After kill')).toBe(1);
  });

  it('is taken over when its holder elsewhere has not sent a heartbeat for 30 s', async () => {
    await seedInstance('srv_silent', { heartbeatAgoMs: 31_000 });
    await seedClaim('silent-holder', { name: 'Silent holder' }, { holder: 'srv_silent', heartbeatAgoMs: 5_000 });
    await expectCreatedOnce(await createProject('silent-holder', { name: 'Silent holder' }), 'Silent holder');
  });

  it('is taken over when its holder is not registered at all', async () => {
    await seedClaim('unknown-holder', { name: 'Unknown holder' }, { holder: 'srv_never_registered' });
    await expectCreatedOnce(await createProject('unknown-holder', { name: 'Unknown holder' }), 'Unknown holder');
  });

  it('is released when a server starts, without waiting for a retry', async () => {
    await seedInstance('srv_gone_elsewhere', { heartbeatAgoMs: 40_000 });
    await seedInstance('srv_gone_here', { host: HOST_KEY, pid: exitedPid() });
    await seedInstance('srv_alive_elsewhere');
    await seedClaim('start-gone-elsewhere', { name: 'A' }, { holder: 'srv_gone_elsewhere', heartbeatAgoMs: 3_000 });
    await seedClaim('start-gone-here', { name: 'B' }, { holder: 'srv_gone_here' });
    await seedClaim('start-alive', { name: 'C' }, { holder: 'srv_alive_elsewhere' });

    const restarted = await buildApp({ database: h.database, config: { ...loadConfig({}), rateLimitPerMinute: 0 } });
    await restarted.ready();
    try {
      expect(await claimOf('start-gone-elsewhere')).toBeUndefined();
      expect(await claimOf('start-gone-here')).toBeUndefined();
      expect(await claimOf('start-alive')).toMatchObject({ state: 'running', holder: 'srv_alive_elsewhere' });
      const instances = await h.database.db.selectFrom('server_instances').select('id').execute();
      expect(instances.map((i) => i.id)).not.toContain('srv_gone_elsewhere');
      expect(instances.map((i) => i.id)).not.toContain('srv_gone_here');
      expect(instances.map((i) => i.id)).toContain('srv_alive_elsewhere');
    } finally {
      await restarted.close();
    }
  });
});

describe('a claim whose holder is alive', () => {
  it('answers 409 with Retry-After: 1 while the claim is renewed', async () => {
    await seedInstance('srv_busy');
    await seedClaim('busy', { name: 'Busy' }, { holder: 'srv_busy' });
    const reply = await createProject('busy', { name: 'Busy' });
    expectInUse(reply, 'busy');
    expect(reply.headers['retry-after']).toBe('1');
    expect(await projectsNamed('Busy')).toBe(0);
  });

  it('answers the seconds left until takeover once the claim missed its renewals', async () => {
    await seedInstance('srv_stalled');
    await seedClaim('stalled', { name: 'Stalled' }, { holder: 'srv_stalled', heartbeatAgoMs: 20_000 });
    const reply = await createProject('stalled', { name: 'Stalled' });
    expectInUse(reply, 'stalled');
    const seconds = Number(reply.headers['retry-after']);
    expect(seconds).toBeGreaterThan(1);
    expect(seconds).toBeLessThanOrEqual(10);
  });

  it('lets any request take over a claim 30 s without a heartbeat', async () => {
    await seedInstance('srv_forgetful');
    await seedClaim('forgotten', { name: 'Forgotten' }, { holder: 'srv_forgetful', heartbeatAgoMs: 30_500 });
    await expectCreatedOnce(await createProject('forgotten', { name: 'Forgotten' }), 'Forgotten');
  });

  it('takes over a claim left by an older server version (no holder) after 30 s', async () => {
    await seedClaim('legacy', { name: 'Legacy' }, { holder: null, heartbeatAgoMs: 31_000 });
    await expectCreatedOnce(await createProject('legacy', { name: 'Legacy' }), 'Legacy');
  });

  it('still refuses another request under a live key with 422', async () => {
    await seedInstance('srv_other_body');
    await seedClaim('other-body', { name: 'Original' }, { holder: 'srv_other_body' });
    const reply = await createProject('other-body', { name: 'Different' });
    expect(reply.status).toBe(422);
    expect(reply.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

describe('a failed release', () => {
  const blockDeletes = async () => {
    if (h.database.dialect === 'sqlite') {
      await sql`create trigger block_release before delete on idempotency_keys begin select raise(abort, 'release blocked'); end`.execute(
        h.database.db,
      );
    } else {
      await sql`create function block_release() returns trigger language plpgsql as $$ begin raise exception 'release blocked'; end $$`.execute(
        h.database.db,
      );
      await sql`create trigger block_release before delete on idempotency_keys for each row execute function block_release()`.execute(
        h.database.db,
      );
    }
  };
  const allowDeletes = async () => {
    await sql`drop trigger block_release${sql.raw(h.database.dialect === 'sqlite' ? '' : ' on idempotency_keys')}`.execute(
      h.database.db,
    );
    if (h.database.dialect !== 'sqlite') await sql`drop function block_release()`.execute(h.database.db);
  };

  it('does not leave the key blocked: the corrected retry runs', async () => {
    await blockDeletes();
    try {
      const failed = await createProject('release-fails', { name: 'Clash', teamKey: 'ENG', projectKey: 'API' });
      expect(failed.status).toBe(409);
      expect(failed.body.code).toBe('PROJECT_KEY_CONFLICT');
      // The release could not be written: the claim is still there, but nobody runs it.
      expect(await claimOf('release-fails')).toMatchObject({ state: 'running' });

      const retry = await createProject('release-fails', { name: 'Clash', teamKey: 'ENG', projectKey: 'CLASH' });
      expect(retry.status).toBe(201);
      expect(retry.body.project.projectKey).toBe('CLASH');
      expect(await claimOf('release-fails')).toMatchObject({ state: 'done' });
    } finally {
      await allowDeletes();
    }
  });
});

describe('a request whose claim was taken over while it ran', () => {
  it('records nothing and answers 409 IDEMPOTENCY_KEY_IN_USE: the new holder decides', async () => {
    const reply = await h.call('POST', '/api/external/stalled-for-test', {
      token: TOKENS.admin,
      body: { marker: 'stall1' },
      headers: { 'idempotency-key': 'stall1' },
    });
    expectInUse(reply, 'stall1');
    const events = await h.database.db
      .selectFrom('outbox_events')
      .select('id')
      .where('id', '=', 'evt_stall1')
      .execute();
    expect(events).toEqual([]);
  });
});

describe('/readyz', () => {
  it("answers ready after writing this process's heartbeat row, one row however often it is asked", async () => {
    for (let i = 0; i < 3; i++) expect((await h.call('GET', '/readyz')).status).toBe(200);
    const own = await h.database.db
      .selectFrom('server_instances')
      .select(['id', 'pid'])
      .where('pid', '=', process.pid)
      .where('host', '=', HOST_KEY)
      .execute();
    expect(own).toHaveLength(1);
  });
});
