/**
 * `npm run bench`: wsx beside the bare-stack floor (../shared/perf-floor), in one run.
 *
 * For each store and round, every scenario runs on the floor and then on wsx, each on a
 * fresh copy of its data, with wrk (one thread, 32 connections, a 3 s warm-up, then the
 * measured run), as the floor's README prescribes. Prints the medians and the wsx/floor
 * ratios, then wsx's searches and lists at 100k and 1M issues, its start time and RSS.
 * Needs `wrk` (Debian package) and the build (`npm run build`, done by `npm install`).
 *
 * BENCH_STORES       sqlite,postgres (default both)
 * BENCH_ROUNDS       interleaved rounds per scenario (default 3; the median is reported)
 * BENCH_DURATION     measured seconds per run (default 15)
 * BENCH_CONNECTIONS  wrk connections (default 32)
 * BENCH_LARGE        issues of the large store for lists and search (default 1,000,000; 0 skips)
 * BENCH_ONLY         one scenario by name (e.g. '50 issues by assignee'); default all three
 * FLOOR_DIR          the floor's folder (default ../shared/perf-floor beside the project)
 * PG_SERVER_URL      PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { BENCH_TOKEN } from './seed.js';
import { run, startServer, type RunningServer } from './floor/processes.js';
import { wrk, type WrkResult } from './floor/wrk.js';
import { seedWsxStore, upgradeWsxStore } from './floor/wsx-store.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>;
const ROUNDS = env('BENCH_ROUNDS', 3);
const SECONDS = env('BENCH_DURATION', 15);
const CONNECTIONS = env('BENCH_CONNECTIONS', 32);
const LARGE = env('BENCH_LARGE', 1_000_000);
/** The floor seeds this many issues (its seed.js); wsx gets as many for the side-by-side runs. */
const FLOOR_ISSUES = 100_000;
const FLOOR_SOURCE = process.env.FLOOR_DIR ?? resolve(ROOT, '../shared/perf-floor');
/** The floor's pg/schema.sql loads its CSV files from this folder. */
const FLOOR = '/tmp/perf-floor';
const WORK = '/tmp/wsx-bench';
const PG_SERVER = process.env.PG_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const pgUrl = (database: string) => `${PG_SERVER.replace(/\/[^/]*$/, '')}/${database}`;
const FLOOR_PORT = 3801;
const WSX_PORT = 3802;

