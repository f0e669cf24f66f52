import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { nowIso } from '../../../src/core/clock.js';
import { claimAttempts, runAttempt } from '../../../src/events/attempts.js';
import { fanOutEvents } from '../../../src/events/fan-out.js';
import { newHolder } from '../../../src/events/holder.js';
import { disableIfFailingTooLong } from '../../../src/modules/webhooks/auto-disable.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { patFor, startHarness, type Harness } from '../../support/harness.js';
import {
  startReceiver,
  webhookTestConfig,
  type Receiver,
  type ReceivedWebhook,
} from '../../support/webhook-receiver.js';

/**
 * Ping, redelivery and auto-disable, against a real receiver. The dispatcher's steps are
 * called directly with a clock the test moves (as the retention and recovery tests do), so
 * three days of failures take no time and nothing depends on timing.
 */

const API = '/api/external';
const HOUR_MS = 3_600_000;
const NARROW = patFor('narrow');

describe('webhook operations', () => {
  let h: Harness;
  let receiver: Receiver;
  let acme: Record<string, string>;
  const config = {
    ...loadConfig({}),
    rateLimitPerMinute: 0,
    ...webhookTestConfig({ webhookMaxAttempts: 2, webhookDisableAfterHours: 72 }),
  };
  const holder = newHolder();
  /** The dispatcher's clock: never behind the wall clock, moved forward by the tests. */
  let clock = Date.now();
  const later = (ms: number) => {
    clock = Math.max(clock, Date.now()) + ms;
    return clock;
  };

  /** Fans out and sends everything due at the clock, as the dispatcher would. */
  const drain = async () => {
    const nowMs = later(0);
    await fanOutEvents(h.database, 100, nowIso(nowMs));
    for (;;) {
      const attempts = await claimAttempts(h.database, config, { limit: 50, holder, nowMs });
      if (attempts.length === 0) return;
      for (const attempt of attempts)
        await runAttempt(h.database, config, attempt, holder, () => nowMs, disableIfFailingTooLong);
    }
  };
  const subscribe = async (path: string, events: string[], token = TOKENS.admin) => {
    const res = await h.call('POST', `${API}/webhooks`, { token, body: { url: receiver.url(path), events } });
    expect(res.status).toBe(201);
    return res.body.webhook as { webhookId: string; secret: string };
  };
  const getWebhook = async (webhookId: string, token = TOKENS.admin) =>
    (await h.call('GET', `${API}/webhooks/${webhookId}`, { token })).body.webhook;
  const deliveriesOf = async (webhookId: string, token = TOKENS.admin) =>
    (await h.call('GET', `${API}/webhooks/${webhookId}/deliveries`, { token })).body.deliveries as Array<{
      deliveryId: string;
      eventId: string;
      eventType: string;
      attempt: number;
      status: string;
    }>;
  const rename = async (projectId: string, name: string, token = TOKENS.admin) =>
    expect((await h.call('PATCH', `${API}/projects/${projectId}`, { token, body: { name } })).status).toBe(200);
  const verify = (secret: string, message: ReceivedWebhook) =>
    new Webhook(secret).verify(message.body, message.headers) as ReceivedWebhook['json'];
  const at = (path: string) => receiver.received.filter((message) => message.path === path);

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startHarness([ACME, GLOBEX], config);
    acme = (await h.apply(ACME)).projects;
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  describe('ping', () => {
    it('sends a signed webhook.ping to that subscription only, whatever its events, and logs it', async () => {
      const hook = await subscribe('/ping', ['issue.created']);
      await subscribe('/ping-bystander', ['*']);
      const res = await h.call('POST', `${API}/webhooks/${hook.webhookId}/ping`, { token: TOKENS.admin });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        webhookId: hook.webhookId,
        eventId: expect.stringMatching(/^evt_/),
        eventType: 'webhook.ping',
        attempt: 1,
      });
      await drain();

      const [ping] = at('/ping');
      expect(verify(hook.secret, ping)).toEqual(ping.json);
      expect(ping.headers['webhook-id']).toBe(res.body.eventId);
      expect(ping.json).toMatchObject({
        id: res.body.eventId,
        type: 'webhook.ping',
        actor: { kind: 'api_token', id: 'api-token:admin' },
        data: { webhook: await getWebhook(hook.webhookId) },
      });
      expect(at('/ping-bystander')).toEqual([]);
      expect(await deliveriesOf(hook.webhookId)).toEqual([
        expect.objectContaining({
          eventId: res.body.eventId,
          eventType: 'webhook.ping',
          attempt: 1,
          status: 'succeeded',
        }),
      ]);
      // Not an event of the workspace's log: the change feed does not list it.
      const feed = await h.call('GET', `${API}/events`, { token: TOKENS.admin });
      expect(feed.status).toBe(200);
      expect(feed.body.events.map((event: { type: string }) => event.type)).not.toContain('webhook.ping');
    });

    it('pings an inactive subscription too, and retries a failed ping like any delivery', async () => {
      receiver.respond((path, n) => (path === '/ping-off' && n === 1 ? 503 : 200));
      const hook = await subscribe('/ping-off', ['project.updated']);
      expect(
        (await h.call('PATCH', `${API}/webhooks/${hook.webhookId}`, { token: TOKENS.admin, body: { active: false } }))
          .status,
      ).toBe(200);
      const res = await h.call('POST', `${API}/webhooks/${hook.webhookId}/ping`, { token: TOKENS.admin });
      expect(res.status).toBe(202);
      await drain();
      later(60_000);
      await drain();

      const [failed, retried] = at('/ping-off');
      expect(retried.headers['webhook-id']).toBe(failed.headers['webhook-id']);
      expect(verify(hook.secret, retried).data.webhook).toMatchObject({ webhookId: hook.webhookId, active: false });
      expect((await deliveriesOf(hook.webhookId)).map((d) => [d.attempt, d.status])).toEqual([
        [2, 'succeeded'],
        [1, 'failed'],
      ]);
    });

    it('answers WEBHOOK_NOT_FOUND for a subscription the caller may not manage', async () => {
      const hook = await subscribe('/ping-private', ['*']);
      for (const [id, token] of [
        ['whk_missing', TOKENS.admin],
        [hook.webhookId, TOKENS.bot],
      ]) {
        const res = await h.call('POST', `${API}/webhooks/${id}/ping`, { token });
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('WEBHOOK_NOT_FOUND');
      }
    });
  });

  describe('redelivery', () => {
    it('sends the same event again with the same webhook-id and body, as a new attempt in the log', async () => {
      const hook = await subscribe('/again', ['project.updated']);
      await rename(acme['ENG/API'], 'Public API (redelivered)');
      await drain();
      const [delivered] = await deliveriesOf(hook.webhookId);
      expect(delivered).toMatchObject({ attempt: 1, status: 'succeeded' });

      const res = await h.call(
        'POST',
        `${API}/webhooks/${hook.webhookId}/deliveries/${delivered.deliveryId}/redeliver`,
        {
          token: TOKENS.admin,
        },
      );
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        webhookId: hook.webhookId,
        eventId: delivered.eventId,
        eventType: 'project.updated',
        attempt: 2,
      });
      await drain();

      const [first, second] = at('/again');
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(second.headers['webhook-id']).toBe(delivered.eventId);
      expect(second.body).toBe(first.body);
      expect(verify(hook.secret, second)).toEqual(first.json);
      const log = await deliveriesOf(hook.webhookId);
      expect(log.map((d) => [d.eventId, d.attempt, d.status])).toEqual([
        [delivered.eventId, 2, 'succeeded'],
        [delivered.eventId, 1, 'succeeded'],
      ]);
      expect(log[0].deliveryId).not.toBe(delivered.deliveryId);
    });

    it('gives an event whose attempts all failed exactly one more attempt', async () => {
      receiver.respond((path, n) => (path === '/exhausted' && n <= 2 ? 500 : 200));
      const hook = await subscribe('/exhausted', ['project.updated']);
      await rename(acme['ENG/WEB'], 'Website (exhausted)');
      await drain();
      later(60_000);
      await drain();
      const [last] = await deliveriesOf(hook.webhookId);
      expect(last).toMatchObject({ attempt: 2, status: 'failed' });

      const path = `${API}/webhooks/${hook.webhookId}/deliveries/${last.deliveryId}/redeliver`;
      expect((await h.call('POST', path, { token: TOKENS.admin })).body.attempt).toBe(3);
      await drain();
      expect((await deliveriesOf(hook.webhookId)).map((d) => [d.attempt, d.status])).toEqual([
        [3, 'succeeded'],
        [2, 'failed'],
        [1, 'failed'],
      ]);
      expect(at('/exhausted')).toHaveLength(3);
    });

    it('answers 409 while an attempt of the event is under way', async () => {
      const hook = await subscribe('/busy', ['project.updated']);
      await rename(acme['ENG/API'], 'Public API (busy)');
      await drain();
      const [delivered] = await deliveriesOf(hook.webhookId);
      const path = `${API}/webhooks/${hook.webhookId}/deliveries/${delivered.deliveryId}/redeliver`;
      expect((await h.call('POST', path, { token: TOKENS.admin })).status).toBe(202);

      const nowMs = later(0);
      const [attempt] = await claimAttempts(h.database, config, { limit: 50, holder, nowMs });
      const busy = await h.call('POST', path, { token: TOKENS.admin });
      expect(busy.status).toBe(409);
      expect(busy.body).toMatchObject({ code: 'WEBHOOK_DELIVERY_IN_PROGRESS' });
      await runAttempt(h.database, config, attempt, holder, () => nowMs, disableIfFailingTooLong);
      expect((await h.call('POST', path, { token: TOKENS.admin })).status).toBe(202);
      await drain();
      expect((await deliveriesOf(hook.webhookId)).map((d) => d.attempt)).toEqual([3, 2, 1]);
    });

    it('answers WEBHOOK_DELIVERY_NOT_FOUND for a delivery that is not of this subscription', async () => {
      const hook = await subscribe('/lost', ['project.updated']);
      const other = await subscribe('/lost-other', ['project.updated']);
      await rename(acme['ENG/API'], 'Public API (lost)');
      await drain();
      const [delivered] = await deliveriesOf(other.webhookId);
      for (const [webhookId, deliveryId] of [
        [hook.webhookId, 'dlv_missing'],
        [hook.webhookId, delivered.deliveryId],
      ]) {
        const res = await h.call('POST', `${API}/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`, {
          token: TOKENS.admin,
        });
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ code: 'WEBHOOK_DELIVERY_NOT_FOUND', details: { webhookId, deliveryId } });
      }
      const hidden = await h.call(
        'POST',
        `${API}/webhooks/${other.webhookId}/deliveries/${delivered.deliveryId}/redeliver`,
        { token: TOKENS.bot },
      );
      expect(hidden.body.code).toBe('WEBHOOK_NOT_FOUND');
    });
  });

  describe('auto-disable', () => {
    let globex: Record<string, string>;
    const failing = new Set<string>();

    beforeAll(async () => {
      globex = (
        await h.apply({
          ...GLOBEX,
          tokens: [...GLOBEX.tokens, { name: 'narrow', secret: NARROW, projects: ['ENG/API'] }],
        })
      ).projects;
      receiver.respond((path) => (failing.has(path) ? 500 : 200));
    });

    /** One event whose every attempt fails at the receivers in `failing`. */
    const failOnce = async (label: string) => {
      await rename(globex['ENG/API'], `Globex API (${label})`, TOKENS.globex);
      await drain();
      later(60_000);
      await drain();
    };

    it('deactivates a subscription failing for WSX_WEBHOOK_DISABLE_AFTER_HOURS and tells the others', async () => {
      failing.add('/down');
      const down = await subscribe('/down', ['*'], TOKENS.globex);
      const watcher = await subscribe('/watcher', ['webhook.disabled'], TOKENS.globex);
      // Made by a token that sees one project: it may not manage the failing subscription.
      await subscribe('/narrow-watcher', ['webhook.disabled'], NARROW);

      await failOnce('first failure');
      later(71 * HOUR_MS);
      await failOnce('71 hours on');
      expect(await getWebhook(down.webhookId, TOKENS.globex)).toMatchObject({
        active: true,
        disabledReason: null,
        disabledAt: null,
      });

      later(HOUR_MS);
      await failOnce('72 hours on');
      const disabled = await getWebhook(down.webhookId, TOKENS.globex);
      expect(disabled).toMatchObject({ active: false, disabledReason: 'consecutive_failures' });
      expect(disabled.disabledAt).toEqual(expect.any(String));

      await drain();
      const [told] = at('/watcher');
      expect(verify(watcher.secret, told)).toEqual(told.json);
      expect(told.json).toMatchObject({
        type: 'webhook.disabled',
        actor: { kind: 'system', id: 'wsx' },
        data: { webhook: disabled },
      });
      expect(at('/watcher')).toHaveLength(1);
      expect(at('/narrow-watcher')).toEqual([]);
      expect(at('/down').map((m) => m.json.type)).not.toContain('webhook.disabled');

      // The change feed shows it to those who may manage every subscription, and to no one else.
      const feedOf = async (token: string) =>
        (await h.call('GET', `${API}/events?types=webhook.disabled`, { token })).body.events;
      expect(await feedOf(TOKENS.globex)).toEqual([told.json]);
      expect(await feedOf(NARROW)).toEqual([]);

      // Nothing more is sent to it, but a redelivery asked for still is (it fails here).
      const [last] = await deliveriesOf(down.webhookId, TOKENS.globex);
      await failOnce('while disabled');
      expect((await deliveriesOf(down.webhookId, TOKENS.globex))[0].deliveryId).toBe(last.deliveryId);
      const again = await h.call('POST', `${API}/webhooks/${down.webhookId}/deliveries/${last.deliveryId}/redeliver`, {
        token: TOKENS.globex,
      });
      expect(again.status).toBe(202);
      await drain();
      expect((await deliveriesOf(down.webhookId, TOKENS.globex))[0]).toMatchObject({
        eventId: last.eventId,
        attempt: again.body.attempt,
        status: 'failed',
      });
      expect(at('/watcher')).toHaveLength(1);

      // Activating it again clears the reason, and its streak starts over.
      const enabled = await h.call('PATCH', `${API}/webhooks/${down.webhookId}`, {
        token: TOKENS.globex,
        body: { active: true },
      });
      expect(enabled.body.webhook).toMatchObject({ active: true, disabledReason: null, disabledAt: null });
      await failOnce('after re-activation');
      expect(await getWebhook(down.webhookId, TOKENS.globex)).toMatchObject({ active: true });
      expect((await h.call('DELETE', `${API}/webhooks/${down.webhookId}`, { token: TOKENS.globex })).status).toBe(204);
    });

    it('starts the streak over after a success', async () => {
      failing.add('/flaky');
      const flaky = await subscribe('/flaky', ['project.updated'], TOKENS.globex);
      await failOnce('streak one');
      later(HOUR_MS);
      failing.delete('/flaky');
      await failOnce('a success');
      failing.add('/flaky');
      later(HOUR_MS);
      await failOnce('streak two begins');
      later(71 * HOUR_MS);
      await failOnce('73 hours after streak one began');
      expect(await getWebhook(flaky.webhookId, TOKENS.globex)).toMatchObject({ active: true, disabledReason: null });
      later(HOUR_MS);
      await failOnce('72 hours into streak two');
      expect(await getWebhook(flaky.webhookId, TOKENS.globex)).toMatchObject({
        active: false,
        disabledReason: 'consecutive_failures',
      });
    });
  });
});
