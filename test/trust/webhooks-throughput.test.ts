import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { nowIso } from '../../src/core/clock.js';
import { claimAttempts } from '../../src/events/attempts.js';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { fanOutEvents } from '../../src/events/fan-out.js';
import { newHolder } from '../../src/events/holder.js';
import { InFlightLimits, MAX_LIMIT, MIN_LIMIT, SLOW_ANSWER_MS } from '../../src/events/in-flight-limits.js';
import { SUBSCRIPTION_CONCURRENCY } from '../../src/events/scheduling.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, webhookTestConfig, type Receiver } from '../support/webhook-receiver.js';

/**
 * Each subscription's in-flight limit is learnt from its receiver: it grows while the
 * receiver answers fast and shrinks when it fails or answers slowly, so a fast receiver is
 * sent many deliveries at once while a failing one holds a single sender and holds up no
 * one else. Asserted on the limiter's state and on what a claim takes, never on time.
 */

const SETTLE = { timeout: 15_000 };
const fast = { ok: true, durationMs: 5 };
const failed = { ok: false, durationMs: 5 };
const slow = { ok: true, durationMs: SLOW_ANSWER_MS };

describe('the in-flight limit of a subscription', () => {
  it('starts at the starting share, grows by one per fast answer, up to its maximum', () => {
    const limits = new InFlightLimits();
    expect(limits.limitOf('whk_a')).toBe(SUBSCRIPTION_CONCURRENCY);
    expect(limits.observe('whk_a', fast)).toBe(SUBSCRIPTION_CONCURRENCY + 1);
    for (let n = 0; n < MAX_LIMIT * 2; n += 1) limits.observe('whk_a', fast);
    expect(limits.limitOf('whk_a')).toBe(MAX_LIMIT);
    expect(limits.largest()).toBe(MAX_LIMIT);
    expect(limits.limitOf('whk_b')).toBe(SUBSCRIPTION_CONCURRENCY);
  });

  it('halves on each failure, down to one', () => {
    const limits = new InFlightLimits();
    for (let n = 0; n < 14; n += 1) limits.observe('whk_a', fast);
    expect(limits.observe('whk_a', failed)).toBe(8);
    expect(limits.observe('whk_a', failed)).toBe(4);
    expect(limits.observe('whk_a', failed)).toBe(2);
    expect(limits.observe('whk_a', failed)).toBe(MIN_LIMIT);
    expect(limits.observe('whk_a', failed)).toBe(MIN_LIMIT);
    expect(limits.observe('whk_a', fast)).toBe(MIN_LIMIT + 1);
  });

  it('halves on a slow success, but not below the starting share, and a slow answer never earns a slot', () => {
    const limits = new InFlightLimits();
    for (let n = 0; n < 14; n += 1) limits.observe('whk_a', fast);
    expect(limits.observe('whk_a', slow)).toBe(8);
    expect(limits.observe('whk_a', slow)).toBe(4);
    expect(limits.observe('whk_a', slow)).toBe(SUBSCRIPTION_CONCURRENCY);
    expect(limits.observe('whk_a', slow)).toBe(SUBSCRIPTION_CONCURRENCY);
    limits.observe('whk_a', failed);
    expect(limits.observe('whk_a', slow)).toBe(MIN_LIMIT);
  });
});

