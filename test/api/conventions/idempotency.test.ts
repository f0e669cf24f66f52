import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { registerOperations } from '../../../src/http/operations.js';
import { created, defineOperation } from '../../../src/operations/define.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness, type Reply } from '../../support/harness.js';

let h: Harness;
/** Not the default (24), to prove the setting is honoured. */
const TTL_HOURS = 2;

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX], { idempotencyTtlHours: TTL_HOURS });
  // A second POST route, so a key can be tried on another path; added before the app is ready.
  registerOperations(
    h.app,
    [
      defineOperation({
        id: 'echo_for_test',
        method: 'POST',
        path: '/api/external/echo-for-test',
        tag: 'Test',
        summary: 'Echoes its body.',
        body: Type.Object({ name: Type.Optional(Type.String()) }),
        run: async (_ctx, { body }) => created({ echo: body }),
      }),
    ],
    h.database,
    { ...loadConfig({}), idempotencyTtlHours: TTL_HOURS },
    h.holder,
  );
});
afterAll(() => h.close());

const createProject = (key: string, body: unknown, token = TOKENS.admin) =>
  h.call('POST', '/api/external/projects', { token, body, headers: { 'idempotency-key': key } });

async function projectsNamed(name: string): Promise<string[]> {
  const reply = await h.call('GET', '/api/external/projects?limit=200', { token: TOKENS.admin });
  return reply.body.projects
    .filter((p: { name: string }) => p.name === name)
    .map((p: { projectId: string }) => p.projectId);
}

const expectError = (reply: Reply, status: number, code: string) => {
  expect(reply.status).toBe(status);
  expect(reply.body.code).toBe(code);
};

