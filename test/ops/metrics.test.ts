import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, startWorkerHarness, webhookTestConfig, type Receiver } from '../support/webhook-receiver.js';

const API = '/api/external';
/** Low enough that a handful of requests by one token reach it; the other tokens stay far under. */
const RATE_LIMIT = 5;

/** One sample line of the text format: name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseSamples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

const metricsUrl = (h: Harness, path = '/metrics') => {
  const { port } = h.app.metricsServer!.address() as AddressInfo;
  return `http://127.0.0.1:${port}${path}`;
};

describe('metrics on WSX_METRICS_PORT', () => {
  let h: Harness;
  let receiver: Receiver;
  let samples: Sample[];
  const sum = (name: string, labels: Record<string, string> = {}) =>
    samples
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((total, s) => total + s.value, 0);

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startWorkerHarness([ACME], webhookTestConfig({ metricsPort: 0, rateLimitPerMinute: RATE_LIMIT }));
    const admin = { token: TOKENS.admin };
    // Webhook: one attempt, succeeded (the ping is delivered by the dispatcher).
    const hook = await h.call('POST', `${API}/webhooks`, {
      ...admin,
      body: { url: receiver.url('/m'), events: ['*'] },
    });
    expect(hook.status).toBe(201);
    expect((await h.call('POST', `${API}/webhooks/${hook.body.webhook.webhookId}/ping`, admin)).status).toBe(202);
    // A create, then its idempotent replay.
    const create = { ...admin, body: { name: 'Metered', teamKey: 'OPS' }, headers: { 'idempotency-key': 'metrics:1' } };
    expect((await h.call('POST', `${API}/projects`, create)).status).toBe(201);
    expect((await h.call('POST', `${API}/projects`, create)).headers['idempotent-replayed']).toBe('true');
    // A 404 of a concrete resource, and of no route at all.
    expect((await h.call('GET', `${API}/issues/ENG-99999`, { token: TOKENS.bot })).status).toBe(404);
    expect((await h.call('GET', '/no/such/route/abc123')).status).toBe(404);
    // Past the limit, one more read by the same token answers 429.
    for (let i = 0; i < RATE_LIMIT; i++) await h.call('GET', `${API}/projects`, { token: TOKENS.idle });
    expect((await h.call('GET', `${API}/projects`, { token: TOKENS.idle })).status).toBe(429);
    await receiver.waitFor('/m');
    // The attempt is counted once the dispatcher recorded it, just after the receiver answered.
    for (let i = 0; i < 100; i++) {
      samples = parseSamples(await (await fetch(metricsUrl(h))).text());
      if (sum('wsx_webhook_attempts_total') > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });

  it('counts requests by operation id and status, and times them', () => {
    expect(sum('wsx_http_requests_total', { operation: 'list_projects', method: 'GET', status: '200' })).toBe(
      RATE_LIMIT,
    );
    expect(sum('wsx_http_requests_total', { operation: 'create_project', status: '201' })).toBe(2);
    expect(sum('wsx_http_requests_total', { operation: 'get_issue', status: '404' })).toBe(1);
    expect(sum('wsx_http_requests_total', { operation: 'unmatched', status: '404' })).toBe(1);
    expect(sum('wsx_http_request_duration_seconds_count', { operation: 'list_projects', status: '200' })).toBe(
      RATE_LIMIT,
    );
    expect(sum('wsx_http_request_duration_seconds_sum')).toBeGreaterThan(0);
    expect(sum('wsx_http_requests_in_flight')).toBe(0);
  });

  it('labels series with operation ids and route templates, never a raw URL or id', () => {
    const operations = new Set(samples.map((s) => s.labels.operation).filter(Boolean));
    for (const operation of operations) expect(operation).toMatch(/^([a-z_]+|\/[\w/:.-]*)$/);
    const text = samples.map((s) => JSON.stringify(s.labels)).join('\n');
    expect(text).not.toMatch(/ENG-99999|abc123|whk_|metrics:1/);
  });

  it('counts rate-limit refusals, idempotent replays and webhook attempts', () => {
    expect(sum('wsx_rate_limit_refusals_total', { operation: 'list_projects' })).toBe(1);
    expect(sum('wsx_idempotency_replays_total')).toBe(1);
    expect(sum('wsx_webhook_attempts_total', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
  });

  it('counts and times SQL statements', () => {
    expect(sum('wsx_sql_statements_total')).toBeGreaterThan(10);
    expect(sum('wsx_sql_statement_duration_seconds_count')).toBe(sum('wsx_sql_statements_total'));
  });

  it('reads the outbox backlog and its age at scrape time', () => {
    for (const stage of ['dispatch', 'delivery']) {
      expect(sum('wsx_outbox_backlog', { stage })).toBeGreaterThanOrEqual(0);
      expect(sum('wsx_outbox_oldest_age_seconds', { stage })).toBeGreaterThanOrEqual(0);
    }
    expect(samples.some((s) => s.name === 'wsx_outbox_backlog')).toBe(true);
  });

  it('reports the PostgreSQL pool, and only on PostgreSQL', () => {
    const pooled = h.database.dialect === 'postgres';
    expect(samples.some((s) => s.name === 'wsx_pg_pool_connections')).toBe(pooled);
    if (pooled) {
      expect(sum('wsx_pg_pool_connections')).toBeGreaterThanOrEqual(1);
      expect(sum('wsx_pg_pool_idle_connections')).toBeLessThanOrEqual(sum('wsx_pg_pool_connections'));
      expect(sum('wsx_pg_pool_waiting_requests')).toBe(0);
    }
  });

  it("includes prom-client's process metrics", () => {
    expect(sum('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === 'nodejs_heap_size_used_bytes')).toBe(true);
  });

  it('answers the Prometheus text format on GET /metrics and 404 on anything else', async () => {
    const scrape = await fetch(metricsUrl(h));
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect((await fetch(metricsUrl(h, '/'))).status).toBe(404);
    expect((await fetch(metricsUrl(h, '/api/external'))).status).toBe(404);
    expect((await fetch(metricsUrl(h), { method: 'POST' })).status).toBe(404);
  });
});

describe('metrics off by default', () => {
  it('opens no listener without WSX_METRICS_PORT', async () => {
    const h = await startHarness([ACME]);
    try {
      expect((await h.call('GET', '/healthz')).status).toBe(200);
      expect(h.app.metricsServer).toBeUndefined();
    } finally {
      await h.close();
    }
  });
});
