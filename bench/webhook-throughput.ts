/**
 * `npm run bench:webhooks`: how fast the webhook dispatcher drains a backlog.
 *
 * For each store: a fresh database, a workspace, subscriptions to receivers in a child
 * process on 127.0.0.1 (bench/webhooks/receiver.ts), BENCH_EVENTS issues created through
 * the API with the dispatcher off, then the dispatcher started and timed until every job
 * of the fast subscription has succeeded. Two scenarios:
 * - one fast subscription alone;
 * - the fast one beside a slow one (answers after BENCH_SLOW_MS) and a failing one (500).
 * Prints deliveries/s of the fast subscription, SQL statements per delivery, and what the
 * slow and failing ones got meanwhile.
 *
 * BENCH_STORES     sqlite,postgres (default both)
 * BENCH_SCENARIOS  alone,mixed (default both)
 * BENCH_EVENTS     events per scenario (default 5,000)
 * BENCH_SLOW_MS    the slow receiver's answer time (default 2,000)
 * PG_SERVER_URL    PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfig, type AppConfig } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import { Dispatcher } from '../src/events/dispatcher.js';
import { buildApp } from '../src/server/app.js';
import { apiClient, type ApiCall } from './client.js';
import { BENCH_TOKEN, seedWorkspace } from './seed.js';
import { freshStore, type Store } from './webhooks/store.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',') as Store[];
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'alone,mixed').split(',');
const EVENTS = env('BENCH_EVENTS', 5000);
/** Creates in flight while the backlog is written (the write path is not what is measured). */
const WRITERS = 16;
const POLL_MS = 50;

const config: AppConfig = { ...loadConfig({}), rateLimitPerMinute: 0, logLevel: 'warn', webhookAllowPrivate: true };
const quiet = { error: console.error, warn: console.warn, info: () => undefined };

interface Receivers {
  url: (path: string) => string;
  /** Requests received so far at `path` (all scenarios' subscriptions of that path together). */
  received: (path: string) => Promise<number>;
  stop: () => void;
}

async function startReceivers(): Promise<Receivers> {
  const child = fork(fileURLToPath(new URL('webhooks/receiver.ts', import.meta.url)), { stdio: 'inherit' });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received: (path) =>
      new Promise((resolve) => {
        child.once('message', (m: { received: Record<string, number> }) => resolve(m.received[path] ?? 0));
        child.send('count');
      }),
    stop: () => child.kill(),
  };
}

async function subscribe(api: ApiCall, url: string): Promise<string> {
  const created = await api('POST', '/api/external/webhooks', { url, events: ['issue.created'] });
  return created.webhook.webhookId as string;
}

async function writeBacklog(api: ApiCall, projectId: string): Promise<void> {
  let next = 0;
  const writer = async () => {
    while (next < EVENTS) {
      next += 1;
      await api('POST', '/api/external/issues', { projectId, title: `Backlog ${next}` });
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
}

async function succeeded(database: Database, webhookId: string): Promise<number> {
  const row = await database.db
    .selectFrom('webhook_jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('webhook_id', '=', webhookId)
    .where('state', '=', 'succeeded')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function attemptsOf(database: Database, webhookId: string): Promise<number> {
  const row = await database.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('webhook_id', '=', webhookId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

interface Outcome {
  seconds: number;
  perSecond: number;
  statementsPerDelivery: number;
  /** The bench process's CPU time over the wall time of the drain (1 = one core busy throughout). */
  cpuShare: number;
  others: Record<string, { succeeded: number; attempts: number }>;
}

async function measure(store: Store, receivers: Receivers, paths: string[]): Promise<Outcome> {
  const database = await freshStore(store);
  const app = await buildApp({ database, config });
  try {
    const seeded = await seedWorkspace(database.db);
    const api = apiClient(app, BENCH_TOKEN);
    const hooks: Record<string, string> = {};
    for (const path of paths) hooks[path] = await subscribe(api, receivers.url(path));
    await writeBacklog(api, seeded.projects['ENG/CORE']);

    const before = await receivers.received(paths[0]);
    let statements = 0;
    const unwatch = database.statements.observe(() => (statements += 1));
    const dispatcher = new Dispatcher(database, config, quiet);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    dispatcher.start();
    // Watched at the receiver (reading the job table would load the store being measured),
    // then, once every delivery has arrived, until the store has recorded them all.
    while ((await receivers.received(paths[0])) - before < EVENTS)
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    while ((await succeeded(database, hooks[paths[0]])) < EVENTS)
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    unwatch();
    const others: Outcome['others'] = {};
    for (const path of paths.slice(1))
      others[path] = {
        succeeded: await succeeded(database, hooks[path]),
        attempts: await attemptsOf(database, hooks[path]),
      };
    await dispatcher.stop();
    return {
      seconds,
      perSecond: EVENTS / seconds,
      statementsPerDelivery: statements / EVENTS,
      cpuShare: (cpu.user + cpu.system) / 1e6 / seconds,
      others,
    };
  } finally {
    await app.close();
    await database.close();
  }
}

const receivers = await startReceivers();
try {
  for (const store of STORES) {
    if (SCENARIOS.includes('alone')) {
      const alone = await measure(store, receivers, ['/fast']);
      console.log(
        `${store}: one fast subscription, ${EVENTS} events: ${alone.seconds.toFixed(1)} s, ` +
          `${Math.round(alone.perSecond)} deliveries/s, ${alone.statementsPerDelivery.toFixed(1)} statements per delivery, ` +
          `CPU ${Math.round(alone.cpuShare * 100)} % of a core`,
      );
    }
    if (SCENARIOS.includes('mixed')) {
      const mixed = await measure(store, receivers, ['/fast', '/slow', '/failing']);
      const beside = Object.entries(mixed.others)
        .map(([path, o]) => `${path} ${o.succeeded} succeeded of ${o.attempts} attempts`)
        .join(', ');
      console.log(
        `${store}: fast beside slow and failing, ${EVENTS} events: ${mixed.seconds.toFixed(1)} s, ` +
          `${Math.round(mixed.perSecond)} deliveries/s of the fast one, CPU ${Math.round(mixed.cpuShare * 100)} % of a core; ` +
          `meanwhile ${beside}`,
      );
    }
  }
} finally {
  receivers.stop();
}
