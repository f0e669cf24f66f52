import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { claimAttempts } from '../../src/events/attempts.js';
import { newHolder } from '../../src/events/holder.js';
import { SUBSCRIPTION_CONCURRENCY, WORKSPACE_CONCURRENCY } from '../../src/events/scheduling.js';
import { ACME, GLOBEX, TOKENS } from '../support/fixtures.js';
import type { Harness } from '../support/harness.js';
import { startReceiver, startWorkerHarness, webhookTestConfig, type Receiver } from '../support/webhook-receiver.js';

/**
 * One workspace's stuck receiver must not hold up another workspace's deliveries: attempts
 * are capped per subscription and per workspace, and due jobs are taken from workspaces in
 * turn. The stuck receiver here accepts connections and never answers.
 */

const SETTLE = { timeout: 15_000 };

interface StuckReceiver {
  url: (path: string) => string;
  /** Requests received (and never answered), by path. */
  open: Map<string, number>;
  total: () => number;
  close: () => Promise<void>;
}

async function startStuckReceiver(): Promise<StuckReceiver> {
  const open = new Map<string, number>();
  const server: Server = createServer((req: IncomingMessage) => {
    open.set(req.url ?? '/', (open.get(req.url ?? '/') ?? 0) + 1);
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    open,
    total: () => [...open.values()].reduce((sum, n) => sum + n, 0),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhook delivery fairness', () => {
  let h: Harness;
  let receiver: Receiver;
  let stuck: StuckReceiver;
  let acme: { workspaceId: string; projects: Record<string, string> };
  let globex: { workspaceId: string; projects: Record<string, string> };
  const config = webhookTestConfig({ webhookMaxAttempts: 1 });

  const deliveriesOf = (workspaceId: string) =>
    h.database.db
      .selectFrom('webhook_deliveries')
      .select(['webhook_id', 'status'])
      .where('workspace_id', '=', workspaceId)
      .execute();

  beforeAll(async () => {
    receiver = await startReceiver();
    stuck = await startStuckReceiver();
    h = await startWorkerHarness([ACME, GLOBEX], config);
    acme = await h.apply(ACME);
    globex = await h.apply(GLOBEX);
  });
  afterAll(async () => {
    // Cut the hanging connections first, so the dispatcher's in-flight attempts end now.
    await stuck.close();
    await h.close();
    await receiver.close();
  });

  it("delivers another workspace's event while 25 subscriptions of one workspace hang", async () => {
    for (let n = 0; n < 25; n += 1) {
      const res = await h.call('POST', '/api/external/webhooks', {
        token: TOKENS.admin,
        body: { url: stuck.url(`/stuck/${n}`), events: ['project.updated'] },
      });
      expect(res.status).toBe(201);
    }
    expect(
      (
        await h.call('PATCH', `/api/external/projects/${acme.projects['ENG/API']}`, {
          token: TOKENS.admin,
          body: { name: 'Everyone hangs' },
        })
      ).status,
    ).toBe(200);
    await expect.poll(() => stuck.total(), SETTLE).toBe(WORKSPACE_CONCURRENCY);

    const globexHook = await h.call('POST', '/api/external/webhooks', {
      token: TOKENS.globex,
      body: { url: receiver.url('/globex'), events: ['project.updated'] },
    });
    expect(globexHook.status).toBe(201);
    expect(
      (
        await h.call('PATCH', `/api/external/projects/${globex.projects['ENG/API']}`, {
          token: TOKENS.globex,
          body: { name: 'Not held up' },
        })
      ).status,
    ).toBe(200);
    const [message] = await receiver.waitFor('/globex', 1);
    expect(message.json.data.project.name).toBe('Not held up');

    // When it arrived, no attempt of the stuck workspace had ended: it did not wait for them.
    const stuckAttempts = await deliveriesOf(acme.workspaceId);
    expect(stuckAttempts).toHaveLength(WORKSPACE_CONCURRENCY);
    expect(stuckAttempts.every((d) => d.status === 'pending')).toBe(true);
    expect(stuck.total()).toBe(WORKSPACE_CONCURRENCY);
    // (The outcome is recorded once the receiver's answer is in, just after it got the request.)
    await expect
      .poll(() => deliveriesOf(globex.workspaceId), SETTLE)
      .toEqual([{ webhook_id: globexHook.body.webhook.webhookId, status: 'succeeded' }]);
  });

  it('runs at most two attempts of one subscription at a time', async () => {
    const hook = await h.call('POST', '/api/external/webhooks', {
      token: TOKENS.globex,
      body: { url: stuck.url('/one-subscription'), events: ['project.updated'] },
    });
    expect(hook.status).toBe(201);
    for (let n = 0; n < 5; n += 1) {
      expect(
        (
          await h.call('PATCH', `/api/external/projects/${globex.projects['ENG/API']}`, {
            token: TOKENS.globex,
            body: { name: `Queued ${n}` },
          })
        ).status,
      ).toBe(200);
    }
    await expect.poll(() => stuck.open.get('/one-subscription') ?? 0, SETTLE).toBe(SUBSCRIPTION_CONCURRENCY);
    await expect
      .poll(
        async () =>
          (
            await h.database.db
              .selectFrom('webhook_jobs')
              .select('id')
              .where('webhook_id', '=', hook.body.webhook.webhookId)
              .execute()
          ).length,
        SETTLE,
      )
      .toBe(5);

    // Three of its jobs are due, yet another claim takes none of them while two are under way.
    const claimed = await claimAttempts(
      h.database,
      { ...loadConfig({}), ...config },
      { limit: 50, holder: newHolder(), nowMs: Date.now() },
    );
    expect(claimed.filter((a) => a.job.webhook_id === hook.body.webhook.webhookId)).toEqual([]);
    const sending = (workspaceId: string) =>
      h.database.db
        .selectFrom('webhook_jobs')
        .select(['webhook_id'])
        .where('workspace_id', '=', workspaceId)
        .where('state', '=', 'sending')
        .where('due_at', '>', new Date().toISOString())
        .execute();
    expect(
      (await sending(globex.workspaceId)).filter((job) => job.webhook_id === hook.body.webhook.webhookId),
    ).toHaveLength(SUBSCRIPTION_CONCURRENCY);
    // The hanging workspace never has more than its share under way, whoever claims.
    expect((await sending(acme.workspaceId)).length).toBeLessThanOrEqual(WORKSPACE_CONCURRENCY);
    expect(stuck.open.get('/one-subscription')).toBe(SUBSCRIPTION_CONCURRENCY);
  });
});