describe('replay', () => {
  it('answers a repeat with the same status and body, marks it replayed and creates nothing', async () => {
    const first = await createProject('crm:project:1', { name: 'Replayed', teamKey: 'OPS' });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const again = await createProject('crm:project:1', { name: 'Replayed', teamKey: 'OPS' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await projectsNamed('Replayed')).toEqual([first.body.project.projectId]);
    const events = await h.database.db
      .selectFrom('outbox_events')
      .select('type')
      .where('project_id', '=', first.body.project.projectId)
      .execute();
    expect(events).toEqual([{ type: 'project.created' }]);
  });

  it('treats the same JSON value as the same body, whatever its key order and white space', async () => {
    const first = await h.app.inject({
      method: 'POST',
      url: '/api/external/projects',
      payload: '{"name":"Canonical","teamKey":"ENG","startDate":"2026-01-01"}',
      headers: {
        authorization: `Bearer ${TOKENS.admin}`,
        'content-type': 'application/json',
        'idempotency-key': 'canonical',
      },
    });
    const reordered = await h.app.inject({
      method: 'POST',
      url: '/api/external/projects',
      payload: '{\n  "startDate" : "2026-01-01",\n  "teamKey": "ENG",   "name": "Canonical"\n}',
      headers: {
        authorization: `Bearer ${TOKENS.admin}`,
        'content-type': 'application/json',
        'idempotency-key': 'canonical',
      },
    });
    expect(first.statusCode).toBe(201);
    expect(reordered.statusCode).toBe(201);
    expect(reordered.headers['idempotent-replayed']).toBe('true');
    expect(reordered.json()).toEqual(first.json());
    expect(await projectsNamed('Canonical')).toHaveLength(1);
  });

  it('treats a trailing slash as the same path', async () => {
    const first = await createProject('slash', { name: 'Slashed' });
    const again = await h.call('POST', '/api/external/projects/', {
      token: TOKENS.admin,
      body: { name: 'Slashed' },
      headers: { 'idempotency-key': 'slash' },
    });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('does not treat a repeat without the key as a replay', async () => {
    const first = await h.call('POST', '/api/external/projects', { token: TOKENS.admin, body: { name: 'Keyless' } });
    const second = await h.call('POST', '/api/external/projects', { token: TOKENS.admin, body: { name: 'Keyless' } });
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body.project.projectId).not.toBe(first.body.project.projectId);
  });
});

describe('reuse of a key for another request', () => {
  it('refuses the same key with a different body: 422 IDEMPOTENCY_KEY_REUSED', async () => {
    expect((await createProject('reuse-body', { name: 'Original' })).status).toBe(201);
    const reply = await createProject('reuse-body', { name: 'Different' });
    expectError(reply, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(reply.body.details).toEqual({ idempotencyKey: 'reuse-body' });
    expect(await projectsNamed('Different')).toEqual([]);
  });

  it('refuses the same key on a different path: 422 IDEMPOTENCY_KEY_REUSED', async () => {
    expect((await createProject('reuse-path', { name: 'Pathed' })).status).toBe(201);
    const reply = await h.call('POST', '/api/external/echo-for-test', {
      token: TOKENS.admin,
      body: { name: 'Pathed' },
      headers: { 'idempotency-key': 'reuse-path' },
    });
    expectError(reply, 422, 'IDEMPOTENCY_KEY_REUSED');
  });
});

describe('failures are not kept', () => {
  it('lets a corrected retry run after a validation failure', async () => {
    expectError(await createProject('fix-me', { name: '   ' }), 400, 'NAME_REQUIRED');
    expectError(await createProject('fix-me', { name: 'Fixed', colour: 'red' }), 400, 'VALIDATION_FAILED');
    const retry = await createProject('fix-me', { name: 'Fixed' });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('lets a corrected retry run after a failure inside the operation', async () => {
    expectError(
      await createProject('conflicted', { name: 'Clash', teamKey: 'ENG', projectKey: 'API' }),
      409,
      'PROJECT_KEY_CONFLICT',
    );
    const retry = await createProject('conflicted', { name: 'Clash', teamKey: 'ENG', projectKey: 'CLASH' });
    expect(retry.status).toBe(201);
    expect(retry.body.project.projectKey).toBe('CLASH');
  });
});

describe('scope', () => {
  it('keeps keys per credential: the same key and body from two credentials makes two records', async () => {
    const byAdmin = await createProject('shared-key', { name: 'Per credential' }, TOKENS.admin);
    const byAlice = await createProject('shared-key', { name: 'Per credential' }, TOKENS.alice);
    const byGlobex = await createProject('shared-key', { name: 'Per credential' }, TOKENS.globex);
    for (const reply of [byAdmin, byAlice, byGlobex]) {
      expect(reply.status).toBe(201);
      expect(reply.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(byAlice.body.project.projectId).not.toBe(byAdmin.body.project.projectId);
    expect((await projectsNamed('Per credential')).sort()).toEqual(
      [byAdmin.body.project.projectId, byAlice.body.project.projectId].sort(),
    );
  });
});

describe('key format', () => {
  const invalidKeys = {
    empty: '',
    'too long': 'k'.repeat(256),
    'with a space': 'has space',
    'with a tab': 'tab\there',
    'not ASCII': 'clé',
  };

  for (const [label, key] of Object.entries(invalidKeys)) {
    it(`refuses a key that is ${label} with VALIDATION_FAILED on Idempotency-Key`, async () => {
      const reply = await h.app.inject({
        method: 'POST',
        url: '/api/external/projects',
        payload: { name: `Bad key ${label}` },
        headers: {
          authorization: `Bearer ${TOKENS.admin}`,
          'idempotency-key': Buffer.from(key, 'utf8').toString('latin1'),
        },
      });
      expect(reply.statusCode).toBe(400);
      expect(reply.json().code).toBe('VALIDATION_FAILED');
      expect(reply.json().details).toEqual({ field: 'Idempotency-Key' });
      expect(await projectsNamed(`Bad key ${label}`)).toEqual([]);
    });
  }

  it('accepts 255 visible ASCII characters', async () => {
    const key = `${'~!'.repeat(127)}x`;
    expect(key).toHaveLength(255);
    const reply = await createProject(key, { name: 'Long key' });
    expect(reply.status).toBe(201);
    expect((await createProject(key, { name: 'Long key' })).headers['idempotent-replayed']).toBe('true');
  });
});

describe('concurrency', () => {
  it('creates exactly one record for 20 concurrent duplicates', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, () => createProject('burst', { name: 'Burst' })));
    const originals = replies.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(originals).toHaveLength(1);
    const projectId = originals[0].body.project.projectId;
    for (const reply of replies) {
      if (reply.status === 201) {
        expect(reply.body.project.projectId).toBe(projectId);
      } else {
        expectError(reply, 409, 'IDEMPOTENCY_KEY_IN_USE');
        expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
    expect(await projectsNamed('Burst')).toEqual([projectId]);
    const later = await createProject('burst', { name: 'Burst' });
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.body.project.projectId).toBe(projectId);
  });
});

describe('retention', () => {
  it('does not replay an expired record: the request runs again', async () => {
    const first = await createProject('expiring', { name: 'Expiring' });
    expect(first.status).toBe(201);
    await h.database.db
      .updateTable('idempotency_keys')
      .set({ expires_at: '2000-01-01T00:00:00.000Z' })
      .where('key', '=', 'expiring')
      .execute();
    const again = await createProject('expiring', { name: 'Expiring' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.project.projectId).not.toBe(first.body.project.projectId);
    expect(await projectsNamed('Expiring')).toHaveLength(2);
  });

  it('keeps a record for WSX_IDEMPOTENCY_TTL_HOURS', async () => {
    await createProject('ttl-check', { name: 'TTL' });
    const row = await h.database.db
      .selectFrom('idempotency_keys')
      .select(['created_at', 'expires_at', 'state'])
      .where('key', '=', 'ttl-check')
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('done');
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(TTL_HOURS * 3_600_000);
  });
});
