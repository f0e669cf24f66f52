import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { applyWorkspaceFile } from '../../src/modules/workspace-file/apply.js';
import { startFileHarness } from '../support/file-harness.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import type { Harness } from '../support/harness.js';
import { spawnServer } from '../support/server-process.js';
import { countRows } from '../support/database.js';

const run = promisify(execFile);

/**
 * A full disk. On SQLite (a file database) the file is capped at its current size with
 * PRAGMA max_page_count after a VACUUM, so any write that needs a new page fails with
 * SQLITE_FULL, exactly as on a full disk. PostgreSQL cannot be filled up that easily: its
 * own disk_full error (SQLSTATE 53100) is raised by triggers on the tables a create and
 * the readiness probe write.
 */

let h: Harness;
let client: Client;

beforeAll(async () => {
  h = await startFileHarness([ACME]);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const endpoint = new URL(`http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/mcp`);
  client = new Client({ name: 'wsx-disk-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: { Authorization: `Bearer ${TOKENS.admin}` } },
    }),
  );
});
afterAll(async () => {
  await client?.close();
  await h?.close();
});

async function fillDisk(): Promise<void> {
  const db = h.database.db;
  if (h.database.dialect === 'sqlite') {
    await sql`vacuum`.execute(db);
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
    await sql.raw(`pragma max_page_count = ${rows[0].page_count}`).execute(db);
    return;
  }
  await sql`create function disk_full() returns trigger language plpgsql as $$
    begin raise exception 'could not extend file: No space left on device' using errcode = 'disk_full'; end $$`.execute(
    db,
  );
  await sql`create trigger disk_full before insert on issues for each row execute function disk_full()`.execute(db);
  await sql`create trigger disk_full before insert or update on server_instances for each row execute function disk_full()`.execute(
    db,
  );
}

async function freeDisk(): Promise<void> {
  const db = h.database.db;
  if (h.database.dialect === 'sqlite') {
    await sql`pragma max_page_count = 1073741823`.execute(db);
    return;
  }
  await sql`drop trigger disk_full on issues`.execute(db);
  await sql`drop trigger disk_full on server_instances`.execute(db);
  await sql`drop function disk_full()`.execute(db);
}

/** Larger than a page, so its row needs new pages whatever room the existing ones have. */
const BIG = 'x'.repeat(6_000);

const createIssue = (key: string, title: string) =>
  h.call('POST', '/api/external/issues', {
    token: TOKENS.admin,
    headers: { 'idempotency-key': key },
    body: { title, projectKey: 'API', teamKey: 'ENG', description: BIG },
  });

const issueCount = () => countRows(h.database.db, 'issues');

describe('a full disk while serving', () => {
  it('answers 507 STORAGE_FULL with Retry-After to writes, records nothing, keeps answering reads, and is not ready', async () => {
    const before = await issueCount();
    await fillDisk();
    try {
      const reply = await createIssue('full-1', 'On a full disk');
      expect(reply.status).toBe(507);
      expect(reply.body).toEqual({
        error: 'The server has no storage space left to record this change.',
        code: 'STORAGE_FULL',
        details: {},
        suggestion: expect.any(String),
      });
      expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(await issueCount()).toBe(before);
      // Nothing half-done: no idempotency claim is left for the key either.
      expect(
        await h.database.db.selectFrom('idempotency_keys').select('key').where('key', '=', 'full-1').execute(),
      ).toEqual([]);

      const read = await h.call('GET', '/api/external/projects', { token: TOKENS.admin });
      expect(read.status).toBe(200);

      const ready = await h.call('GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'unavailable', database: h.database.dialect, reason: 'storage_full' });

      const tool = (await client.callTool({
        name: 'create_issue',
        arguments: { title: 'Through MCP', projectKey: 'API', teamKey: 'ENG', description: BIG },
      })) as {
        isError?: boolean;
        structuredContent: any;
      };
      expect(tool.isError).toBe(true);
      expect(tool.structuredContent).toMatchObject({ code: 'STORAGE_FULL', details: {} });
      expect(await issueCount()).toBe(before);
    } finally {
      await freeDisk();
    }
  });

  it('serves writes again once there is room, and the refused key creates once', async () => {
    expect((await h.call('GET', '/readyz')).status).toBe(200);
    const reply = await createIssue('full-1', 'On a full disk');
    expect(reply.status).toBe(201);
    expect(reply.headers['idempotent-replayed']).toBeUndefined();
    expect((await createIssue('full-1', 'On a full disk')).headers['idempotent-replayed']).toBe('true');
  });
});

describe('a full disk at start-up', () => {
  it('makes serve print one clear line and exit non-zero, not a stack', async () => {
    // A real full file system: a 16 MiB tmpfs holding a migrated database (migrating remakes
    // tables, so it needs a few times the final size), then filled up.
    const mountPoint = mkdtempSync(join(tmpdir(), 'wsx-full-'));
    try {
      await run('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint]).catch((error: Error) => {
        throw new Error(`this test mounts a small tmpfs and needs the right to (run as root): ${error.message}`);
      });
      const url = `sqlite:${join(mountPoint, 'wsx.sqlite')}`;
      const database = await openDatabase(url);
      await migrateToLatest(database);
      await applyWorkspaceFile(database.db, ACME);
      await database.close();
      try {
        for (let chunk = 0; ; chunk++) writeFileSync(join(mountPoint, `filler-${chunk}`), Buffer.alloc(65_536));
      } catch (error) {
        expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
      }

      const server = spawnServer({ DATABASE_URL: url });
      expect(await server.exited).toBe(1);
      const { stdout, stderr } = server.output();
      expect(stdout).not.toContain('listening');
      const lines = stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('npm warn'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^wsx: the database storage is full \(SQLITE_[A-Z_]+: .+\); free disk space, then start wsx again$/,
      );
    } finally {
      await run('umount', [mountPoint]).catch(() => undefined);
      rmSync(mountPoint, { recursive: true, force: true });
    }
  });
});
