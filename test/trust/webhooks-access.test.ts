import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../support/fixtures.js';
import { patFor, startHarness, type Harness } from '../support/harness.js';

/**
 * Who may see and manage a webhook subscription (docs/webhooks.md, "Subscribing"): its
 * creator, and credentials that see every project of the workspace. To anyone else it does
 * not exist. Also the per-workspace cap of 25 subscriptions, through the API and the
 * workspace file.
 */

/** A public address literal: no DNS lookup, so the tests do not depend on the network. */
const RECEIVER = 'https://93.184.216.34/wsx';

describe('webhook subscriptions belong to their creator', () => {
  let h: Harness;
  let fileHookId: string;
  const FILE_URL = 'https://file-receiver.example.test/hook';

  beforeAll(async () => {
    h = await startHarness([ACME, GLOBEX]);
    const applied = await h.apply({ workspace: ACME.workspace, webhooks: [{ url: FILE_URL, events: ['*'] }] });
    fileHookId = applied.webhooks[FILE_URL];
  });
  afterAll(async () => {
    await h.close();
  });

  const routes = (id: string) =>
    [
      ['GET', `/api/external/webhooks/${id}`],
      ['PATCH', `/api/external/webhooks/${id}`],
      ['DELETE', `/api/external/webhooks/${id}`],
      ['GET', `/api/external/webhooks/${id}/deliveries`],
    ] as const;
  const listed = async (token: string) =>
    (
      (await h.call('GET', '/api/external/webhooks?limit=200', { token })).body.webhooks as Array<{ webhookId: string }>
    ).map((w) => w.webhookId);

  it("hides the workspace file's subscription from a token without grants: 404 on every route, absent from the list", async () => {
    for (const [method, url] of routes(fileHookId)) {
      const res = await h.call(method, url, {
        token: TOKENS.idle,
        ...(method === 'PATCH' ? { body: { url: 'https://attacker.example.test/steal' } } : {}),
      });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body).toMatchObject({ code: 'WEBHOOK_NOT_FOUND', details: { webhookId: fileHookId } });
      expect(Object.keys(res.body).sort()).toEqual(['code', 'details', 'error', 'suggestion']);
    }
    expect(await listed(TOKENS.idle)).not.toContain(fileHookId);
    // Nothing changed: the URL is still the one the file set, and the subscription still exists.
    const seen = await h.call('GET', `/api/external/webhooks/${fileHookId}`, { token: TOKENS.admin });
    expect(seen.status).toBe(200);
    expect(seen.body.webhook).toMatchObject({ url: FILE_URL, active: true });
  });

  it('hides it from a token granted some projects, too', async () => {
    for (const [method, url] of routes(fileHookId)) {
      const res = await h.call(method, url, {
        token: TOKENS.bot,
        ...(method === 'PATCH' ? { body: { active: false } } : {}),
      });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.code).toBe('WEBHOOK_NOT_FOUND');
    }
    expect(await listed(TOKENS.bot)).not.toContain(fileHookId);
  });

  it('lets an all-projects token and an OAuth user see and manage any subscription of the workspace', async () => {
    const made = await h.call('POST', '/api/external/webhooks', {
      token: TOKENS.bot,
      body: { url: RECEIVER, events: ['*'] },
    });
    expect(made.status).toBe(201);
    const botHookId = made.body.webhook.webhookId;
    for (const token of [TOKENS.admin, TOKENS.alice]) {
      expect(await listed(token)).toEqual(expect.arrayContaining([fileHookId, botHookId]));
      expect((await h.call('GET', `/api/external/webhooks/${botHookId}`, { token })).status).toBe(200);
      expect((await h.call('GET', `/api/external/webhooks/${botHookId}/deliveries`, { token })).status).toBe(200);
    }
    const paused = await h.call('PATCH', `/api/external/webhooks/${botHookId}`, {
      token: TOKENS.admin,
      body: { active: false },
    });
    expect(paused.status).toBe(200);
    expect(paused.body.webhook.active).toBe(false);
    expect((await h.call('DELETE', `/api/external/webhooks/${botHookId}`, { token: TOKENS.alice })).status).toBe(204);
  });

  it('lets a restricted token see and manage its own subscriptions, and only those', async () => {
    const own = await h.call('POST', '/api/external/webhooks', {
      token: TOKENS.idle,
      body: { url: RECEIVER, events: ['issue.created'] },
    });
    expect(own.status).toBe(201);
    const ownId = own.body.webhook.webhookId;
    const others = await h.call('POST', '/api/external/webhooks', {
      token: TOKENS.bot,
      body: { url: RECEIVER, events: ['*'] },
    });
    const othersId = others.body.webhook.webhookId;

    expect(await listed(TOKENS.idle)).toEqual([ownId]);
    expect((await h.call('GET', `/api/external/webhooks/${ownId}`, { token: TOKENS.idle })).status).toBe(200);
    expect((await h.call('GET', `/api/external/webhooks/${ownId}/deliveries`, { token: TOKENS.idle })).status).toBe(
      200,
    );
    const changed = await h.call('PATCH', `/api/external/webhooks/${ownId}`, {
      token: TOKENS.idle,
      body: { url: `${RECEIVER}/v2` },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.webhook.url).toBe(`${RECEIVER}/v2`);

    // The bot's subscription does not exist for the idle token, and the other way round.
    for (const [method, url] of routes(othersId)) {
      const res = await h.call(method, url, {
        token: TOKENS.idle,
        ...(method === 'PATCH' ? { body: { active: false } } : {}),
      });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.code).toBe('WEBHOOK_NOT_FOUND');
    }
    expect((await h.call('GET', `/api/external/webhooks/${ownId}`, { token: TOKENS.bot })).status).toBe(404);
    expect(await listed(TOKENS.bot)).not.toContain(ownId);

    expect((await h.call('DELETE', `/api/external/webhooks/${ownId}`, { token: TOKENS.idle })).status).toBe(204);
    expect((await h.call('GET', `/api/external/webhooks/${othersId}`, { token: TOKENS.bot })).body.webhook.active).toBe(
      true,
    );
  });

  it('keeps a subscription with its creating token: another token of the same name does not inherit it', async () => {
    const temp = { name: 'temp', secret: patFor('temp'), projects: ['ENG/API'] };
    await h.apply({ workspace: ACME.workspace, tokens: [temp] });
    const made = await h.call('POST', '/api/external/webhooks', {
      token: temp.secret,
      body: { url: RECEIVER, events: ['*'] },
    });
    expect(made.status).toBe(201);
    expect(
      (await h.call('GET', `/api/external/webhooks/${made.body.webhook.webhookId}`, { token: temp.secret })).status,
    ).toBe(200);
    expect(
      (await h.call('GET', `/api/external/webhooks/${made.body.webhook.webhookId}`, { token: TOKENS.globex })).status,
    ).toBe(404);
  });

  it('applies the same rule to the MCP tools', async () => {
    const mcp = (token: string, name: string, args: object) =>
      h.app.inject({
        method: 'POST',
        url: '/api/mcp?toolsets=admin',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      });
    const res = await mcp(TOKENS.idle, 'update_webhook', {
      webhookId: fileHookId,
      url: 'https://attacker.example.test/x',
    });
    expect(res.statusCode).toBe(200);
    const result = JSON.parse(res.body).result;
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0].text)).toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
    expect(
      (await h.call('GET', `/api/external/webhooks/${fileHookId}`, { token: TOKENS.admin })).body.webhook.url,
    ).toBe(FILE_URL);
  });
});

