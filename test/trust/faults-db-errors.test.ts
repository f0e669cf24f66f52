import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import BetterSqlite3 from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseApiError, databaseFault } from '../../src/db/errors.js';
import { startFileHarness } from '../support/file-harness.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import type { Harness, Reply } from '../support/harness.js';

/**
 * A database that cannot serve a request: every door answers 503 DATABASE_UNAVAILABLE
 * with Retry-After (never 500), writes nothing, and the next request after the fault is
 * served without a restart. On SQLite the fault is another process holding the write lock
 * past busy_timeout; on PostgreSQL the request's own backend is terminated by an
 * administrator while it runs (57P01), which also proves the process survives it.
 */

const coded = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('classification of driver errors', () => {
  const cases: Array<[string, unknown, 'unavailable' | 'full' | undefined]> = [
    ['refused connection', coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'unavailable'],
    ['reset connection', coded('ECONNRESET'), 'unavailable'],
    ['unknown host', coded('ENOTFOUND'), 'unavailable'],
    ['refused on every address', new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')], ''), 'unavailable'],
    ['admin shutdown', coded('57P01', 'terminating connection due to administrator command'), 'unavailable'],
    ['crash shutdown', coded('57P02'), 'unavailable'],
    ['cannot connect now', coded('57P03', 'the database system is starting up'), 'unavailable'],
    ['connection failure', coded('08006'), 'unavailable'],
    ['too many connections', coded('53300'), 'unavailable'],
    ['read-only standby', coded('25006'), 'unavailable'],
    ['lost connection', new Error('Connection terminated unexpectedly'), 'unavailable'],
    ['broken client', new Error('Client has encountered a connection error and is not queryable'), 'unavailable'],
    ['pool checkout timeout', new Error('timeout exceeded when trying to connect'), 'unavailable'],
    [
      'connect timeout',
      new Error('Connection terminated due to connection timeout', {
        cause: new Error('Connection terminated unexpectedly'),
      }),
      'unavailable',
    ],
    ['SQLite busy after busy_timeout', coded('SQLITE_BUSY'), 'unavailable'],
    ['SQLite busy snapshot', coded('SQLITE_BUSY_SNAPSHOT'), 'unavailable'],
    ['SQLite I/O error', coded('SQLITE_IOERR_WRITE'), 'unavailable'],
    ['SQLite cannot open', coded('SQLITE_CANTOPEN'), 'unavailable'],
    ['SQLite read-only file', coded('SQLITE_READONLY_DBMOVED'), 'unavailable'],
    ['PostgreSQL disk full', coded('53100', 'could not extend file: No space left on device'), 'full'],
    ['SQLite full', coded('SQLITE_FULL', 'database or disk is full'), 'full'],
    ['no space left', coded('ENOSPC'), 'full'],
    ['a full disk under a wrapper', new Error('write failed', { cause: coded('ENOSPC') }), 'full'],
    ['unique violation', coded('23505'), undefined],
    ['SQLite unique violation', coded('SQLITE_CONSTRAINT_UNIQUE'), undefined],
    ['SQLite corruption', coded('SQLITE_CORRUPT'), undefined],
    ['PostgreSQL syntax error', coded('42601'), undefined],
    ['a bug', new TypeError('x is not a function'), undefined],
    ['not an error', 'boom', undefined],
  ];
  for (const [label, error, fault] of cases) {
    it(`${label} → ${fault ?? 'not a store fault'}`, () => expect(databaseFault(error)).toBe(fault));
  }

  it('answers 503 DATABASE_UNAVAILABLE and 507 STORAGE_FULL with Retry-After, in the catalog shape', () => {
    const unavailable = databaseApiError(coded('57P01'));
    expect(unavailable?.status).toBe(503);
    expect(unavailable?.toBody()).toMatchObject({ code: 'DATABASE_UNAVAILABLE', details: {} });
    expect(Number(unavailable?.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    const full = databaseApiError(coded('53100'));
    expect(full?.status).toBe(507);
    expect(full?.toBody()).toMatchObject({ code: 'STORAGE_FULL', details: {} });
    expect(Number(full?.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(databaseApiError(coded('23505'))).toBeUndefined();
  });
});

describe('the database unavailable during a request', () => {
  let h: Harness & { dir: string };
  let client: Client;

  beforeAll(async () => {
    h = await startFileHarness([ACME]);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const endpoint = new URL(`http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/mcp`);
    client = new Client({ name: 'wsx-outage-test', version: '1.0.0' });
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

  /** Runs `request` while the store cannot serve it, and answers what it answered. */
  async function duringFault<T>(request: () => Promise<T>): Promise<T> {
    const db = h.database.db;
    if (h.database.dialect === 'sqlite') {
      // Another process holds the write lock for longer than this server waits for it.
      await sql`pragma busy_timeout = 100`.execute(db);
      const other = new BetterSqlite3(join(h.dir, 'wsx.sqlite'));
      other.exec('begin immediate');
      try {
        return await request();
      } finally {
        other.exec('rollback');
        other.close();
        await sql`pragma busy_timeout = 5000`.execute(db);
      }
    }
    // The request's write waits in a trigger; meanwhile an administrator terminates its backend.
    await sql`create function stall() returns trigger language plpgsql as $$ begin perform pg_sleep(30); return new; end $$`.execute(
      db,
    );
    await sql`create trigger stall before insert on issues for each row execute function stall()`.execute(db);
    await sql`create trigger stall before insert or update on server_instances for each row execute function stall()`.execute(
      db,
    );
    try {
      const answer = request();
      let terminated = 0;
      for (let polls = 0; polls < 500 && terminated === 0; polls++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const { rows } = await sql<{ ok: boolean }>`select pg_terminate_backend(pid) as ok from pg_stat_activity
          where datname = current_database() and wait_event = 'PgSleep'`.execute(db);
        terminated = rows.length;
      }
      expect(terminated).toBe(1);
      return await answer;
    } finally {
      await sql`drop trigger stall on issues`.execute(db);
      await sql`drop trigger stall on server_instances`.execute(db);
      await sql`drop function stall()`.execute(db);
    }
  }

  const createIssue = (key: string, title: string) =>
    h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      headers: { 'idempotency-key': key },
      body: { title, projectKey: 'API', teamKey: 'ENG' },
    });
  const issuesTitled = async (title: string) =>
    (await h.database.db.selectFrom('issues').select('id').where('title', '=', title).execute()).length;

  const expectUnavailable = (reply: Reply) => {
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual({
      error: 'The database is unavailable.',
      code: 'DATABASE_UNAVAILABLE',
      details: {},
      suggestion: expect.any(String),
    });
    expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  };

  it('answers a create 503 DATABASE_UNAVAILABLE with Retry-After and writes nothing; the retry with its key creates once', async () => {
    const reply = await duringFault(() => createIssue('outage-1', 'During an outage'));
    expectUnavailable(reply);
    expect(await issuesTitled('During an outage')).toBe(0);

    const retry = await createIssue('outage-1', 'During an outage');
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await issuesTitled('During an outage')).toBe(1);
  });

  it('answers /readyz 503 with the reason while a write cannot commit, and ready after', async () => {
    const ready = await duringFault(() => h.call('GET', '/readyz'));
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'unavailable', database: h.database.dialect, reason: 'database_unavailable' });
    expect((await h.call('GET', '/readyz')).status).toBe(200);
  });

  it('answers an MCP tool call with DATABASE_UNAVAILABLE as a tool error', async () => {
    const result = (await duringFault(() =>
      client.callTool({
        name: 'create_issue',
        arguments: { title: 'Tool during an outage', projectKey: 'API', teamKey: 'ENG' },
      }),
    )) as {
      isError?: boolean;
      structuredContent: any;
    };
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'DATABASE_UNAVAILABLE', details: {} });
    expect(await issuesTitled('Tool during an outage')).toBe(0);
    const again = (await client.callTool({
      name: 'create_issue',
      arguments: { title: 'Tool during an outage', projectKey: 'API', teamKey: 'ENG' },
    })) as { isError?: boolean };
    expect(again.isError).toBeFalsy();
  });
});
