import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

const WEBHOOK_KEYS = [
  'active',
  'createdAt',
  'disabledAt',
  'disabledReason',
  'events',
  'updatedAt',
  'url',
  'version',
  'webhookId',
];
const RECEIVER = 'https://hooks.example.test/wsx';

describe('webhook subscriptions', () => {
  let h: Harness;
  const create = (body: unknown, token = TOKENS.admin) => h.call('POST', '/api/external/webhooks', { token, body });

  beforeAll(async () => {
    h = await startHarness([ACME, GLOBEX]);
  });
  afterAll(async () => {
    await h.close();
  });

  it('creates a subscription and shows its secret only in the POST answer', async () => {
    const res = await create({ url: RECEIVER, events: ['project.created', 'issue.created'] });
    expect(res.status).toBe(201);
    const { webhook } = res.body;
    expect(Object.keys(webhook).sort()).toEqual([...WEBHOOK_KEYS, 'secret'].sort());
    expect(webhook).toMatchObject({ url: RECEIVER, events: ['project.created', 'issue.created'], active: true });
    expect(webhook.webhookId).toMatch(/^whk_/);
    expect(webhook.createdAt).toBe(webhook.updatedAt);
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(webhook.secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);

    const one = await h.call('GET', `/api/external/webhooks/${webhook.webhookId}`, { token: TOKENS.admin });
    expect(one.status).toBe(200);
    expect(Object.keys(one.body.webhook).sort()).toEqual(WEBHOOK_KEYS);
    const list = await h.call('GET', '/api/external/webhooks', { token: TOKENS.admin });
    expect(list.status).toBe(200);
    expect(list.body.pageInfo).toMatchObject({ hasMore: false, nextCursor: null });
    const listed = list.body.webhooks.find((w: any) => w.webhookId === webhook.webhookId);
    expect(Object.keys(listed).sort()).toEqual(WEBHOOK_KEYS);
  });

  it('accepts ["*"] and active: false', async () => {
    const res = await create({ url: RECEIVER, events: ['*'], active: false });
    expect(res.status).toBe(201);
    expect(res.body.webhook).toMatchObject({ events: ['*'], active: false });
  });

  it('requires a non-empty list of known event types, or "*" alone', async () => {
    for (const [body, field] of [
      [{ url: RECEIVER }, 'events'],
      [{ url: RECEIVER, events: [] }, 'events'],
      [{ url: RECEIVER, events: 'project.created' }, 'events'],
      [{ url: RECEIVER, events: ['project.created', 'project.exploded'] }, 'events.1'],
      [{ url: RECEIVER, events: [42] }, 'events.0'],
      [{ url: RECEIVER, events: ['*', 'issue.created'] }, 'events'],
    ] as const) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field } });
    }
  });

  it('refuses missing, malformed, non-http and private receiver URLs with INVALID_WEBHOOK_URL', async () => {
    const urls: unknown[] = [
      undefined,
      '',
      '   ',
      42,
      'not a url',
      'ftp://hooks.example.test/x',
      '/relative/path',
      'http://127.0.0.1:9999/hook',
      'http://localhost:8080/hook',
      'http://10.1.2.3/hook',
      'http://172.20.0.1/hook',
      'http://192.168.1.10/hook',
      'http://169.254.169.254/latest',
      'http://[::1]:8080/hook',
      'http://[fd00::1]/hook',
      'http://[fe80::1]/hook',
      'http://0.0.0.0/hook',
      'http://[::ffff:127.0.0.1]/hook',
    ];
    for (const url of urls) {
      const res = await create(url === undefined ? { events: ['*'] } : { url, events: ['*'] });
      expect(res.status, String(url)).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_WEBHOOK_URL', details: { field: 'url' } });
    }
  });

  it('names WSX_WEBHOOK_ALLOW_PRIVATE=1 when refusing a loopback or private receiver, and only then', async () => {
    for (const url of [
      'http://127.0.0.1:9000/wsx',
      'http://localhost:9000/wsx',
      'http://192.168.1.10/hook',
      'http://[fd00::1]/hook',
    ]) {
      const res = await create({ url, events: ['*'] });
      expect(res.body, url).toMatchObject({ code: 'INVALID_WEBHOOK_URL', details: { field: 'url' } });
      expect(res.body.suggestion, url).toBe(
        'For a receiver on this machine or your own network (local development), start the server with WSX_WEBHOOK_ALLOW_PRIVATE=1; otherwise use a URL of a public host.',
      );
    }
    // The setting would not accept these: the suggestion stays the general one.
    for (const url of ['http://169.254.169.254/latest', 'http://[fe80::1]/hook', 'ftp://hooks.example.test/x']) {
      const res = await create({ url, events: ['*'] });
      expect(res.body.code, url).toBe('INVALID_WEBHOOK_URL');
      expect(res.body.suggestion, url).not.toContain('WSX_WEBHOOK_ALLOW_PRIVATE');
    }
  });

  it('refuses unknown fields', async () => {
    const res = await create({ url: RECEIVER, events: ['*'], secret: 'whsec_abc' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { unknownFields: ['secret'] } });
  });

  it('updates url, events and active; an empty PATCH is UNSUPPORTED_ACTION', async () => {
    const { body } = await create({ url: RECEIVER, events: ['project.created'] });
    const path = `/api/external/webhooks/${body.webhook.webhookId}`;
    const res = await h.call('PATCH', path, {
      token: TOKENS.admin,
      body: { url: `${RECEIVER}/v2`, events: ['*'], active: false },
    });
    expect(res.status).toBe(200);
    expect(res.body.webhook).toMatchObject({
      webhookId: body.webhook.webhookId,
      url: `${RECEIVER}/v2`,
      events: ['*'],
      active: false,
    });
    expect(res.body.webhook.secret).toBeUndefined();
    expect((await h.call('GET', path, { token: TOKENS.admin })).body.webhook).toMatchObject({
      url: `${RECEIVER}/v2`,
      active: false,
    });

    const empty = await h.call('PATCH', path, { token: TOKENS.admin, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('UNSUPPORTED_ACTION');
    const badUrl = await h.call('PATCH', path, { token: TOKENS.admin, body: { url: 'http://127.0.0.1/x' } });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.code).toBe('INVALID_WEBHOOK_URL');
    const badEvents = await h.call('PATCH', path, { token: TOKENS.admin, body: { events: [] } });
    expect(badEvents.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'events' } });
    const badActive = await h.call('PATCH', path, { token: TOKENS.admin, body: { active: 'yes' } });
    expect(badActive.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'active' } });
  });

  it('deletes a subscription (204), after which it is WEBHOOK_NOT_FOUND', async () => {
    const { body } = await create({ url: RECEIVER, events: ['*'] });
    const path = `/api/external/webhooks/${body.webhook.webhookId}`;
    const res = await h.call('DELETE', path, { token: TOKENS.admin });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    for (const [method, url] of [
      ['GET', path],
      ['PATCH', path],
      ['DELETE', path],
      ['GET', `${path}/deliveries`],
    ] as const) {
      const gone = await h.call(method, url, {
        token: TOKENS.admin,
        ...(method === 'PATCH' ? { body: { active: true } } : {}),
      });
      expect(gone.status, `${method} ${url}`).toBe(404);
      expect(gone.body).toMatchObject({ code: 'WEBHOOK_NOT_FOUND', details: { webhookId: body.webhook.webhookId } });
    }
  });

  it('lists deliveries as a paginated list (empty before any event)', async () => {
    const { body } = await create({ url: RECEIVER, events: ['*'] });
    const res = await h.call('GET', `/api/external/webhooks/${body.webhook.webhookId}/deliveries`, {
      token: TOKENS.admin,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deliveries: [], pageInfo: { hasMore: false, nextCursor: null, limit: 50 } });
  });

  it('paginates subscriptions newest first', async () => {
    const first = await h.call('GET', '/api/external/webhooks?limit=2', { token: TOKENS.admin });
    expect(first.body.webhooks).toHaveLength(2);
    expect(first.body.pageInfo.hasMore).toBe(true);
    const second = await h.call('GET', `/api/external/webhooks?limit=2&cursor=${first.body.pageInfo.nextCursor}`, {
      token: TOKENS.admin,
    });
    expect(second.status).toBe(200);
    const ids = [...first.body.webhooks, ...second.body.webhooks].map((w: any) => w.webhookId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0] > ids[1]).toBe(true);
  });

  it('belongs to its creator: credentials that see every project manage it too, to the others it does not exist', async () => {
    const { body } = await create({ url: RECEIVER, events: ['*'] });
    const path = `/api/external/webhooks/${body.webhook.webhookId}`;
    for (const token of [TOKENS.admin, TOKENS.alice]) {
      expect((await h.call('GET', path, { token })).status).toBe(200);
      const list = await h.call('GET', '/api/external/webhooks?limit=200', { token });
      expect(list.body.webhooks.map((w: any) => w.webhookId)).toContain(body.webhook.webhookId);
    }
    for (const token of [TOKENS.bot, TOKENS.idle]) {
      const res = await h.call('GET', path, { token });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'WEBHOOK_NOT_FOUND', details: { webhookId: body.webhook.webhookId } });
      const list = await h.call('GET', '/api/external/webhooks?limit=200', { token });
      expect(list.body.webhooks.map((w: any) => w.webhookId)).not.toContain(body.webhook.webhookId);
    }
    expect((await h.call('PATCH', path, { token: TOKENS.bot, body: { active: false } })).status).toBe(404);
    expect((await h.call('PATCH', path, { token: TOKENS.alice, body: { active: false } })).body.webhook.active).toBe(
      false,
    );
    expect((await h.call('DELETE', path, { token: TOKENS.alice })).status).toBe(204);
  });

  it('is invisible to another workspace', async () => {
    const { body } = await create({ url: RECEIVER, events: ['*'] });
    const path = `/api/external/webhooks/${body.webhook.webhookId}`;
    for (const [method, url] of [
      ['GET', path],
      ['PATCH', path],
      ['DELETE', path],
      ['GET', `${path}/deliveries`],
    ] as const) {
      const res = await h.call(method, url, {
        token: TOKENS.globex,
        ...(method === 'PATCH' ? { body: { active: false } } : {}),
      });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.code).toBe('WEBHOOK_NOT_FOUND');
    }
    const list = await h.call('GET', '/api/external/webhooks', { token: TOKENS.globex });
    expect(list.body.webhooks).toEqual([]);
    expect((await h.call('GET', path, { token: TOKENS.admin })).body.webhook.active).toBe(true);
  });

  it('needs a valid credential', async () => {
    for (const token of [undefined, TOKENS.off]) {
      const res = await h.call('GET', '/api/external/webhooks', { token });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });
});