describe('at most 25 webhook subscriptions per workspace', () => {
  let h: Harness;
  const create = (token: string, n: number) =>
    h.call('POST', '/api/external/webhooks', { token, body: { url: `${RECEIVER}/${n}`, events: ['*'] } });

  beforeAll(async () => {
    h = await startHarness([ACME, GLOBEX]);
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers 409 WEBHOOK_LIMIT_REACHED for the 26th, whoever asks, and counts every creator', async () => {
    await h.apply({ workspace: ACME.workspace, webhooks: [{ url: 'https://file.example.test/1', events: ['*'] }] });
    for (let n = 1; n <= 12; n += 1) expect((await create(TOKENS.bot, n)).status).toBe(201);
    for (let n = 13; n <= 23; n += 1) expect((await create(TOKENS.admin, n)).status).toBe(201);
    const inactive = await h.call('POST', '/api/external/webhooks', {
      token: TOKENS.idle,
      body: { url: `${RECEIVER}/paused`, events: ['*'], active: false },
    });
    expect(inactive.status).toBe(201);

    for (const token of [TOKENS.admin, TOKENS.idle, TOKENS.alice]) {
      const res = await create(token, 99);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'WEBHOOK_LIMIT_REACHED', details: { limit: 25 } });
      expect(typeof res.body.suggestion).toBe('string');
    }
    const all = await h.call('GET', '/api/external/webhooks?limit=200', { token: TOKENS.admin });
    expect(all.body.webhooks).toHaveLength(25);
    // Another workspace has its own allowance.
    expect((await create(TOKENS.globex, 1)).status).toBe(201);

    // Deleting one makes room again.
    expect(
      (await h.call('DELETE', `/api/external/webhooks/${inactive.body.webhook.webhookId}`, { token: TOKENS.idle }))
        .status,
    ).toBe(204);
    expect((await create(TOKENS.idle, 100)).status).toBe(201);
    expect((await create(TOKENS.idle, 101)).status).toBe(409);
  });

  it('refuses a workspace file that would take the workspace past the cap, naming the entry, and writes nothing', async () => {
    const before = (await h.call('GET', '/api/external/webhooks?limit=200', { token: TOKENS.admin })).body.webhooks
      .length;
    expect(before).toBe(25);
    const file = {
      workspace: ACME.workspace,
      webhooks: [
        { url: 'https://file.example.test/1', events: ['*'] },
        { url: 'https://file.example.test/2', events: ['*'] },
      ],
    };
    await expect(h.apply(file)).rejects.toThrow(/^webhooks\[1\]: .*25/);
    expect(
      (await h.call('GET', '/api/external/webhooks?limit=200', { token: TOKENS.admin })).body.webhooks,
    ).toHaveLength(25);
    // Re-applying what exists is still fine at the cap.
    await expect(
      h.apply({
        workspace: ACME.workspace,
        webhooks: [{ url: 'https://file.example.test/1', events: ['issue.created'] }],
      }),
    ).resolves.toBeDefined();
  });

  it('refuses a workspace file that lists more than 25 subscriptions before writing anything', async () => {
    const many = Array.from({ length: 26 }, (_, n) => ({ url: `https://many.example.test/${n}`, events: ['*'] }));
    await expect(h.apply({ workspace: { slug: 'fresh', name: 'Fresh' }, webhooks: many })).rejects.toThrow(
      /^webhooks: .*25/,
    );
  });
});

