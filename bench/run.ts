/**
 * `npm run bench`: seeds a workspace in a fresh database, starts the real server on a free
 * loopback port, and drives each scenario with autocannon. Before the load it prints the
 * SQL statement count of an agenda read (5 and 50 items), the plans of the two issue list
 * queries and the median time of a bulk update of 50 retitles. Prints one row per scenario.
 *
 * BENCH_DATABASE_URL  store to measure (default: a new SQLite file in the temp folder)
 * BENCH_DURATION      seconds per scenario (default 10)
 * BENCH_CONNECTIONS   concurrent connections (default 10)
 * BENCH_PROJECTS      seeded projects (default 1,000)
 * BENCH_ISSUES        seeded issues (default 100,000)
 * BENCH_ONLY          run only scenarios whose name contains this text
 */
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { catchUpSearchIndexes } from '../src/db/search-backlog.js';
import { buildApp } from '../src/server/app.js';
import { seedAgenda } from './agenda.js';
import { timeBulkRetitles } from './bulk-update.js';
import { apiClient } from './client.js';
import { countAgendaQueries } from './query-count.js';
import { explainIssueList } from './query-plans.js';
import { QueryRecorder } from './recorder.js';
import { scenarios, type BenchContext } from './scenarios.js';
import { BENCH_TOKEN, seedIssues, seedProjects, seedWorkspace } from './seed.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const duration = env('BENCH_DURATION', 10);
const connections = env('BENCH_CONNECTIONS', 10);
const projectCount = env('BENCH_PROJECTS', 1000);
const issueCount = env('BENCH_ISSUES', 100_000);
/** Projects the issues are spread over: CORE plus this many seeded ones. */
const ISSUE_PROJECTS = 9;

const sqliteFile = join(tmpdir(), `wsx-bench-${process.pid}.sqlite`);
const database = await openDatabase(process.env.BENCH_DATABASE_URL ?? `sqlite:${sqliteFile}`);
await migrateToLatest(database);

console.log(`Seeding ${projectCount} projects and ${issueCount} issues on ${database.describe} …`);
const seeded = await seedWorkspace(database.db);
const team = { id: seeded.teams.ENG, key: 'ENG' };
const projectId = seeded.projects['ENG/CORE'];
const projectIds = await seedProjects(database.db, seeded.workspaceId, team.id, projectCount);
await seedIssues(database.db, {
  workspaceId: seeded.workspaceId,
  team,
  count: issueCount,
  projectIds: [projectId, ...projectIds.slice(0, ISSUE_PROJECTS)],
  assigneeIds: Object.values(seeded.users),
});
await catchUpSearchIndexes(database);
const config = { ...loadConfig({}), rateLimitPerMinute: 0, logLevel: 'warn' };
const recorder = new QueryRecorder(database.statements);
const inProcess = await buildApp({ database, config });
const api = apiClient(inProcess, BENCH_TOKEN);
const oldestIssueKeys = Array.from({ length: Math.min(issueCount, 50) }, (_, i) => `${team.key}-${i + 1}`);
const agendaSeed = { projectId, ownerId: seeded.users.ada, issueKeys: oldestIssueKeys };
const agendas: Array<{ items: number; meetingId: string }> = [];
for (const items of [5, 50])
  agendas.push({ items, meetingId: await seedAgenda(api, { ...agendaSeed, itemCount: items }) });

// Planner statistics after the bulk load, as production gets them: PostgreSQL's autovacuum
// analyzes soon after; the server runs SQLite's `pragma optimize` on open and hourly.
await (database.dialect === 'postgres' ? sql`analyze` : sql`pragma optimize`).execute(database.db);

const queryCounts = await countAgendaQueries(api, recorder, agendas);
console.log('\nSQL statements per agenda read (authentication included):');
for (const { items, queries } of queryCounts) console.log(`  ${items} items: ${queries} statements`);

for (const url of [
  `/api/external/issues?assignedToMe=true&limit=50`,
  `/api/external/issues?project=${projectId}&limit=50`,
]) {
  console.log(`\nPlan of the page query of GET ${url}:`);
  for (const line of await explainIssueList(api, recorder, database, url)) console.log(`  ${line}`);
}

const bulkMs = await timeBulkRetitles(api, oldestIssueKeys, 30);
console.log(`\nA bulk update of ${oldestIssueKeys.length} retitles, one after another: median ${bulkMs.toFixed(1)} ms`);

const context: BenchContext = {
  projectId,
  teamKey: team.key,
  issueCount,
  agendaMeetingId: agendas[agendas.length - 1].meetingId,
};
const app = await buildApp({ database, config });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
const headers = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' };

console.log('');
const rows: string[] = [];
for (const scenario of scenarios) {
  if (process.env.BENCH_ONLY && !scenario.name.includes(process.env.BENCH_ONLY)) continue;
  const result = await autocannon({
    url: address,
    connections,
    duration,
    headers,
    requests: [scenario.request(context)],
  });
  const failures = result.errors + result.non2xx + result.timeouts;
  rows.push(
    `| ${scenario.name} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ${result.requests.total} | ${failures} |`,
  );
  console.log(rows[rows.length - 1]);
}

console.log(
  `\nStore: ${database.dialect}; ${projectCount} projects; ${issueCount} issues; ${connections} connections; ${duration}s per scenario; Node ${process.version}.`,
);
console.log('| scenario | req/s | p50 ms | p99 ms | requests | non-2xx/errors |\n|---|---|---|---|---|---|');
console.log(rows.join('\n'));

await app.close();
await inProcess.close();
await database.close();
rmSync(sqliteFile, { force: true });
rmSync(`${sqliteFile}-wal`, { force: true });
rmSync(`${sqliteFile}-shm`, { force: true });
