import type { Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { sendWebhook } from '../../src/events/delivery.js';
import { useHostLookup } from '../../src/events/receiver-address.js';
import { buildApp } from '../../src/server/app.js';
import { applyWorkspaceFile } from '../../src/modules/workspace-file/apply.js';
import { closeTestDatabase, openTestDatabase } from '../support/database.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

/** How long a poll waits for the dispatcher to catch up (a busy machine is slow, not wrong). */
const SETTLE = { timeout: 15_000 };

/**
 * Receiver host names: resolved before the write transaction opens (a slow DNS answer must
 * not hold the database's write lock), judged by the address policy, and judged again on
 * every delivery because DNS can change. Name resolution is replaced by a stub here, so
 * nothing depends on the network.
 */

const PUBLIC = '93.184.216.34';

/** The database, with a count of the write transactions open at any moment. */
function countingTransactions(db: Kysely<DB>): { db: Kysely<DB>; open: () => number } {
  let open = 0;
  const bind = <T extends object>(target: T, prop: string | symbol) => {
    const value = Reflect.get(target, prop, target) as unknown;
    return typeof value === 'function' ? value.bind(target) : value;
  };
  const counted = new Proxy(db, {
    get(target, prop) {
      if (prop !== 'transaction') return bind(target, prop);
      return () =>
        new Proxy(target.transaction(), {
          get(builder, name) {
            if (name !== 'execute') return bind(builder, name);
            return (run: (trx: Kysely<DB>) => Promise<unknown>) =>
              builder.execute(async (trx) => {
                open += 1;
                try {
                  return await run(trx);
                } finally {
                  open -= 1;
                }
              });
          },
        });
    },
  });
  return { db: counted, open: () => open };
}

describe('receiver host names at subscribe time', () => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let transactions: ReturnType<typeof countingTransactions>;
  let restore: (() => void) | undefined;
  const call = async (method: 'POST' | 'PATCH', url: string, payload: object) => {
    const res = await app.inject({ method, url, headers: { authorization: `Bearer ${TOKENS.admin}` }, payload });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };

  beforeAll(async () => {
    database = await openTestDatabase();
    await applyWorkspaceFile(database.db, ACME);
    transactions = countingTransactions(database.db);
    app = await buildApp({
      database: { ...database, db: transactions.db },
      config: { ...loadConfig({}), rateLimitPerMinute: 0 },
    });
  });
  afterEach(() => {
    restore?.();
    restore = undefined;
  });
  afterAll(async () => {
    await app.close();
    await closeTestDatabase(database);
  });

  it('resolves the host before the write transaction opens, on POST and on PATCH', async () => {
    const lookups: Array<{ host: string; openTransactions: number }> = [];
    restore = useHostLookup(async (host) => {
      lookups.push({ host, openTransactions: transactions.open() });
      return [PUBLIC];
    });
    const made = await call('POST', '/api/external/webhooks', {
      url: 'https://receiver.example.test/hook',
      events: ['*'],
    });
    expect(made.status).toBe(201);
    const path = `/api/external/webhooks/${made.body.webhook.webhookId}`;
    expect((await call('PATCH', path, { url: 'https://other.example.test/hook' })).status).toBe(200);
    expect((await call('PATCH', path, { active: false })).status).toBe(200);
    expect(lookups).toEqual([
      { host: 'receiver.example.test', openTransactions: 0 },
      { host: 'other.example.test', openTransactions: 0 },
    ]);
  });

  it('refuses a name that resolves to any refused address, naming that address', async () => {
    const answers: Record<string, string[]> = {
      'metadata.example.test': ['100.100.100.200'],
      'mixed.example.test': [PUBLIC, '10.0.0.7'],
      'nat64.example.test': ['64:ff9b::7f00:1'],
      localhost: ['127.0.0.1'],
    };
    restore = useHostLookup(async (host) => answers[host] ?? [PUBLIC]);
    for (const [host, address] of [
      ['metadata.example.test', '100.100.100.200'],
      ['mixed.example.test', '10.0.0.7'],
      ['nat64.example.test', '127.0.0.1'],
      ['localhost', 'localhost'],
    ]) {
      const res = await call('POST', '/api/external/webhooks', { url: `https://${host}/hook`, events: ['*'] });
      expect(res.status, host).toBe(400);
      expect(res.body, host).toMatchObject({ code: 'INVALID_WEBHOOK_URL', details: { field: 'url', address } });
    }
  });

  it('accepts a name that does not resolve yet (every delivery checks again)', async () => {
    restore = useHostLookup(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    });
    const res = await call('POST', '/api/external/webhooks', {
      url: 'https://not-yet.example.test/hook',
      events: ['*'],
    });
    expect(res.status).toBe(201);
  });
});