describe('receiver addresses at subscribe time', () => {
  let h: Harness;
  const ids: string[] = [];
  const create = (url: string) =>
    h.call('POST', '/api/external/webhooks', { token: TOKENS.admin, body: { url, events: ['*'] } });

  beforeAll(async () => {
    h = await startHarness([ACME]);
  });
  afterEach(async () => {
    while (ids.length) await h.call('DELETE', `/api/external/webhooks/${ids.pop()}`, { token: TOKENS.admin });
  });
  afterAll(async () => {
    await h.close();
  });

  it('refuses every address that is not global unicast, including wrapped IPv4 forms', async () => {
    const refused: Array<[string, string]> = [
      ['http://100.64.0.1/hook', '100.64.0.1'],
      ['http://100.100.100.200/latest/meta-data', '100.100.100.200'],
      ['http://198.18.0.1/hook', '198.18.0.1'],
      ['http://198.19.255.254/hook', '198.19.255.254'],
      ['http://224.0.0.1/hook', '224.0.0.1'],
      ['http://239.255.255.250/hook', '239.255.255.250'],
      ['http://255.255.255.255/hook', '255.255.255.255'],
      ['http://240.0.0.1/hook', '240.0.0.1'],
      ['http://192.0.2.10/hook', '192.0.2.10'],
      ['http://[fec0::1]/hook', 'fec0::1'],
      ['http://[ff02::1]/hook', 'ff02::1'],
      ['http://[2001:db8::1]/hook', '2001:db8::1'],
      ['http://[64:ff9b::7f00:1]/hook', '127.0.0.1'],
      ['http://[64:ff9b::a00:1]/hook', '10.0.0.1'],
      ['http://[64:ff9b::a9fe:a9fe]/hook', '169.254.169.254'],
      ['http://[64:ff9b:1::5db8:d822]/hook', '64:ff9b:1::5db8:d822'],
      ['http://[2002:7f00:1::1]/hook', '127.0.0.1'],
      ['http://[2002:a9fe:a9fe::1]/hook', '169.254.169.254'],
      ['http://[::ffff:100.100.100.200]/hook', '100.100.100.200'],
      ['http://[::7f00:1]/hook', '::7f00:1'],
      ['http://[2001::1]/hook', '2001::1'],
    ];
    for (const [url, address] of refused) {
      const res = await create(url);
      expect(res.status, url).toBe(400);
      expect(res.body, url).toMatchObject({ code: 'INVALID_WEBHOOK_URL', details: { field: 'url', address } });
      expect(res.body.error, url).toContain(address);
    }
  });

  it('accepts public unicast addresses, also behind NAT64, 6to4 and IPv4-mapped forms', async () => {
    for (const url of [
      'http://93.184.216.34/hook',
      'http://[2606:2800:220:1:248:1893:25c8:1946]/hook',
      'http://[64:ff9b::5db8:d822]/hook',
      'http://[2002:5db8:d822::1]/hook',
      'http://[::ffff:93.184.216.34]/hook',
    ]) {
      const res = await create(url);
      expect(res.status, url).toBe(201);
      ids.push(res.body.webhook.webhookId);
    }
  });

  it('checks the same rule on PATCH', async () => {
    const made = await create('http://93.184.216.34/hook');
    ids.push(made.body.webhook.webhookId);
    const res = await h.call('PATCH', `/api/external/webhooks/${made.body.webhook.webhookId}`, {
      token: TOKENS.admin,
      body: { url: 'http://100.100.100.200/' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'INVALID_WEBHOOK_URL',
      details: { field: 'url', address: '100.100.100.200' },
    });
  });
});

describe('receiver addresses with WSX_WEBHOOK_ALLOW_PRIVATE=1', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness([ACME], { webhookAllowPrivate: true });
  });
  afterAll(async () => {
    await h.close();
  });

  it('allows loopback and private receivers but never metadata, link-local, multicast, broadcast or unspecified ones', async () => {
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://10.1.2.3/hook',
      'http://192.168.1.2/hook',
      'http://[fd00::1]/hook',
      'http://[::1]/hook',
      'http://100.64.1.1/hook',
    ]) {
      const res = await h.call('POST', '/api/external/webhooks', { token: TOKENS.admin, body: { url, events: ['*'] } });
      expect(res.status, url).toBe(201);
      await h.call('DELETE', `/api/external/webhooks/${res.body.webhook.webhookId}`, { token: TOKENS.admin });
    }
    for (const url of [
      'http://169.254.169.254/latest',
      'http://100.100.100.200/',
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/hook',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      'http://0.0.0.0/',
      'http://[64:ff9b::a9fe:a9fe]/',
    ]) {
      const res = await h.call('POST', '/api/external/webhooks', { token: TOKENS.admin, body: { url, events: ['*'] } });
      expect(res.status, url).toBe(400);
      expect(res.body.code, url).toBe('INVALID_WEBHOOK_URL');
    }
  });
});
