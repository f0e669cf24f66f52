import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import type { Database } from '../../../src/db/database.js';
import { sendWebhook } from '../../../src/events/delivery.js';
import { buildApp } from '../../../src/server/app.js';
import { applyWorkspaceFile } from '../../../src/modules/workspace-file/apply.js';
import { closeTestDatabase, openTestDatabase } from '../../support/database.js';
import { ACME, TOKENS } from '../../support/fixtures.js';
import { startReceiver, webhookTestConfig, type Receiver } from '../../support/webhook-receiver.js';

/** Durability of the outbox: restarts, several dispatchers on one database, refused receivers, timeouts. */

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

describe('webhook delivery across processes', () => {
  let database: Database;
  let receiver: Receiver;
  let projects: Record<string, string>;
  const config = { ...loadConfig({}), rateLimitPerMinute: 0, ...webhookTestConfig() };
  const apps: Array<Awaited<ReturnType<typeof buildApp>>> = [];

  const startApp = async (workers: boolean) => {
    const app = await buildApp({ database, config, workers });
    apps.push(app);
    await app.ready();
    return app;
  };
  const rename = (app: Awaited<ReturnType<typeof buildApp>>, ref: string, name: string) =>
    app.inject({
      method: 'PATCH',
      url: `/api/external/projects/${projects[ref]}`,
      headers: { authorization: `Bearer ${TOKENS.admin}` },
      payload: { name },
    });

  beforeAll(async () => {
    receiver = await startReceiver();
    database = await openTestDatabase();
    projects = (await applyWorkspaceFile(database.db, ACME)).projects;
  });
  afterEach(async () => {
    while (apps.length) await apps.pop()?.close();
  });
  afterAll(async () => {
    await closeTestDatabase(database);
    await receiver.close();
  });

  it('delivers an event recorded before a restart from the next process on the same database', async () => {
    await applyWorkspaceFile(database.db, {
      workspace: ACME.workspace,
      webhooks: [{ url: receiver.url('/restart'), events: ['project.updated'], secret: SECRET }],
    });
    const before = await startApp(false);
    expect((await rename(before, 'ENG/API', 'Recorded before the restart')).statusCode).toBe(200);
    await before.close();
    expect(receiver.received.filter((r) => r.path === '/restart')).toHaveLength(0);

    await startApp(true);
    const [message] = await receiver.waitFor('/restart', 1);
    expect(new Webhook(SECRET).verify(message.body, message.headers)).toMatchObject({
      type: 'project.updated',
      data: { project: { name: 'Recorded before the restart' } },
    });
  });

  it('lets several dispatchers share one outbox without sending anything twice', async () => {
    await applyWorkspaceFile(database.db, {
      workspace: ACME.workspace,
      webhooks: [{ url: receiver.url('/shared'), events: ['project.updated'], secret: SECRET }],
    });
    const writer = await startApp(false);
    await startApp(true);
    await startApp(true);
    await startApp(true);
    const names = Array.from({ length: 12 }, (_, n) => `Shared ${n}`);
    for (const name of names) expect((await rename(writer, 'ENG/WEB', name)).statusCode).toBe(200);

    await receiver.waitFor('/shared', names.length);
    const jobs = () =>
      database.db
        .selectFrom('webhook_jobs')
        .innerJoin('webhooks', 'webhooks.id', 'webhook_jobs.webhook_id')
        .select('webhook_jobs.state')
        .where('webhooks.url', '=', receiver.url('/shared'))
        .execute();
    await expect.poll(async () => (await jobs()).every((job) => job.state === 'succeeded')).toBe(true);
    const ids = receiver.received.filter((r) => r.path === '/shared').map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(names.length);
    expect(new Set(ids).size).toBe(names.length);
  });
});

describe('receiver address policy at delivery time', () => {
  let database: Database;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await closeTestDatabase(database);
    await receiver.close();
  });

  it('logs a refused loopback receiver as a failed attempt with an error and sends nothing', async () => {
    const { projects, webhooks } = await applyWorkspaceFile(database.db, {
      ...ACME,
      webhooks: [{ url: receiver.url('/private'), events: ['*'], secret: SECRET }],
    });
    const config = { ...loadConfig({}), rateLimitPerMinute: 0, webhookMaxAttempts: 1 };
    const app = await buildApp({ database, config, workers: true });
    try {
      const res = await app.inject({
        method: 'PATCH',
        url: `/api/external/projects/${projects['ENG/API']}`,
        headers: { authorization: `Bearer ${TOKENS.admin}` },
        payload: { name: 'Refused receiver' },
      });
      expect(res.statusCode).toBe(200);
      const deliveries = async () =>
        JSON.parse(
          (
            await app.inject({
              method: 'GET',
              url: `/api/external/webhooks/${webhooks[receiver.url('/private')]}/deliveries`,
              headers: { authorization: `Bearer ${TOKENS.admin}` },
            })
          ).body,
        ).deliveries;
      await expect.poll(async () => (await deliveries()).map((d: any) => d.status)).toEqual(['failed']);
      const [attempt] = await deliveries();
      expect(attempt).toMatchObject({ attempt: 1, eventType: 'project.updated', responseStatus: null });
      expect(attempt.error).toMatch(/127\.0\.0\.1.*(loopback|private)/);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await app.close();
    }
  });
});

describe('a receiver that does not answer', () => {
  it('fails the attempt with a timeout error', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const outcome = await sendWebhook({
        url: `http://127.0.0.1:${port}/slow`,
        headers: {},
        body: '{}',
        allowPrivate: true,
        timeoutMs: 200,
      });
      expect(outcome).toMatchObject({ ok: false, responseStatus: null, error: 'timed out after 0.2 s' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('fails the attempt with the network error when nothing listens', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const outcome = await sendWebhook({
      url: `http://127.0.0.1:${port}/gone`,
      headers: {},
      body: '{}',
      allowPrivate: true,
    });
    expect(outcome).toMatchObject({ ok: false, responseStatus: null, error: expect.stringContaining('ECONNREFUSED') });
  });
});
