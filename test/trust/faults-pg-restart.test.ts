import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { applyWorkspaceFile } from '../../src/modules/workspace-file/apply.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startThrowawayCluster, type ThrowawayCluster } from '../support/pg-cluster.js';
import { spawnServer, type ServerProcess } from '../support/server-process.js';
import { createIssue, startWriteLoad, type WriteLoad } from '../support/write-load.js';

/**
 * A PostgreSQL restart under a running `wsx serve`: the test brings its own cluster (so it
 * runs in every pass, whatever TEST_DATABASE_URL says), stops and restarts it under a write
 * load, and watches the real server process.
 */

let cluster: ThrowawayCluster;
let databaseUrl: string;
let server: ServerProcess;
let baseUrl: string;

beforeAll(async () => {
  cluster = await startThrowawayCluster();
  databaseUrl = await cluster.createDatabase('wsx');
  const database = await openDatabase(databaseUrl);
  await migrateToLatest(database);
  await applyWorkspaceFile(database.db, ACME);
  await database.close();
  server = spawnServer({ DATABASE_URL: databaseUrl });
  baseUrl = await server.listening;
});

afterAll(async () => {
  await server?.stop();
  await cluster?.destroy();
});

const alive = (process: ServerProcess) => process.child.exitCode === null && process.child.signalCode === null;

/** Waits for `count` more acknowledged creates, failing at once if the server process ends. */
const acknowledged = (load: WriteLoad, count: number) =>
  Promise.race([
    load.acknowledged(count),
    server.exited.then((code) => {
      throw new Error(`the server process ended (${code}):\n${server.output().stderr}`);
    }),
  ]);

describe('a PostgreSQL restart under write load', () => {
  it('keeps the server process up and answers only 2xx or 503 DATABASE_UNAVAILABLE', async () => {
    const load = startWriteLoad(baseUrl, TOKENS.admin, { prefix: 'restart' });
    try {
      await acknowledged(load, 20);
      await cluster.restart('fast');
      await acknowledged(load, 20);
    } finally {
      await load.stop();
    }
    const replies = load.replies;

    expect(alive(server), server.output().stderr).toBe(true);
    // Nothing the server said was anything but a success or the documented outage answer.
    const others = replies.filter(
      (r) => !(r.status !== undefined && r.status < 300) && !(r.status === 503 && r.code === 'DATABASE_UNAVAILABLE'),
    );
    expect(others).toEqual([]);
    for (const reply of replies.filter((r) => r.status === 503))
      expect(Number(reply.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  });

  it('answers 503 DATABASE_UNAVAILABLE with Retry-After while the database is down, and 2xx within 2 s of its return', async () => {
    await cluster.stop('fast');
    try {
      const during = await createIssue(baseUrl, TOKENS.admin, 'outage:1', 'During the outage');
      expect(during.status).toBe(503);
      expect(Number(during.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await during.json()).toMatchObject({ code: 'DATABASE_UNAVAILABLE', details: {} });
      const read = await fetch(`${baseUrl}/api/external/projects`, {
        headers: { authorization: `Bearer ${TOKENS.admin}` },
      });
      expect(read.status).toBe(503);
      expect((await read.json()).code).toBe('DATABASE_UNAVAILABLE');
      const ready = await fetch(`${baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        status: 'unavailable',
        database: 'postgres',
        reason: 'database_unavailable',
      });
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await cluster.start();
    }

    const back = Date.now();
    let status = 0;
    let attempts = 0;
    while (Date.now() - back < 2_000) {
      attempts++;
      status = (await createIssue(baseUrl, TOKENS.admin, 'outage:1', 'During the outage')).status;
      if (status === 201) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect({ status, attempts }).toMatchObject({ status: 201 });
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    expect(alive(server)).toBe(true);
  });
});

describe('serve started before its database', () => {
  it('retries with backoff, saying so, and serves once the database is up', async () => {
    await cluster.stop('fast');
    const early = spawnServer({ DATABASE_URL: databaseUrl });
    try {
      const notice = await early.waitFor(/database (?:is )?unavailable.*retrying in \d+(?:\.\d+)? ?s/i);
      expect(notice[0]).not.toMatch(/\n\s+at /);
      expect(alive(early)).toBe(true);
      await cluster.start();
      const url = await early.listening;
      expect((await createIssue(url, TOKENS.admin, 'late:1', 'After a late database')).status).toBe(201);
      expect(early.output().stderr).not.toMatch(/\n\s+at /);
    } finally {
      await early.stop();
    }
  });
});
