/**
 * `npm run bench:fairness`: while one token streams maximum-size bulk creates (or bulk
 * updates) within its rate budget, does another caller's create p99 in the same workspace
 * stay under three times its idle value?
 *
 * For each store: wsx started as production does (`node dist/wsx.js serve`, the rate limit
 * at its default) on a fresh store seeded with `wsx apply`: one project, two tokens.
 * Caller B creates issues one at a time at a steady pace, first alone ("idle"), then while
 * caller A sends POST /issues/bulk with the most items it takes ("loaded"), or with
 * FAIRNESS_BULK=update, PATCH /issues/bulk retitling as many issues (created by its warm-up
 * bulk, so every item changes a row another bulk may also be changing). A bulk is
 * charged one request per item, so A's pace is 90 % of limit / items bulks a minute, and it
 * should get no 429. PASS when B's loaded p99 < 3 × its idle p99 and every B create got 201.
 * Uses dist/ as built (`npm run build` after changing src/; built here when missing).
 *
 * BENCH_STORES               sqlite,postgres (default both)
 * FAIRNESS_DURATION          seconds of each phase (default 15)
 * FAIRNESS_BULK_CONNECTIONS  A's bulks in flight at most (default 4)
 * FAIRNESS_RATE              B's creates per second (default 75 % of its own budget)
 * FAIRNESS_BULK              create (default) or update: what A's bulks do
 * PG_SERVER_URL              PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeOthers, latencyOf, paced, send, countOf, type Latency, type Sample } from './fairness/pace.js';
import { bulkMaxItems, freshStore, rateLimitOf, seedWorkspace, type Seeded, type Store } from './fairness/setup.js';
import { run, startServer, type RunningServer } from './floor/processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WSX = join(ROOT, 'dist/wsx.js');
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',') as Store[];
const SECONDS = env('FAIRNESS_DURATION', 15);
const BULK_CONNECTIONS = env('FAIRNESS_BULK_CONNECTIONS', 4);
const BULK_KIND = process.env.FAIRNESS_BULK ?? 'create';
if (BULK_KIND !== 'create' && BULK_KIND !== 'update') throw new Error('FAIRNESS_BULK is create or update');
/** B's requests in flight at most: only reached if the server stalls (B's pace is modest). */
const STEADY_CONNECTIONS = 4;
/** Shares of each caller's budget they use: A close to its limit, B well within its own. */
const BULK_SHARE = 0.9;
const STEADY_SHARE = 0.75;
/** Not measured: JIT, statement caches and the bulk path warm before the idle phase. */
const WARMUP_SECONDS = 3;
const MAX_RATIO = 3;
const PORT = 3803;

