import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import { openDatabase } from '../../src/db/connect.js';
import { emptyStore, type EmptyStore } from '../support/database.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { spawnServer, type ServerProcess } from '../support/server-process.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { createIssue } from '../support/write-load.js';

/**
 * Several real `wsx serve` processes on one store. On PostgreSQL (TEST_DATABASE_URL), three
 * separate processes with one Redis must behave as one server: issue keys, webhook
 * deliveries, rate limits, idempotency keys and revocations are shared. On SQLite,
 * `serve --workers 2` shares the port between two workers while one of them, holding the
 * background lease, sends the webhooks.
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RATE_LIMIT = 60;
const CREATES = 30;

/** Runs a `wsx` command line against `databaseUrl` in this process; answers what it printed. */
async function wsx(databaseUrl: string, args: string[]): Promise<string> {
  const lines: string[] = [];
  const ctx = {
    ...processContext({ DATABASE_URL: databaseUrl }),
    out: (text: string) => lines.push(text),
    err: (text: string) => lines.push(text),
  };
  expect(await runCli(args, ctx, { DATABASE_URL: databaseUrl }), lines.join('\n')).toBe(0);
  return lines.join('\n');
}

async function applyAcme(dir: string, databaseUrl: string): Promise<void> {
  const file = join(dir, 'acme.json');
  writeFileSync(file, JSON.stringify(ACME));
  await wsx(databaseUrl, ['apply', '-f', file]);
}

/** A new token of workspace acme with every project; answers its secret. */
async function newToken(databaseUrl: string, name: string): Promise<string> {
  const printed = await wsx(databaseUrl, [
    'token',
    'create',
    '--workspace',
    'acme',
    '--name',
    name,
    '--all-projects',
    '--json',
  ]);
  return JSON.parse(printed).secret;
}

const call = (baseUrl: string, method: string, path: string, token: string, body?: unknown) =>
  fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

async function subscribe(baseUrl: string, receiver: Receiver, path: string): Promise<void> {
  const made = await call(baseUrl, 'POST', '/api/external/webhooks', TOKENS.admin, {
    url: receiver.url(path),
    events: ['issue.created'],
  });
  expect(made.status, await made.clone().text()).toBe(201);
}

/** Creates issues in project ENG/API, the n-th through the n-th base URL in turn; answers their keys. */
async function createSpread(baseUrls: string[], count: number, label: string): Promise<string[]> {
  const replies = await Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const response = await createIssue(baseUrls[n % baseUrls.length], TOKENS.admin, randomUUID(), `${label} ${n}`);
      const body = await response.json();
      expect(response.status, JSON.stringify(body)).toBe(201);
      return body.issue.issueKey as string;
    }),
  );
  return replies;
}