describe('webhook subscriptions with private receivers allowed', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness([ACME], { webhookAllowPrivate: true });
  });
  afterAll(async () => {
    await h.close();
  });

  it('accepts loopback receivers when WSX_WEBHOOK_ALLOW_PRIVATE is on, but still only http(s)', async () => {
    const ok = await h.call('POST', '/api/external/webhooks', {
      token: TOKENS.admin,
      body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    expect(ok.status).toBe(201);
    const ftp = await h.call('POST', '/api/external/webhooks', {
      token: TOKENS.admin,
      body: { url: 'ftp://127.0.0.1/hook', events: ['*'] },
    });
    expect(ftp.body.code).toBe('INVALID_WEBHOOK_URL');
  });
});

describe('webhooks in the workspace file', () => {
  let h: Harness;
  const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const file = (webhooks: unknown) => ({ workspace: ACME.workspace, webhooks });

  beforeAll(async () => {
    h = await startHarness([ACME]);
  });
  afterAll(async () => {
    await h.close();
  });

  it('creates subscriptions by url, converges on re-apply and never duplicates', async () => {
    const first = await h.apply(
      file([
        { url: 'http://127.0.0.1:9999/hook', events: ['*'], secret: SECRET },
        { url: RECEIVER, events: ['issue.created'] },
      ]),
    );
    const id = first.webhooks['http://127.0.0.1:9999/hook'];
    expect(id).toMatch(/^whk_/);
    expect(first.webhooks[RECEIVER]).toMatch(/^whk_/);

    const again = await h.apply(file([{ url: 'http://127.0.0.1:9999/hook', events: ['*'], secret: SECRET }]));
    expect(again.webhooks).toEqual({ 'http://127.0.0.1:9999/hook': id });
    const before = (await h.call('GET', `/api/external/webhooks/${id}`, { token: TOKENS.admin })).body.webhook;
    expect(before).toMatchObject({ url: 'http://127.0.0.1:9999/hook', events: ['*'], active: true });

    await h.apply(file([{ url: 'http://127.0.0.1:9999/hook', events: ['project.created'], active: false }]));
    const after = (await h.call('GET', `/api/external/webhooks/${id}`, { token: TOKENS.admin })).body.webhook;
    expect(after).toMatchObject({ webhookId: id, events: ['project.created'], active: false });
    const list = await h.call('GET', '/api/external/webhooks', { token: TOKENS.admin });
    expect(list.body.webhooks).toHaveLength(2);
  });

  it('refuses invalid entries with the path of the offending value', async () => {
    await expect(h.apply(file([{ url: 'ftp://x', events: ['*'] }]))).rejects.toThrow(/webhooks\[0\]\.url/);
    await expect(h.apply(file([{ url: RECEIVER, events: ['*', 'issue.created'] }]))).rejects.toThrow(
      /webhooks\[0\]\.events/,
    );
    await expect(h.apply(file([{ url: RECEIVER, events: ['nope'] }]))).rejects.toThrow(/webhooks\[0\]\.events\[0\]/);
    await expect(h.apply(file([{ url: RECEIVER }]))).rejects.toThrow(/webhooks\[0\]\.events/);
    await expect(h.apply(file([{ url: RECEIVER, events: ['*'], secret: 'whsec_short' }]))).rejects.toThrow(
      /webhooks\[0\]\.secret/,
    );
    await expect(
      h.apply(
        file([
          { url: RECEIVER, events: ['*'] },
          { url: RECEIVER, events: ['*'] },
        ]),
      ),
    ).rejects.toThrow(/webhooks\[1\]/);
  });
});