interface Result {
  store: Store;
  idle: Latency;
  loaded: Latency;
  bulks: Latency;
  bulksPerSecond: number;
  itemsPerSecond: number;
  ratio: number;
  pass: boolean;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const line = (what: string, l: Latency) =>
  `${what} ${l.count}: p50 ${ms(l.p50)}, p95 ${ms(l.p95)}, p99 ${ms(l.p99)}; non-201: ${describeOthers(l.others)}`;

function created(sample: Sample, what: string): void {
  if (sample.status !== 201) throw new Error(`${what} answered ${sample.status}, not 201`);
}

async function measure(store: Store, url: string, seeded: Seeded): Promise<Result> {
  const limit = await rateLimitOf(url, seeded.bulkToken);
  const items = await bulkMaxItems(url);
  const steadyRate = process.env.FAIRNESS_RATE ? Number(process.env.FAIRNESS_RATE) : (STEADY_SHARE * limit) / 60;
  const bulkRate = (BULK_SHARE * limit) / 60 / items;
  console.log(
    `\n${store}: ${limit} requests/min per token; a bulk ${BULK_KIND} takes ${items} items and is charged ${items}; ` +
      `B ${steadyRate.toFixed(1)} creates/s, A ${bulkRate.toFixed(2)} bulks/s in ${BULK_CONNECTIONS} connections`,
  );
  const { projectId } = seeded;
  const bulkUrl = `${url}/api/external/issues/bulk`;
  const single = (n: number) =>
    send('POST', `${url}/api/external/issues`, seeded.steadyToken, { projectId, title: `Steady ${n}` });
  const newIssues = (n: number) => ({
    issues: Array.from({ length: items }, (_, i) => ({ projectId, title: `Bulk ${n} item ${i}` })),
  });
  const steady = (seconds: number) => paced(steadyRate, STEADY_CONNECTIONS, seconds, single);

  // The warm-up bulk is a create in both kinds: in update mode its issues are the ones A retitles.
  const [warmups, warmupKeys] = await Promise.all([
    steady(WARMUP_SECONDS),
    createIssues(bulkUrl, seeded, newIssues(0)),
  ]);
  warmups.forEach((sample) => created(sample, 'a warm-up create'));
  const bulk =
    BULK_KIND === 'create'
      ? (n: number) => send('POST', bulkUrl, seeded.bulkToken, newIssues(n))
      : (n: number) =>
          send('PATCH', bulkUrl, seeded.bulkToken, {
            issues: warmupKeys.map((issueKey, i) => ({ issueKey, title: `Bulk ${n} retitles item ${i}` })),
          });
  const expected = BULK_KIND === 'create' ? 201 : 200;

  const idle = latencyOf(await steady(SECONDS), 201);
  console.log(line('  idle    B creates', idle));
  const [loadedSamples, bulkSamples] = await Promise.all([
    steady(SECONDS),
    paced(bulkRate, BULK_CONNECTIONS, SECONDS, (n) => bulk(n + 1)),
  ]);
  const loaded = latencyOf(loadedSamples, 201);
  const bulks = latencyOf(bulkSamples, expected);
  const ratio = loaded.p99 / idle.p99;
  const pass = ratio < MAX_RATIO && countOf(idle.others) + countOf(loaded.others) === 0;
  console.log(line('  loaded  B creates', loaded));
  console.log(line('          A bulks  ', bulks));
  console.log(`  loaded p99 / idle p99 = ${ratio.toFixed(2)} → ${pass ? 'PASS' : 'FAIL'} (< ${MAX_RATIO}×)`);
  const bulksPerSecond = bulks.count / SECONDS;
  return { store, idle, loaded, bulks, bulksPerSecond, itemsPerSecond: bulksPerSecond * items, ratio, pass };
}

/** A's warm-up bulk create: the keys of its issues, in item order. */
async function createIssues(bulkUrl: string, seeded: Seeded, body: object): Promise<string[]> {
  const response = await fetch(bulkUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${seeded.bulkToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`the warm-up bulk answered ${response.status}, not 201`);
  const { issues } = (await response.json()) as { issues: Array<{ issueKey: string }> };
  return issues.map((issue) => issue.issueKey);
}

/** One store, from nothing to nothing: fresh store, seeded, server started, measured, all removed. */
async function measureStore(store: Store): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'wsx-fairness-'));
  const database = await freshStore(store, dir);
  let server: RunningServer | undefined;
  try {
    const seeded = await seedWorkspace(WSX, database.url, dir);
    server = await startServer('node', [WSX, 'serve'], {
      cwd: ROOT,
      port: PORT,
      probe: '/healthz',
      env: { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: database.url },
    });
    return await measure(store, server.url, seeded);
  } finally {
    await server?.stop();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!existsSync(WSX)) {
  console.log('Building wsx (npm run build) …');
  await run('npm', ['run', '--silent', 'build'], { cwd: ROOT });
} else console.log('Using dist/wsx.js as built: run `npm run build` first if src/ changed.');

const results: Result[] = [];
for (const store of STORES) results.push(await measureStore(store));

console.log(`\nSummary (${SECONDS} s per phase, Node ${process.version}):`);
console.log(
  '| store | idle p50 | idle p99 | loaded p50 | loaded p99 | ratio | A bulks/s | A items/s | A 429 | B non-201 | verdict |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  const steadyFailures = countOf(r.idle.others) + countOf(r.loaded.others);
  console.log(
    `| ${r.store} | ${ms(r.idle.p50)} | ${ms(r.idle.p99)} | ${ms(r.loaded.p50)} | ${ms(r.loaded.p99)} | ` +
      `${r.ratio.toFixed(2)} | ${r.bulksPerSecond.toFixed(2)} | ${r.itemsPerSecond.toFixed(1)} | ` +
      `${countOf(r.bulks.others, 429)} | ${steadyFailures} | ${r.pass ? 'PASS' : 'FAIL'} |`,
  );
}
if (results.some((r) => !r.pass)) process.exitCode = 1;
