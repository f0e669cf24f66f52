import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import { openDatabase } from '../../src/db/connect.js';
import { emptyStore, type EmptyStore } from '../support/database.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { spawnServer, type ServerProcess } from '../support/server-process.js';
import { createIssue, startWriteLoad, type LoadReply } from '../support/write-load.js';

/**
 * kill -9 of a real `wsx serve` under concurrent creates with Idempotency-Keys, on the
 * store of this pass: a file SQLite database, or a fresh PostgreSQL database on the
 * server named by TEST_DATABASE_URL. Nothing acknowledged may be lost, and a retry of
 * anything unacknowledged must succeed, once, well within the 30 s claim lease.
 */

let dir: string;
let databaseUrl: string;
let store: EmptyStore;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wsx-kill-'));
  store = await emptyStore(dir, 'wsx_kill');
  databaseUrl = store.url;
  // The workspace comes in through the admin CLI, as an operator would apply it.
  const file = join(dir, 'acme.json');
  writeFileSync(file, JSON.stringify(ACME));
  const lines: string[] = [];
  const ctx = {
    ...processContext({ DATABASE_URL: databaseUrl }),
    out: (text: string) => lines.push(text),
    err: (text: string) => lines.push(text),
  };
  expect(await runCli(['apply', '-f', file], ctx), lines.join('\n')).toBe(0);
});

afterAll(async () => {
  for (const server of servers) {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await server.exited;
  }
  await store.drop();
  rmSync(dir, { recursive: true, force: true });
});

const start = () => {
  const server = spawnServer({ DATABASE_URL: databaseUrl });
  servers.push(server);
  return server;
};

/** Every issue title in project API, through the API's own pagination. */
async function issueTitles(baseUrl: string): Promise<string[]> {
  const titles: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const response = await fetch(`${baseUrl}/api/external/issues?projectKey=API&teamKey=ENG&limit=200${query}`, {
      headers: { authorization: `Bearer ${TOKENS.admin}` },
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    titles.push(...body.issues.map((issue: { title: string }) => issue.title));
    cursor = body.pageInfo.nextCursor;
  } while (cursor);
  return titles;
}

/** Retries one create with its key until 2xx, obeying Retry-After, for at most 30 s from `since`. */
async function retryUntilDone(baseUrl: string, key: string, title: string, since: number) {
  const seen: Array<number | string> = [];
  while (Date.now() - since < 30_000) {
    const response = await createIssue(baseUrl, TOKENS.admin, key, title);
    const body = await response.json();
    seen.push(response.status);
    if (response.status === 200 || response.status === 201) {
      seen.push(response.headers.get('idempotent-replayed') ? 'replayed' : 'ran');
      return { status: response.status, body, seen };
    }
    expect(response.status, JSON.stringify(body)).toBe(409);
    expect(body.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after')) * 1000));
  }
  return { status: 0, body: undefined, seen };
}

describe('kill -9 under write load', () => {
  it('loses no acknowledged create, and a retry of an unacknowledged one succeeds once within 30 s', async () => {
    // The test watches the store itself, to kill the server at the worst moment: while a
    // key is claimed (committed) but its create is not.
    const observer = await openDatabase(databaseUrl);
    const runningClaims = async () =>
      Number(
        (
          await observer.db
            .selectFrom('idempotency_keys')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('state', '=', 'running')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const acknowledged: LoadReply[] = [];
    const unacknowledged = new Map<string, string>();
    try {
      // A kill can miss the moment (the create commits in between); a new round then tries again.
      for (let round = 1; round <= 5 && (await runningClaims()) === 0; round++) {
        const server = start();
        const baseUrl = await server.listening;
        const load = startWriteLoad(baseUrl, TOKENS.admin, { workers: 16, prefix: `kill${round}` });
        try {
          await Promise.race([
            load.acknowledged(20),
            server.exited.then((code) => {
              throw new Error(`server ended early (${code})`);
            }),
          ]);
          for (let polls = 0; polls < 5_000 && (await runningClaims()) === 0; polls++);
          server.child.kill('SIGKILL');
          expect(await server.exited).toBe('SIGKILL');
        } finally {
          await load.stop();
        }
        // Before the kill the server answered nothing but 201.
        expect(load.replies.filter((r) => r.status !== undefined && r.status !== 201)).toEqual([]);
        acknowledged.push(...load.replies.filter((r) => r.status === 201));
        for (const [key, title] of load.pending) unacknowledged.set(key, title);
      }
      expect(await runningClaims()).toBeGreaterThan(0);
    } finally {
      await observer.close();
    }
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);

    const restarted = start();
    const baseUrl = await restarted.listening;
    const restartedAt = Date.now();

    const afterRestart = await issueTitles(baseUrl);
    for (const reply of acknowledged)
      expect(
        afterRestart.filter((title) => title === reply.title),
        reply.title,
      ).toHaveLength(1);

    const pending = [...unacknowledged];
    const retries = await Promise.all(pending.map(([key, title]) => retryUntilDone(baseUrl, key, title, restartedAt)));
    for (const [index, retry] of retries.entries()) {
      expect(retry.status, `${pending[index][0]}: ${retry.seen.join(',')}`).toBeGreaterThanOrEqual(200);
      expect(retry.body.issue.title).toBe(pending[index][1]);
    }

    const finalTitles = await issueTitles(baseUrl);
    for (const [, title] of pending)
      expect(
        finalTitles.filter((t) => t === title),
        title,
      ).toHaveLength(1);
    // No create ran twice, acknowledged or not.
    expect(new Set(finalTitles).size).toBe(finalTitles.length);

    // An acknowledged create retried with its key is a replay of the same issue.
    const replay = await createIssue(baseUrl, TOKENS.admin, acknowledged[0].key, acknowledged[0].title);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await restarted.stop();
  }, 120_000);
});