/** After the expected deliveries arrived, waits a little longer so a duplicate would show. */
async function deliveredOnce(receiver: Receiver, path: string, keys: string[]): Promise<void> {
  await receiver.waitFor(path, keys.length);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const received = receiver.received.filter((r) => r.path === path);
  expect(received).toHaveLength(keys.length);
  expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(keys.length);
  expect(received.map((r) => r.json.data.issue.issueKey).sort()).toEqual([...keys].sort());
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('three processes on one PostgreSQL database and Redis', () => {
  let dir: string;
  let store: EmptyStore;
  let receiver: Receiver;
  const servers: ServerProcess[] = [];
  let urls: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wsx-multi-'));
    store = await emptyStore(dir, 'wsx_multi');
    await applyAcme(dir, store.url);
    receiver = await startReceiver();
    for (let n = 0; n < 3; n++)
      servers.push(
        spawnServer({
          DATABASE_URL: store.url,
          REDIS_URL,
          WSX_RATE_LIMIT: String(RATE_LIMIT),
          WSX_WEBHOOK_ALLOW_PRIVATE: '1',
        }),
      );
    urls = await Promise.all(servers.map((server) => server.listening));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver?.close();
    await store?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives concurrent creates through every process unique, gap-free keys, and sends each event once', async () => {
    await subscribe(urls[0], receiver, '/pg');
    const keys = await createSpread(urls, CREATES, 'spread');
    const numbers = keys.map((key) => Number(key.split('-').pop())).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: CREATES }, (_, n) => n + 1));
    await deliveredOnce(receiver, '/pg', keys);
  }, 60_000);

  it('shares one rate-limit budget: past the limit, every process refuses', async () => {
    // A token of its own: the budget is counted per credential, and no other test spends it.
    const token = await newToken(store.url, `budget-${randomUUID().slice(0, 8)}`);
    const extra = 15;
    const statuses = await Promise.all(
      Array.from({ length: RATE_LIMIT + extra }, (_, n) =>
        call(urls[n % 3], 'GET', '/api/external/projects', token).then((response) => response.status),
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(RATE_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(extra);
  }, 30_000);

  it('replays an Idempotency-Key through another process with the same answer', async () => {
    const key = randomUUID();
    const first = await createIssue(urls[0], TOKENS.admin, key, 'once');
    expect(first.status).toBe(201);
    const original = await first.json();
    for (const url of urls.slice(1)) {
      const replay = await createIssue(url, TOKENS.admin, key, 'once');
      expect(replay.status).toBe(201);
      expect(await replay.json()).toEqual(original);
    }
  });

  it('refuses a token revoked through the admin CLI in every process within a second', async () => {
    const name = `revoked-${randomUUID().slice(0, 8)}`;
    const token = await newToken(store.url, name);
    // Each process has now cached the credential.
    for (const url of urls) expect((await call(url, 'GET', '/api/external/projects', token)).status).toBe(200);
    await wsx(store.url, ['token', 'revoke', '--workspace', 'acme', '--name', name]);
    const revokedAt = Date.now();
    const refusedAfter = await Promise.all(
      urls.map(async (url) => {
        while ((await call(url, 'GET', '/api/external/projects', token)).status !== 401) {
          if (Date.now() - revokedAt > 5_000) break;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        return Date.now() - revokedAt;
      }),
    );
    // One second of credential cache (cached before the revocation), plus a request and a poll interval.
    for (const elapsed of refusedAfter) expect(elapsed).toBeLessThan(1_500);
  }, 30_000);
});

/**
 * An authenticated GET on a new connection each time, so the cluster hands it to the next
 * worker. The request id repeats the path, so the request log names it either way.
 */
const freshGet = (baseUrl: string, path: string) =>
  new Promise<number>((resolve, reject) => {
    const headers = { authorization: `Bearer ${TOKENS.admin}`, 'x-request-id': path.split('/').pop() ?? '' };
    const req = request(`${baseUrl}${path}`, { agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });

/** The pids of the JSON log lines that mention `marker`. */
function pidsLogging(server: ServerProcess, marker: string): Set<number> {
  const { stdout, stderr } = server.output();
  const pids = new Set<number>();
  for (const line of `${stdout}\n${stderr}`.split('\n')) {
    if (!line.startsWith('{') || !line.includes(marker)) continue;
    const pid = JSON.parse(line).pid;
    if (typeof pid === 'number') pids.add(pid);
  }
  return pids;
}

describe('serve --workers 2 on one SQLite file', () => {
  let dir: string;
  let databaseUrl: string;
  let receiver: Receiver;
  let server: ServerProcess;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wsx-workers-'));
    databaseUrl = `sqlite:${join(dir, 'wsx.sqlite')}`;
    await applyAcme(dir, databaseUrl);
    receiver = await startReceiver();
    server = spawnServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', WSX_WEBHOOK_ALLOW_PRIVATE: '1' }, [
      '--workers',
      '2',
    ]);
    url = await server.listening;
    await server.waitFor(/wsx is listening[^]*wsx is listening/);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers through both workers', async () => {
    // A path of its own (answered 404) marks these requests in the request log; LOG_LEVEL=info logs each.
    for (let n = 0; n < 10; n++) expect(await freshGet(url, `/api/external/probe-worker-${n}`)).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pidsLogging(server, 'probe-worker-').size).toBe(2);
  });

  it('sends each event once, from the one worker holding the background lease', async () => {
    await subscribe(url, receiver, '/sqlite');
    const keys = await createSpread([url], 10, 'workers');
    await deliveredOnce(receiver, '/sqlite', keys);
    const database = await openDatabase(databaseUrl);
    try {
      const leases = await database.db.selectFrom('background_leases').selectAll().execute();
      expect(leases).toHaveLength(1);
      expect(pidsLogging(server, 'Server listening')).toContain(leases[0].holder_pid);
    } finally {
      await database.close();
    }
  }, 30_000);

  it('starts a worker again after it dies, and drains both on SIGTERM', async () => {
    const [victim] = pidsLogging(server, 'Server listening');
    process.kill(victim, 'SIGKILL');
    await server.waitFor(new RegExp(`\\(pid ${victim}\\) exited \\(SIGKILL\\); starting it again`));
    await server.waitFor(/(wsx is listening[^]*){3}/);
    expect(await freshGet(url, '/api/external')).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 30_000);
});
