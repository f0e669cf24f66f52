/**
 * `npx tsx bench/search-scope.ts`: what a tenant's worst searches cost, and what they cost
 * everyone else, on a SQLite store where another workspace holds the issues.
 *
 * Seeds a fresh SQLite file: the bench workspace with BENCH_ISSUES issues (bench/seed.ts)
 * and a second, empty workspace with its own token. Starts the real server in-process with
 * the default per-credential rate limit, then:
 * 1. sends each worst search (a 500-character phrase of the seeded words, `zz`, `%`, `_`, a
 *    frequent trigram) one at a time, from the empty workspace's token and then from the
 *    bench workspace's own, and prints wall p50 / p99 ms and the CPU the process spent;
 * 2. for BENCH_DURATION seconds, sends the worst searches from another token of the empty
 *    workspace at that token's whole budget (WSX_RATE_LIMIT a minute) while `/healthz` is
 *    asked every 10 ms, and prints `/healthz` p50 / p99 / max, the searches' statuses and
 *    the event-loop delay.
 * The clients run in the server's process, as in bench/run.ts: on a busy machine the wall
 * times include waits for a core, the CPU times do not.
 *
 * BENCH_ISSUES    issues of the other workspace (default 100,000)
 * BENCH_DURATION  seconds of the load (default 20)
 * BENCH_RUNS      runs of each search in step 1 (default 30)
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { catchUpSearchIndexes } from '../src/db/search-backlog.js';
import { buildApp } from '../src/server/app.js';
import { applyWorkspaceFile } from '../src/modules/workspace-file/apply.js';
import { BENCH_TOKEN, WORDS, seedIssues, seedProjects, seedWorkspace } from './seed.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const issueCount = env('BENCH_ISSUES', 100_000);
const seconds = env('BENCH_DURATION', 20);
const runs = env('BENCH_RUNS', 30);
/**
 * Fixed secrets of the empty workspace's tokens (random base62, as the weak-secret rule
 * wants): one for step 1, one whose whole budget step 2 spends.
 */
const EMPTY_TOKEN = 'svc_pat_Qm4xT8rZ1vK6pW3nY9cF2hB7jL5dG0sA8eU1iOk';
const LOAD_TOKEN = 'svc_pat_Xr7bN2qW9kD4mT6yH1vC8pZ3fJ5sL0gE7aR2uIo';

const phrase = Array.from({ length: 80 }, (_, n) => WORDS[(n * 7) % WORDS.length])
  .join(' ')
  .slice(0, 500);
const SEARCHES = [
  { name: '500-character phrase of common words', q: phrase },
  { name: '`zz`', q: 'zz' },
  { name: '`%`', q: '%' },
  { name: '`_`', q: '_' },
  { name: '`ing` (a frequent trigram)', q: 'ing' },
];

const file = join(tmpdir(), `wsx-search-scope-${process.pid}.sqlite`);
const database = await openDatabase(`sqlite:${file}`);
await migrateToLatest(database);
console.log(`Seeding ${issueCount} issues in one workspace and none in another …`);
const seeded = await seedWorkspace(database.db);
const team = { id: seeded.teams.ENG, key: 'ENG' };
const projectIds = await seedProjects(database.db, seeded.workspaceId, team.id, 9);
await seedIssues(database.db, {
  workspaceId: seeded.workspaceId,
  team,
  count: issueCount,
  projectIds: [seeded.projects['ENG/CORE'], ...projectIds],
  assigneeIds: Object.values(seeded.users),
});
await applyWorkspaceFile(database.db, {
  workspace: { slug: 'empty', name: 'Empty' },
  users: [{ handle: 'eve', name: 'eve', email: 'eve@empty.test' }],
  teams: [{ key: 'EMP', name: 'Empty', default: true, members: ['eve'] }],
  projects: [{ team: 'EMP', key: 'NONE', name: 'None' }],
  tokens: [
    { name: 'empty', secret: EMPTY_TOKEN, projects: '*' },
    { name: 'load', secret: LOAD_TOKEN, projects: '*' },
  ],
});
await catchUpSearchIndexes(database);
await sql`analyze`.execute(database.db);

const config = { ...loadConfig({}), logLevel: 'warn' };
const app = await buildApp({ database, config });
const base = await app.listen({ port: 0, host: '127.0.0.1' });

const ask = async (path: string, token?: string) => {
  const started = performance.now();
  const response = await fetch(`${base}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
};
const searchPath = (q: string) => `/api/external/issues?limit=50&q=${encodeURIComponent(q)}`;
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (value: number) => value.toFixed(1);

// Warm-up: the first requests compile the server's code paths.
for (let round = 0; round < 5; round++)
  for (const search of SEARCHES) for (const token of [EMPTY_TOKEN, BENCH_TOKEN]) await ask(searchPath(search.q), token);

console.log(`\nEach search alone, ${runs} runs: wall p50 / p99 ms (CPU ms of the process, p50)`);
console.log(`| search | empty workspace | own workspace (${issueCount} issues) |\n|---|---|---|`);
for (const search of SEARCHES) {
  const cells: string[] = [];
  for (const token of [EMPTY_TOKEN, BENCH_TOKEN]) {
    const walls: number[] = [];
    const cpus: number[] = [];
    for (let run = 0; run < runs; run++) {
      const cpu = process.cpuUsage();
      const { ms: took, status } = await ask(searchPath(search.q), token);
      const used = process.cpuUsage(cpu);
      if (status !== 200) throw new Error(`${search.name} answered ${status}`);
      walls.push(took);
      cpus.push((used.user + used.system) / 1000);
    }
    cells.push(`${ms(quantile(walls, 0.5))} / ${ms(quantile(walls, 0.99))} (${ms(quantile(cpus, 0.5))})`);
  }
  console.log(`| ${search.name} | ${cells.join(' | ')} |`);
}

const perSecond = config.rateLimitPerMinute / 60;
console.log(`\nLoad: the worst searches at ${perSecond}/s from one token, /healthz every 10 ms, ${seconds} s …`);
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const health: number[] = [];
const statuses = new Map<number, number>();
const pending: Array<Promise<unknown>> = [];
const until = performance.now() + seconds * 1000;
let sent = 0;
const searching = setInterval(() => {
  const search = SEARCHES[sent++ % SEARCHES.length];
  pending.push(
    ask(searchPath(search.q), LOAD_TOKEN).then(({ status }) => statuses.set(status, (statuses.get(status) ?? 0) + 1)),
  );
}, 1000 / perSecond);
const probing = setInterval(() => pending.push(ask('/healthz').then(({ ms: took }) => health.push(took))), 10);
await sleep(until - performance.now());
clearInterval(searching);
clearInterval(probing);
await Promise.all(pending);
delay.disable();

console.log(
  `| /healthz p50 / p99 / max ms | requests | searches sent | search statuses | event-loop delay p99 / max ms |`,
);
console.log('|---|---|---|---|---|');
const answered = [...statuses].map(([status, count]) => `${count}× ${status}`).join(', ');
console.log(
  `| ${ms(quantile(health, 0.5))} / ${ms(quantile(health, 0.99))} / ${ms(Math.max(...health))} | ${health.length} | ${sent} | ${answered} | ${ms(delay.percentile(99) / 1e6)} / ${ms(delay.max / 1e6)} |`,
);
console.log(`\nStore: SQLite; ${issueCount} issues in the other workspace; Node ${process.version}.`);

await app.close();
await database.close();
for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
