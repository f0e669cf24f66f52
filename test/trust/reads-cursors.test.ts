import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor, filterHash } from '../../src/core/cursor.js';
import { loadConfig } from '../../src/config.js';
import { InstallationSecrets } from '../../src/db/installation-secrets.js';
import { buildApp } from '../../src/server/app.js';
import type { ApplyResult } from '../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * Cursors are signed with a secret of the installation: re-sealing an altered cursor with
 * any public algorithm does not make it valid again.
 */

let h: Harness;
let acme: ApplyResult;

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
  for (let i = 1; i <= 4; i++) {
    const reply = await h.call('POST', '/api/external/projects', {
      token: TOKENS.admin,
      body: { name: `Signed ${i}` },
    });
    expect(reply.status).toBe(201);
    const milestone = await h.call('POST', '/api/external/issue-container-milestones', {
      token: TOKENS.admin,
      body: { title: `Milestone ${i}`, issueContainerId: acme.containers['ENG/API/Launch'], order: i },
    });
    expect(milestone.status).toBe(201);
  }
});
afterAll(() => h.close());

const projects = (query: string, token = TOKENS.admin) => h.call('GET', `/api/external/projects?${query}`, { token });
const firstCursor = async (query = 'limit=2') => (await projects(query)).body.pageInfo.nextCursor as string;

async function expectInvalidCursor(path: string, token = TOKENS.admin) {
  const reply = await h.call('GET', path, { token });
  expect({ status: reply.status, body: reply.body }).toEqual({
    status: 400,
    body: {
      error: expect.any(String),
      code: 'INVALID_CURSOR',
      details: { field: 'cursor' },
      suggestion: expect.any(String),
    },
  });
}

const unwrap = (cursor: string) =>
  JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { b: string; s: string };
const wrap = (outer: object) => Buffer.from(JSON.stringify(outer)).toString('base64url');
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

describe('tampered cursors', () => {
  it('refuses an altered cursor re-sealed with an unkeyed hash', async () => {
    const cursor = await firstCursor();
    const { b } = unwrap(cursor);
    const inner = JSON.parse(b) as { p: unknown[]; f: string };
    // Skip past every project: the client tries to move its position by hand.
    const altered = JSON.stringify({ ...inner, p: ['0000-01-01T00:00:00.000Z', 'prj_0'] });
    for (const seal of [
      sha256(`wsx-cursor-v1${altered}`).slice(0, 22),
      sha256(`wsx-cursor-v1${altered}`),
      sha256(altered),
      sha256(`wsx-cursor-v2${altered}`),
    ]) {
      await expectInvalidCursor(`/api/external/projects?limit=2&cursor=${wrap({ b: altered, s: seal })}`);
    }
  });

  it('still accepts the cursor it made, unaltered', async () => {
    const reply = await projects(`limit=2&cursor=${encodeURIComponent(await firstCursor())}`);
    expect(reply.status).toBe(200);
    expect(reply.body.projects).toHaveLength(2);
  });
});

describe('position values are type-checked per sort column', () => {
  /** A cursor signed with the installation's own key, so only the position can be wrong. */
  const signed = async (scope: string, position: unknown[]) =>
    encodeCursor(
      position,
      filterHash(`${scope}@${acme.workspaceId}`, {}),
      await h.database.secrets.get('cursor-signing'),
    );

  it('answers INVALID_CURSOR, not 500, for text in an integer sort key', async () => {
    const milestones = (
      await h.call('GET', '/api/external/issue-container-milestones?limit=2', { token: TOKENS.admin })
    ).body;
    const genuine = unwrap(milestones.pageInfo.nextCursor as string);
    const [order, createdAt, id] = (JSON.parse(genuine.b) as { p: unknown[] }).p;
    expect(order).toEqual(expect.any(Number));
    const fine = await signed('milestones', [order, createdAt, id]);
    expect(
      (await h.call('GET', `/api/external/issue-container-milestones?limit=2&cursor=${fine}`, { token: TOKENS.admin }))
        .status,
    ).toBe(200);
    const wrong: unknown[][] = [
      ['abc', createdAt, id],
      [String(order), createdAt, id],
      [1.5, createdAt, id],
      [null, createdAt, id],
      [Number.MAX_SAFE_INTEGER + 2, createdAt, id],
      [order, 12, id],
      [order, createdAt, null],
      [order, createdAt, 'x\u0000'],
      [order, createdAt, 'x'.repeat(600)],
      [order, createdAt],
      [order, createdAt, id, id],
    ];
    for (const position of wrong) {
      await expectInvalidCursor(
        `/api/external/issue-container-milestones?limit=2&cursor=${await signed('milestones', position)}`,
      );
    }
  });

  it('answers INVALID_CURSOR for a number in a text sort key', async () => {
    for (const position of [
      [20260101, 'prj_x'],
      ['2026-01-01T00:00:00.000Z', 7],
      [false, 'prj_x'],
    ]) {
      await expectInvalidCursor(`/api/external/projects?limit=2&cursor=${await signed('projects', position)}`);
    }
  });
});

describe('the signing secret', () => {
  it('is kept in the store, once, and the same for every process that races to create it', async () => {
    // Separate handles over one store, each with its own cache, stand for separate processes.
    const handles = Array.from({ length: 5 }, () => h.database.db.withoutPlugins());
    const secrets = await Promise.all(handles.map((db) => new InstallationSecrets(db).get('cursor-signing')));
    for (const secret of secrets) expect(secret.equals(secrets[0])).toBe(true);
    expect(secrets[0].length).toBe(32);
    const rows = await h.database.db.selectFrom('installation_secrets').selectAll().execute();
    expect(rows.map((r) => r.name)).toEqual(['cursor-signing']);
  });

  it('is read once per process, and a cursor of another key is refused', async () => {
    const cursor = await firstCursor();
    await h.database.db
      .updateTable('installation_secrets')
      .set({ value: Buffer.alloc(32, 7).toString('base64url') })
      .where('name', '=', 'cursor-signing')
      .execute();
    try {
      // The running server keeps the key it loaded: no query per request, and its cursors stay valid.
      expect((await projects(`limit=2&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
      // A process started now reads the stored key, which did not sign this cursor.
      const otherDb = h.database.db.withoutPlugins();
      const other = await buildApp({
        database: { ...h.database, db: otherDb, secrets: new InstallationSecrets(otherDb) },
        config: { ...loadConfig({}), rateLimitPerMinute: 0 },
      });
      try {
        const reply = await other.inject({
          method: 'GET',
          url: `/api/external/projects?limit=2&cursor=${encodeURIComponent(cursor)}`,
          headers: { authorization: `Bearer ${TOKENS.admin}` },
        });
        expect(reply.statusCode).toBe(400);
        expect(reply.json()).toMatchObject({ code: 'INVALID_CURSOR', details: { field: 'cursor' } });
        const fresh = JSON.parse(
          (
            await other.inject({
              method: 'GET',
              url: '/api/external/projects?limit=2',
              headers: { authorization: `Bearer ${TOKENS.admin}` },
            })
          ).body,
        );
        const next = await other.inject({
          method: 'GET',
          url: `/api/external/projects?limit=2&cursor=${encodeURIComponent(fresh.pageInfo.nextCursor)}`,
          headers: { authorization: `Bearer ${TOKENS.admin}` },
        });
        expect(next.statusCode).toBe(200);
      } finally {
        await other.close();
      }
    } finally {
      await h.database.db
        .updateTable('installation_secrets')
        .set({ value: (await h.database.secrets.get('cursor-signing')).toString('base64url') })
        .where('name', '=', 'cursor-signing')
        .execute();
    }
  });
});