const ALL_SCENARIOS = [
  { name: 'issue by key', floor: 'bykey.lua', wsx: 'wsx-bykey.lua' },
  { name: '50 issues by assignee', floor: 'list.lua', wsx: 'wsx-list.lua' },
  { name: 'create', floor: 'post.lua', wsx: 'wsx-post.lua' },
];
const ONLY = process.env.BENCH_ONLY;
const SCENARIOS = ONLY ? ALL_SCENARIOS.filter((scenario) => scenario.name === ONLY) : ALL_SCENARIOS;
if (SCENARIOS.length === 0) throw new Error(`BENCH_ONLY names no scenario: ${ONLY}`);

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_SERVER });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function pgDatabaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_SERVER });
  await client.connect();
  try {
    return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

/** A database copied from a pristine one (a template), so every run starts from the same data. */
async function freshPgCopy(pristine: string, copy: string): Promise<string> {
  await admin(`drop database if exists ${copy} with (force)`);
  await admin(`create database ${copy} template ${pristine}`);
  return pgUrl(copy);
}

function freshSqliteCopy(pristine: string, copy: string): string {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
  cpSync(pristine, copy);
  return copy;
}

async function prepareFloor(stores: string[]): Promise<void> {
  if (!existsSync(join(FLOOR, 'issues.pristine.db'))) {
    console.log(`Seeding the floor in ${FLOOR} …`);
    rmSync(FLOOR, { recursive: true, force: true });
    cpSync(FLOOR_SOURCE, FLOOR, { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(FLOOR, 'node_modules'));
    await run('node', ['seed.js'], { cwd: FLOOR });
  }
  if (stores.includes('postgres') && !(await pgDatabaseExists('floor_pristine'))) {
    await admin('create database floor_pristine');
    await run('psql', [pgUrl('floor_pristine'), '-q', '-v', 'ON_ERROR_STOP=1', '-f', 'pg/schema.sql'], { cwd: FLOOR });
  }
}

/** The pristine wsx store of `count` issues: a SQLite file or a PostgreSQL database name. */
async function prepareWsx(store: 'sqlite' | 'postgres', count: number): Promise<{ pristine: string; data: string }> {
  mkdirSync(WORK, { recursive: true });
  const data = join(WORK, `${store}-${count}`);
  if (store === 'sqlite') {
    const pristine = `${data}.pristine.sqlite`;
    if (!existsSync(pristine)) {
      console.log(`Seeding wsx on SQLite with ${count} issues …`);
      await seedWsxStore(`sqlite:${pristine}`, count, data);
    } else await upgradeWsxStore(`sqlite:${pristine}`);
    return { pristine, data };
  }
  const pristine = `wsx_bench_${count}`;
  if (!(await pgDatabaseExists(pristine))) {
    console.log(`Seeding wsx on PostgreSQL with ${count} issues …`);
    await admin(`create database ${pristine}`);
    await seedWsxStore(pgUrl(pristine), count, data);
  } else await upgradeWsxStore(pgUrl(pristine));
  return { pristine, data };
}

const floorServer = (store: 'sqlite' | 'postgres', location: string) =>
  startServer('node', ['server.js'], {
    cwd: FLOOR,
    port: FLOOR_PORT,
    probe: '/static',
    env: {
      ...process.env,
      PORT: String(FLOOR_PORT),
      AUTH: '1',
      DB: store === 'sqlite' ? 'sqlite' : 'pg',
      ...(store === 'sqlite' ? { DB_FILE: location } : { PG_URL: location }),
    },
  });

const wsxServer = (store: 'sqlite' | 'postgres', location: string) =>
  startServer('node', ['dist/wsx.js', 'serve'], {
    cwd: ROOT,
    port: WSX_PORT,
    probe: '/healthz',
    env: {
      ...process.env,
      PORT: String(WSX_PORT),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      WSX_BOOTSTRAP: 'off',
      WSX_RATE_LIMIT: '0',
      DATABASE_URL: store === 'sqlite' ? `sqlite:${location}` : location,
    },
  });

/** Warm-up, then the measured run; the server's RSS is read at the end of the load. The server is stopped. */
async function measure(server: RunningServer, script: string, wsxData: string, count: number, seconds = SECONDS) {
  const wrkEnv = {
    ...process.env,
    AUTH: '1',
    LUA_DIR: join(FLOOR, 'lua'),
    WSX_DATA: wsxData,
    WSX_N: String(count),
    WSX_TOKEN: BENCH_TOKEN,
  };
  const options = { url: server.url, script, connections: CONNECTIONS, cwd: FLOOR, env: wrkEnv };
  try {
    await wrk({ ...options, seconds: 3 });
    const result = await wrk({ ...options, seconds });
    return { ...result, rssMb: server.rssMb() };
  } finally {
    await server.stop();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const round = (value: number, digits = 0) => Number(value.toFixed(digits));

type Measured = WrkResult & { rssMb: number };
const lines: string[] = [];
const report = (line: string) => {
  lines.push(line);
  console.log(line);
};

await run('npm', ['run', '--silent', 'build'], { cwd: ROOT });
await prepareFloor(STORES);
for (const store of STORES) {
  const wsx = await prepareWsx(store, FLOOR_ISSUES);
  const floorPristine = store === 'sqlite' ? join(FLOOR, 'issues.pristine.db') : 'floor_pristine';
  const results = new Map<string, { floor: Measured[]; wsx: Measured[] }>();
  const starts: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const scenario of SCENARIOS) {
      const entry = results.get(scenario.name) ?? { floor: [], wsx: [] };
      results.set(scenario.name, entry);
      const floorData =
        store === 'sqlite'
          ? freshSqliteCopy(floorPristine, join(FLOOR, 'issues.db'))
          : await freshPgCopy(floorPristine, 'floor_run');
      const floor = await floorServer(store, floorData);
      entry.floor.push(await measure(floor, `lua/${scenario.floor}`, wsx.data, FLOOR_ISSUES));
      const wsxData =
        store === 'sqlite'
          ? freshSqliteCopy(wsx.pristine, join(WORK, 'run.sqlite'))
          : await freshPgCopy(wsx.pristine, 'wsx_bench_run');
      const server = await wsxServer(store, wsxData);
      starts.push(server.startedInMs);
      entry.wsx.push(await measure(server, `lua/${scenario.wsx}`, wsx.data, FLOOR_ISSUES));
    }
  }
  report(`\n${store}: ${FLOOR_ISSUES} issues, wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, median of ${ROUNDS} rounds`);
  report('| scenario | floor req/s | wsx req/s | wsx / floor | wsx p50 ms | wsx p99 ms | floor p99 ms | wsx RSS MB |');
  report('|---|---|---|---|---|---|---|---|');
  for (const [name, { floor, wsx: ours }] of results) {
    const floorRate = median(floor.map((m) => m.requestsPerSecond));
    const wsxRate = median(ours.map((m) => m.requestsPerSecond));
    const failures = ours.reduce((sum, m) => sum + m.failures, 0);
    report(
      `| ${name} | ${round(floorRate)} | ${round(wsxRate)} | ${round(wsxRate / floorRate, 2)} | ${median(ours.map((m) => m.p50Ms))} | ${median(ours.map((m) => m.p99Ms))} | ${median(floor.map((m) => m.p99Ms))} | ${Math.max(...ours.map((m) => m.rssMb))} |${failures ? ` ${failures} failed requests` : ''}`,
    );
  }
  report(`wsx start to /healthz: median ${round(median(starts))} ms`);

  for (const count of [FLOOR_ISSUES, ...(LARGE > 0 ? [LARGE] : [])]) {
    const large = await prepareWsx(store, count);
    const location =
      store === 'sqlite'
        ? freshSqliteCopy(large.pristine, join(WORK, 'run.sqlite'))
        : await freshPgCopy(large.pristine, 'wsx_bench_run');
    const server = await wsxServer(store, location);
    for (const [name, script, connections] of [
      ['search q=', join(ROOT, 'bench/lua/wsx-search.lua'), 1],
      ['50 issues by assignee', 'lua/wsx-list.lua', CONNECTIONS],
    ] as const) {
      const result = await wrk({
        url: server.url,
        script,
        seconds: 10,
        connections,
        cwd: FLOOR,
        env: { ...process.env, LUA_DIR: join(FLOOR, 'lua'), WSX_DATA: large.data, WSX_TOKEN: BENCH_TOKEN },
      });
      report(
        `${store} ${count} issues, ${name} (${connections} connections): ${round(result.requestsPerSecond)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, RSS ${server.rssMb()} MB${result.failures ? `, ${result.failures} failed` : ''}`,
      );
    }
    await server.stop();
  }
}
console.log(`\nSummary (Node ${process.version}):\n${lines.join('\n')}`);
