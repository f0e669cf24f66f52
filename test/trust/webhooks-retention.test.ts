import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { nowIso } from '../../src/core/clock.js';
import { claimAttempts, runAttempt } from '../../src/events/attempts.js';
import { fanOutEvents } from '../../src/events/fan-out.js';
import { newHolder } from '../../src/events/holder.js';
import { pruneWebhookHistory } from '../../src/events/retention.js';
import { buildApp } from '../../src/server/app.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, webhookTestConfig, type Receiver } from '../support/webhook-receiver.js';
import { countRows } from '../support/database.js';

/**
 * Bounded growth: finished outbox events, jobs and delivery records older than the
 * retention are pruned in small batches, and a subscription keeps at most its newest
 * delivery records. Deliveries are driven by direct calls and time is passed in, so
 * nothing depends on timing.
 */

const SETTLE = { timeout: 15_000 };
const DAY_MS = 86_400_000;

describe('pruning the webhook history', () => {
  let h: Harness;
  let receiver: Receiver;
  let projects: Record<string, string>;
  let kept: string;
  let held: string;
  const config = { ...loadConfig({}), rateLimitPerMinute: 0, ...webhookTestConfig() };
  const holder = newHolder();

  const rename = async (name: string) =>
    expect(
      (await h.call('PATCH', `/api/external/projects/${projects['ENG/API']}`, { token: TOKENS.admin, body: { name } }))
        .status,
    ).toBe(200);
  /** Fans out and sends everything due, as the dispatcher would. */
  const drain = async () => {
    await fanOutEvents(h.database, 100, nowIso());
    for (;;) {
      const attempts = await claimAttempts(h.database, config, { limit: 50, holder, nowMs: Date.now() });
      if (attempts.length === 0) return;
      for (const attempt of attempts) await runAttempt(h.database, config, attempt, holder);
    }
  };
  const count = (table: 'outbox_events' | 'webhook_jobs' | 'webhook_deliveries') => countRows(h.database.db, table);
  const deliveries = async (webhookId: string) =>
    (await h.call('GET', `/api/external/webhooks/${webhookId}/deliveries?limit=200`, { token: TOKENS.admin })).body
      .deliveries as Array<{ deliveryId: string }>;

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startHarness([ACME], config);
    projects = (await h.apply(ACME)).projects;
    const { webhooks } = await h.apply({
      workspace: ACME.workspace,
      webhooks: [
        { url: receiver.url('/kept'), events: ['project.updated'] },
        { url: receiver.url('/held'), events: ['project.updated'] },
      ],
    });
    kept = webhooks[receiver.url('/kept')];
    held = webhooks[receiver.url('/held')];
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it('prunes nothing younger than the retention', async () => {
    for (const name of ['One', 'Two', 'Three']) await rename(name);
    await drain();
    expect(await deliveries(kept)).toHaveLength(3);
    expect(await pruneWebhookHistory(h.database, { nowMs: Date.now(), retentionDays: 30 })).toEqual({
      outboxEvents: 0,
      jobs: 0,
      deliveries: 0,
    });
    expect(await count('outbox_events')).toBe(3);
  });

  it('prunes finished events, jobs and delivery records past the retention, in batches, and keeps what is still queued', async () => {
    // The held subscription is paused with one job queued: that job and its event stay.
    await rename('Four');
    await fanOutEvents(h.database, 100, nowIso());
    await h.apply({
      workspace: ACME.workspace,
      webhooks: [{ url: receiver.url('/held'), events: ['project.updated'], active: false }],
    });
    await drain();
    const undispatched = 'Five: recorded, not yet fanned out';
    await rename(undispatched);

    const later = Date.now() + 31 * DAY_MS;
    const pruned = await pruneWebhookHistory(h.database, { nowMs: later, retentionDays: 30, batchSize: 2 });
    expect(pruned).toEqual({ outboxEvents: 3, jobs: 7, deliveries: 7 });
    expect(await deliveries(kept)).toEqual([]);
    expect(await deliveries(held)).toEqual([]);
    const jobs = await h.database.db.selectFrom('webhook_jobs').select(['webhook_id', 'state']).execute();
    expect(jobs).toEqual([{ webhook_id: held, state: 'pending' }]);
    const events = await h.database.db.selectFrom('outbox_events').select('payload').orderBy('id').execute();
    expect(events.map((e) => JSON.parse(e.payload).data.project.name)).toEqual(['Four', undispatched]);
    expect(await pruneWebhookHistory(h.database, { nowMs: later, retentionDays: 30, batchSize: 2 })).toEqual({
      outboxEvents: 0,
      jobs: 0,
      deliveries: 0,
    });
  });

  it('keeps at most the newest N delivery records of each subscription', async () => {
    for (const name of ['Six', 'Seven', 'Eight', 'Nine', 'Ten']) await rename(name);
    await drain();
    const before = await deliveries(kept);
    expect(before.length).toBeGreaterThanOrEqual(5);
    const pruned = await pruneWebhookHistory(h.database, {
      nowMs: Date.now(),
      retentionDays: 30,
      keepPerSubscription: 3,
      batchSize: 2,
    });
    expect(pruned.deliveries).toBe(before.length - 3);
    expect(await deliveries(kept)).toEqual(before.slice(0, 3));
    const page = await h.call('GET', `/api/external/webhooks/${kept}/deliveries?limit=2`, { token: TOKENS.admin });
    expect(page.status).toBe(200);
    expect(page.body.pageInfo.hasMore).toBe(true);
  });

  it('runs with the background workers, with the retention from WSX_RETENTION_DAYS', async () => {
    const old = new Date(Date.now() - 40 * DAY_MS).toISOString();
    await h.database.db
      .updateTable('outbox_events')
      .set({ created_at: old, dispatched_at: old })
      .where('dispatched_at', 'is not', null)
      .execute();
    await h.database.db.updateTable('webhook_jobs').set({ updated_at: old }).where('due_at', 'is', null).execute();
    await h.database.db.updateTable('webhook_deliveries').set({ created_at: old }).execute();
    expect(await count('webhook_deliveries')).toBeGreaterThan(0);

    const retention = loadConfig({ WSX_RETENTION_DAYS: '35' });
    expect(retention.retentionDays).toBe(35);
    const server = await buildApp({
      database: h.database,
      config: { ...config, retentionDays: retention.retentionDays, webhookMaxAttempts: 1 },
      workers: true,
    });
    await server.ready();
    try {
      await expect.poll(() => count('webhook_deliveries'), SETTLE).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('reads WSX_RETENTION_DAYS as a whole number of days, at least 1, default 30', () => {
    expect(loadConfig({}).retentionDays).toBe(30);
    expect(() => loadConfig({ WSX_RETENTION_DAYS: '0' })).toThrow(/WSX_RETENTION_DAYS/);
    expect(() => loadConfig({ WSX_RETENTION_DAYS: 'soon' })).toThrow(/WSX_RETENTION_DAYS/);
  });
});
