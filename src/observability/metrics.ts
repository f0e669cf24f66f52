import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/database.js';
import { readBacklog } from './backlog.js';

/** Request durations in seconds: from a cached read (a millisecond) to a slow bulk write. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Statement durations in seconds: most take well under a millisecond. */
const STATEMENT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** The series of one app (see docs/operations.md), in a registry of its own. */
export interface Metrics {
  registry: Registry;
  /** Records one finished request; `operation` is a catalog id or a route template, never a raw URL. */
  requestFinished(operation: string, method: string, status: number, seconds: number): void;
  inFlight: Gauge;
  /** Stops observing the store (the app closes). */
  stop(): void;
}

/**
 * A registry per app, not prom-client's global one: tests run several apps in one process,
 * and each must answer for itself. Series that only the store knows (statements, replays,
 * webhook attempts) are fed by watchers on that store; the pool and the outbox backlog are
 * read when Prometheus scrapes.
 */
export function createMetrics(database: Database): Metrics {
  const registry = new Registry();
  // Under their usual names (process_*, nodejs_*), which ready-made dashboards expect.
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Counter({
    name: 'wsx_http_requests_total',
    help: 'HTTP requests answered, by operation id (or route), method and status.',
    labelNames: ['operation', 'method', 'status'],
    registers,
  });
  const durations = new Histogram({
    name: 'wsx_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by operation id (or route), method and status.',
    labelNames: ['operation', 'method', 'status'],
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const inFlight = new Gauge({ name: 'wsx_http_requests_in_flight', help: 'HTTP requests being answered.', registers });
  const rateLimited = new Counter({
    name: 'wsx_rate_limit_refusals_total',
    help: 'Requests refused with 429 RATE_LIMITED, by operation id (or route).',
    labelNames: ['operation'],
    registers,
  });
  const replays = new Counter({
    name: 'wsx_idempotency_replays_total',
    help: 'Writes answered from a stored result for a repeated idempotency key (HTTP and MCP).',
    registers,
  });
  const attempts = new Counter({
    name: 'wsx_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (succeeded, failed, refused: not sent).',
    labelNames: ['outcome'],
    registers,
  });
  const statements = new Counter({
    name: 'wsx_sql_statements_total',
    help: 'SQL statements run (transaction control included).',
    registers,
  });
  const statementDurations = new Histogram({
    name: 'wsx_sql_statement_duration_seconds',
    help: 'Time the driver took to run one SQL statement.',
    buckets: STATEMENT_BUCKETS,
    registers,
  });
  const { pool } = database;
  if (pool) {
    const poolGauge = (name: string, help: string, read: () => number) =>
      new Gauge({ name, help, registers, collect: poolCollect(read) });
    poolGauge('wsx_pg_pool_connections', 'PostgreSQL connections the pool holds.', () => pool.totalCount);
    poolGauge('wsx_pg_pool_idle_connections', 'PostgreSQL connections idle in the pool.', () => pool.idleCount);
    poolGauge(
      'wsx_pg_pool_waiting_requests',
      'Checkouts waiting for a PostgreSQL connection.',
      () => pool.waitingCount,
    );
  }
  registerBacklog(database, registers);

  const stopSignals = database.signals.watch((event) => {
    if (event.kind === 'idempotency_replay') replays.inc();
    else attempts.inc({ outcome: event.outcome });
  });
  const stopTiming = database.statements.time((seconds) => {
    statements.inc();
    statementDurations.observe(seconds);
  });

  return {
    registry,
    inFlight,
    requestFinished(operation, method, status, seconds) {
      const labels = { operation, method, status: String(status) };
      requests.inc(labels);
      durations.observe(labels, seconds);
      if (status === 429) rateLimited.inc({ operation });
    },
    stop() {
      stopSignals();
      stopTiming();
    },
  };
}

function poolCollect(read: () => number) {
  return function (this: Gauge) {
    this.set(read());
  };
}

/** The outbox backlog, read once per scrape: both gauges share one reading. */
function registerBacklog(database: Database, registers: Registry[]): void {
  let reading: ReturnType<typeof readBacklog> | undefined;
  const read = () => (reading ??= readBacklog(database, Date.now()).finally(() => (reading = undefined)));
  new Gauge({
    name: 'wsx_outbox_backlog',
    help:
      'Events waiting to be fanned out (stage=dispatch) and webhook jobs waiting to be delivered (stage=delivery); ' +
      'counted up to 100000.',
    labelNames: ['stage'],
    registers,
    async collect() {
      const { count } = await read();
      this.set({ stage: 'dispatch' }, count.dispatch);
      this.set({ stage: 'delivery' }, count.delivery);
    },
  });
  new Gauge({
    name: 'wsx_outbox_oldest_age_seconds',
    help: 'Age of the oldest event waiting to be fanned out (stage=dispatch) or job waiting to be delivered (stage=delivery).',
    labelNames: ['stage'],
    registers,
    async collect() {
      const { oldestAgeSeconds } = await read();
      this.set({ stage: 'dispatch' }, oldestAgeSeconds.dispatch);
      this.set({ stage: 'delivery' }, oldestAgeSeconds.delivery);
    },
  });
}