describe('adaptive in-flight limits in the dispatcher', () => {
  let h: Harness;
  let receiver: Receiver;
  let apiProject: string;
  const config = { ...loadConfig({}), rateLimitPerMinute: 0, ...webhookTestConfig({ webhookMaxAttempts: 6 }) };
  const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
  const made: string[] = [];

  const subscribe = async (path: string) => {
    const res = await h.call('POST', '/api/external/webhooks', {
      token: TOKENS.admin,
      body: { url: receiver.url(path), events: ['project.updated'] },
    });
    expect(res.status).toBe(201);
    made.push(res.body.webhook.webhookId);
    return res.body.webhook.webhookId as string;
  };
  const renameProject = async (times: number, prefix: string) => {
    for (let n = 0; n < times; n += 1) {
      const res = await h.call('PATCH', `/api/external/projects/${apiProject}`, {
        token: TOKENS.admin,
        body: { name: `${prefix} ${n}` },
      });
      expect(res.status).toBe(200);
    }
  };
  const attemptsOf = async (webhookId: string) => {
    const res = await h.call('GET', `/api/external/webhooks/${webhookId}/deliveries?limit=200`, {
      token: TOKENS.admin,
    });
    expect(res.status).toBe(200);
    return res.body.deliveries as Array<{ status: string; responseStatus: number | null }>;
  };
  const withDispatcher = async (work: (dispatcher: Dispatcher) => Promise<void>) => {
    const dispatcher = new Dispatcher(h.database, config, quiet);
    dispatcher.start();
    try {
      await work(dispatcher);
    } finally {
      await dispatcher.stop();
    }
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startHarness([ACME], config);
    apiProject = (await h.apply(ACME)).projects['ENG/API'];
  });
  afterEach(async () => {
    // Each test's subscriptions go with it (and their queued deliveries), so the next one's events reach only its own.
    for (const webhookId of made.splice(0))
      expect((await h.call('DELETE', `/api/external/webhooks/${webhookId}`, { token: TOKENS.admin })).status).toBe(204);
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it('grows the limit of a receiver that answers every delivery at once, up to the maximum', async () => {
    const webhookId = await subscribe('/fast');
    const events = MAX_LIMIT + 8;
    await renameProject(events, 'Fast');
    await withDispatcher(async (dispatcher) => {
      const received = await receiver.waitFor('/fast', events);
      expect(received.every((message) => message.json.type === 'project.updated')).toBe(true);
      await expect.poll(() => dispatcher.limits.limitOf(webhookId), SETTLE).toBe(MAX_LIMIT);
    });
    const attempts = await attemptsOf(webhookId);
    expect(attempts).toHaveLength(events);
    expect(attempts.every((attempt) => attempt.status === 'succeeded' && attempt.responseStatus === 200)).toBe(true);
  });

  it('shrinks the limit of a failing receiver to one, and grows it again once it recovers', async () => {
    const webhookId = await subscribe('/failing');
    receiver.respond((path) => (path === '/failing' ? 500 : 200));
    try {
      await renameProject(3, 'Failing');
      await withDispatcher(async (dispatcher) => {
        await expect.poll(() => dispatcher.limits.limitOf(webhookId), SETTLE).toBe(MIN_LIMIT);
        const attempts = await attemptsOf(webhookId);
        expect(attempts.length).toBeGreaterThan(0);
        expect(attempts.every((a) => a.status !== 'succeeded')).toBe(true);
        // The receiver recovers: the retries succeed, and each fast success earns a slot back.
        receiver.respond(() => 200);
        await expect
          .poll(async () => (await attemptsOf(webhookId)).filter((a) => a.status === 'succeeded').length, SETTLE)
          .toBe(3);
        expect(dispatcher.limits.limitOf(webhookId)).toBeGreaterThan(MIN_LIMIT);
      });
    } finally {
      receiver.respond(() => 200);
    }
  });

  it('claims a healthy subscription up to its grown limit beside a failing one held to a single attempt', async () => {
    const healthy = await subscribe('/healthy');
    const failing = await subscribe('/broken');
    await renameProject(20, 'Beside');
    await fanOutEvents(h.database, 100, nowIso());
    const limits = new InFlightLimits();
    for (let n = 0; n < 10; n += 1) limits.observe(healthy, fast);
    limits.observe(failing, failed);
    expect(limits.limitOf(healthy)).toBe(SUBSCRIPTION_CONCURRENCY + 10);
    expect(limits.limitOf(failing)).toBe(MIN_LIMIT);

    const claimed = await claimAttempts(h.database, config, {
      limit: 100,
      holder: newHolder(),
      nowMs: Date.now(),
      limits,
    });
    const of = (webhookId: string) => claimed.filter((attempt) => attempt.job.webhook_id === webhookId).length;
    expect(of(healthy)).toBe(SUBSCRIPTION_CONCURRENCY + 10);
    expect(of(failing)).toBe(MIN_LIMIT);
    // The claimed jobs were leased to a holder that will never send them; deleting the
    // subscriptions (afterEach) takes them away.
  });

  it('delivers everything to a healthy receiver while a failing one keeps failing', async () => {
    const healthy = await subscribe('/steady');
    const failing = await subscribe('/down');
    receiver.respond((path) => (path === '/down' ? 503 : 200));
    try {
      const events = 30;
      await renameProject(events, 'Steady');
      await withDispatcher(async (dispatcher) => {
        await receiver.waitFor('/steady', events);
        await expect.poll(() => dispatcher.limits.limitOf(failing), SETTLE).toBe(MIN_LIMIT);
        expect(dispatcher.limits.limitOf(healthy)).toBeGreaterThan(SUBSCRIPTION_CONCURRENCY);
      });
      const steady = await attemptsOf(healthy);
      expect(steady.filter((a) => a.status === 'succeeded')).toHaveLength(events);
      expect((await attemptsOf(failing)).every((a) => a.status !== 'succeeded')).toBe(true);
    } finally {
      receiver.respond(() => 200);
    }
  });
});