describe('receiver host names at delivery time', () => {
  let database: Database;
  let receiver: Receiver;
  let projects: Record<string, string>;
  let restore: (() => void) | undefined;
  const apps: Array<Awaited<ReturnType<typeof buildApp>>> = [];

  const startApp = async (allowPrivate: boolean) => {
    const app = await buildApp({
      database,
      workers: true,
      config: { ...loadConfig({}), rateLimitPerMinute: 0, webhookMaxAttempts: 1, webhookAllowPrivate: allowPrivate },
    });
    apps.push(app);
    await app.ready();
    return app;
  };
  const inject = async (
    app: Awaited<ReturnType<typeof buildApp>>,
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: object,
  ) => {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${TOKENS.admin}` },
      ...(payload ? { payload } : {}),
    });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    database = await openTestDatabase();
    projects = (await applyWorkspaceFile(database.db, ACME)).projects;
  });
  afterEach(async () => {
    restore?.();
    restore = undefined;
    while (apps.length) await apps.pop()?.close();
  });
  afterAll(async () => {
    await closeTestDatabase(database);
    await receiver.close();
  });

  it('refuses to send when the name resolves to a refused address by the time of delivery', async () => {
    const port = new URL(receiver.url()).port;
    let answer = [PUBLIC];
    restore = useHostLookup(async () => answer);
    const app = await startApp(false);
    const made = await inject(app, 'POST', '/api/external/webhooks', {
      url: `http://flip.example.test:${port}/flip`,
      events: ['project.updated'],
    });
    expect(made.status).toBe(201);
    answer = ['127.0.0.1'];
    expect(
      (
        await inject(app, 'PATCH', `/api/external/projects/${projects['ENG/API']}`, {
          name: 'Renamed after the DNS change',
        })
      ).status,
    ).toBe(200);

    const log = async () =>
      (await inject(app, 'GET', `/api/external/webhooks/${made.body.webhook.webhookId}/deliveries`)).body.deliveries;
    await expect.poll(async () => (await log()).map((d: any) => d.status), SETTLE).toEqual(['failed']);
    const [attempt] = await log();
    expect(attempt).toMatchObject({ attempt: 1, responseStatus: null });
    expect(attempt.error).toBe('receiver address 127.0.0.1 is not a public unicast address (loopback)');
    expect(receiver.received.filter((r) => r.path === '/flip')).toHaveLength(0);
  });

  it('refuses metadata addresses at delivery even when private receivers are allowed', async () => {
    const port = new URL(receiver.url()).port;
    restore = useHostLookup(async () => ['169.254.169.254']);
    await applyWorkspaceFile(database.db, {
      workspace: ACME.workspace,
      webhooks: [{ url: `http://imds.example.test:${port}/imds`, events: ['project.updated'] }],
    });
    const app = await startApp(true);
    const hooks = (await inject(app, 'GET', '/api/external/webhooks?limit=200')).body.webhooks as Array<{
      webhookId: string;
      url: string;
    }>;
    const hook = hooks.find((w) => w.url.endsWith('/imds')) as { webhookId: string };
    expect(
      (
        await inject(app, 'PATCH', `/api/external/projects/${projects['ENG/API']}`, {
          name: 'Renamed for the metadata check',
        })
      ).status,
    ).toBe(200);

    const log = async () =>
      (await inject(app, 'GET', `/api/external/webhooks/${hook.webhookId}/deliveries`)).body.deliveries;
    await expect.poll(async () => (await log()).map((d: any) => d.status), SETTLE).toEqual(['failed']);
    expect((await log())[0].error).toBe(
      'receiver address 169.254.169.254 is not a public unicast address (cloud metadata)',
    );
    expect(receiver.received.filter((r) => r.path === '/imds')).toHaveLength(0);
  });

  it('gives up connecting after the connect timeout, with its own error', async () => {
    restore = useHostLookup(() => new Promise(() => undefined));
    const outcome = await sendWebhook({
      url: 'http://never-answers.example.test/hook',
      headers: {},
      body: '{}',
      allowPrivate: false,
      connectTimeoutMs: 50,
    });
    expect(outcome).toMatchObject({ ok: false, responseStatus: null, error: 'could not connect within 0.05 s' });
  });
});
