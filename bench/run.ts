/**
 * `npm run bench`: seeds a workspace in a fresh database, starts the real server on a free
 * loopback port, and drives each scenario with autocannon. Prints one row per scenario.
 *
 * BENCH_DATABASE_URL  store to measure (default: a new SQLite file in the temp folder)
 * BENCH_DURATION      seconds per scenario (default 10)
 * BENCH_CONNECTIONS   concurrent connections (default 10)
 * BENCH_PROJECTS      seeded projects (default 1,000)
 * BENCH_ISSUES        seeded issues (default 100,000)
 * BENCH_ONLY          run only scenarios whose name contains this text
 */
import autocannon from 'autocannon';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { buildApp } from '../src/http/app.js';
import { scenarios } from './scenarios.js';
import { BENCH_TOKEN, seedProjects, seedWorkspace } from './seed.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const duration = env('BENCH_DURATION', 10);
const connections = env('BENCH_CONNECTIONS', 10);
const projectCount = env('BENCH_PROJECTS', 1000);
const issueCount = env('BENCH_ISSUES', 100_000);

const sqliteFile = join(tmpdir(), `wsx-bench-${process.pid}.sqlite`);
const database = await openDatabase(process.env.BENCH_DATABASE_URL ?? `sqlite:${sqliteFile}`);
await migrateToLatest(database);

const seeded = await seedWorkspace(database.db);
const context = { workspaceId: seeded.workspaceId, teamId: seeded.teams.ENG, projectId: seeded.projects['ENG/CORE'], issueCount };
console.log(`Seeding ${projectCount} projects on ${database.describe} …`);
await seedProjects(database.db, context.workspaceId, context.teamId, projectCount);

const app = await buildApp({ database, config: { ...loadConfig({}), rateLimitPerMinute: 0, logLevel: 'warn' } });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
const headers = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' };

const rows: string[] = [];
for (const scenario of scenarios) {
  if (process.env.BENCH_ONLY && !scenario.name.includes(process.env.BENCH_ONLY)) continue;
  await scenario.prepare?.(database.db, context);
  const result = await autocannon({ url: address, connections, duration, headers, requests: [scenario.request(context)] });
  const failures = result.errors + result.non2xx + result.timeouts;
  rows.push(`| ${scenario.name} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ${result.requests.total} | ${failures} |`);
  console.log(rows[rows.length - 1]);
}

console.log(`\nStore: ${database.dialect}; ${projectCount} projects; ${connections} connections; ${duration}s per scenario; Node ${process.version}.`);
console.log('| scenario | req/s | p50 ms | p99 ms | requests | non-2xx/errors |\n|---|---|---|---|---|---|');
console.log(rows.join('\n'));

await app.close();
await database.close();
rmSync(sqliteFile, { force: true });
rmSync(`${sqliteFile}-wal`, { force: true });
rmSync(`${sqliteFile}-shm`, { force: true });
