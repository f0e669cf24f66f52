import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import type { Ctx } from '../../../src/db/context.js';
import { recordEvent } from '../../../src/events/outbox.js';
import { defineOperation } from '../../../src/operations/define.js';
import { executeOperation } from '../../../src/operations/execute.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { patFor, type Harness } from '../../support/harness.js';
import {
  startReceiver,
  startWorkerHarness,
  webhookTestConfig,
  type Receiver,
  type ReceivedWebhook,
} from '../../support/webhook-receiver.js';

/** Signed delivery through the outbox, against a real receiver on 127.0.0.1. */

/** Deliveries run concurrently, so arrival order may differ from event order; event ids sort by time. */
const inEventOrder = (messages: ReceivedWebhook[]) => [...messages].sort((a, b) => (a.json.id < b.json.id ? -1 : 1));

describe('webhook delivery', () => {
  let h: Harness;
  let receiver: Receiver;
  let projects: Record<string, string>;
  const config = webhookTestConfig();

  const subscribe = async (path: string, events: string[], token = TOKENS.admin) => {
    const res = await h.call('POST', '/api/external/webhooks', { token, body: { url: receiver.url(path), events } });
    expect(res.status).toBe(201);
    return res.body.webhook as { webhookId: string; secret: string };
  };
  const renameProject = async (ref: string, name: string) => {
    const res = await h.call('PATCH', `/api/external/projects/${projects[ref]}`, {
      token: TOKENS.admin,
      body: { name },
    });
    expect(res.status).toBe(200);
  };
  const jobsOf = (webhookId: string) =>
    h.database.db
      .selectFrom('webhook_jobs')
      .select(['event_type', 'state'])
      .where('webhook_id', '=', webhookId)
      .execute();
  const verify = (secret: string, message: ReceivedWebhook) =>
    new Webhook(secret).verify(message.body, message.headers);

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startWorkerHarness([ACME, GLOBEX], config);
    projects = (await h.apply(ACME)).projects;
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it('sends project.created and project.updated, signed by the Standard Webhooks scheme', async () => {
    const hook = await subscribe('/projects', ['project.created', 'project.updated']);
    const created = await h.call('POST', '/api/external/projects', {
      token: TOKENS.admin,
      body: { name: 'Delivery Test', projectKey: 'DLV' },
    });
    expect(created.status).toBe(201);
    const projectId = created.body.project.projectId;
    await h.call('PATCH', `/api/external/projects/${projectId}`, {
      token: TOKENS.admin,
      body: { description: 'now described' },
    });

    const [first, second] = inEventOrder(await receiver.waitFor('/projects', 2));
    for (const message of [first, second]) {
      expect(verify(hook.secret, message)).toEqual(message.json);
      expect(message.headers['content-type']).toBe('application/json');
      expect(message.headers['webhook-id']).toBe(message.json.id);
      expect(message.headers['webhook-timestamp']).toMatch(/^\d+$/);
      expect(message.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Object.keys(message.json).sort()).toEqual(['actor', 'createdAt', 'data', 'id', 'type', 'workspaceId']);
      expect(message.json.actor).toEqual({ kind: 'api_token', id: 'api-token:admin' });
      expect(message.json.workspaceId).toMatch(/^ws_/);
      expect(message.json.id).toMatch(/^evt_/);
    }
    expect(first.json.type).toBe('project.created');
    expect(first.json.data.project).toEqual(created.body.project);
    expect(second.json.type).toBe('project.updated');
    expect(second.json.data.project).toMatchObject({ projectId, description: 'now described' });

    // A signature made with another secret, or over another body, does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(first.body, first.headers),
    ).toThrow();
    expect(() => verify(hook.secret, { ...first, body: first.body.replace('Delivery', 'Forged') })).toThrow();

    const log = await h.call('GET', `/api/external/webhooks/${hook.webhookId}/deliveries`, { token: TOKENS.admin });
    expect(log.status).toBe(200);
    await expect
      .poll(async () =>
        (
          await h.call('GET', `/api/external/webhooks/${hook.webhookId}/deliveries`, { token: TOKENS.admin })
        ).body.deliveries.map((d: any) => d.status),
      )
      .toEqual(['succeeded', 'succeeded']);
    const { deliveries } = (
      await h.call('GET', `/api/external/webhooks/${hook.webhookId}/deliveries`, { token: TOKENS.admin })
    ).body;
    expect(Object.keys(deliveries[0]).sort()).toEqual([
      'attempt',
      'createdAt',
      'deliveryId',
      'durationMs',
      'error',
      'eventId',
      'eventType',
      'responseStatus',
      'status',
    ]);
    expect(deliveries.map((d: any) => d.eventType).sort()).toEqual(['project.created', 'project.updated']);
    expect(deliveries[0]).toMatchObject({ attempt: 1, responseStatus: 200, error: null });
    expect(deliveries[0].deliveryId).toMatch(/^dlv_/);
    expect(typeof deliveries[0].durationMs).toBe('number');
  });

  it('sends issue and comment events with the issue reference', async () => {
    const hook = await subscribe('/issues', ['issue.created', 'issue.updated', 'issue.comment.created']);
    const issue = await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body: { title: 'Webhook me', projectId: projects['ENG/API'] },
    });
    expect(issue.status).toBe(201);
    const { issueId, issueKey } = issue.body.issue;
    expect(
      (await h.call('PATCH', `/api/external/issues/${issueId}`, { token: TOKENS.admin, body: { priority: 'high' } }))
        .status,
    ).toBe(200);
    const comment = await h.call('POST', `/api/external/issues/${issueId}/comments`, {
      token: TOKENS.admin,
      body: { body: 'Looks good' },
    });
    expect(comment.status).toBe(201);

    const messages = inEventOrder(await receiver.waitFor('/issues', 3));
    for (const message of messages) expect(verify(hook.secret, message)).toEqual(message.json);
    expect(messages.map((m) => m.json.type)).toEqual(['issue.created', 'issue.updated', 'issue.comment.created']);
    expect(messages[0].json.data.issue).toMatchObject({ issueId, issueKey, title: 'Webhook me' });
    expect(messages[1].json.data.issue).toMatchObject({ issueId, priority: 'high' });
    expect(messages[2].json.data).toMatchObject({ issue: { issueId, issueKey }, comment: { body: 'Looks good' } });
  });

  it('sends only the event types a subscription asked for', async () => {
    const hook = await subscribe('/updates-only', ['project.updated']);
    const created = await h.call('POST', '/api/external/projects', {
      token: TOKENS.admin,
      body: { name: 'Filtered', projectKey: 'FLT' },
    });
    await h.call('PATCH', `/api/external/projects/${created.body.project.projectId}`, {
      token: TOKENS.admin,
      body: { name: 'Filtered 2' },
    });
    const [message] = await receiver.waitFor('/updates-only', 1);
    expect(message.json.type).toBe('project.updated');
    expect(await jobsOf(hook.webhookId)).toEqual([{ event_type: 'project.updated', state: expect.any(String) }]);
  });

  it('retries a receiver that answered 500, with the same webhook-id, and logs each attempt', async () => {
    receiver.respond((path, n) => (path === '/flaky' && n === 1 ? 500 : 200));
    const hook = await subscribe('/flaky', ['project.updated']);
    await renameProject('ENG/WEB', 'Website (retry)');
    const [failed, succeeded] = await receiver.waitFor('/flaky', 2);
    expect(succeeded.headers['webhook-id']).toBe(failed.headers['webhook-id']);
    expect(succeeded.body).toBe(failed.body);
    expect(verify(hook.secret, succeeded)).toEqual(succeeded.json);

    const path = `/api/external/webhooks/${hook.webhookId}/deliveries`;
    await expect
      .poll(async () => (await h.call('GET', path, { token: TOKENS.admin })).body.deliveries.map((d: any) => d.status))
      .toEqual(['succeeded', 'failed']);
    const { deliveries } = (await h.call('GET', path, { token: TOKENS.admin })).body;
    expect(deliveries[1]).toMatchObject({
      attempt: 1,
      status: 'failed',
      responseStatus: 500,
      error: null,
      eventId: failed.json.id,
    });
    expect(deliveries[0]).toMatchObject({
      attempt: 2,
      status: 'succeeded',
      responseStatus: 200,
      eventId: failed.json.id,
    });

    const page = await h.call('GET', `${path}?limit=1`, { token: TOKENS.admin });
    expect(page.body.deliveries).toEqual([deliveries[0]]);
    const next = await h.call('GET', `${path}?limit=1&cursor=${page.body.pageInfo.nextCursor}`, {
      token: TOKENS.admin,
    });
    expect(next.body.deliveries).toEqual([deliveries[1]]);
  });

  it('gives up after the configured number of attempts', async () => {
    receiver.respond((path) => (path === '/down' ? 503 : 200));
    const hook = await subscribe('/down', ['project.updated']);
    await renameProject('ENG/WEB', 'Website (down)');
    await receiver.waitFor('/down', config.webhookMaxAttempts);
    await expect.poll(async () => (await jobsOf(hook.webhookId)).map((j) => j.state)).toEqual(['failed']);
    const { deliveries } = (
      await h.call('GET', `/api/external/webhooks/${hook.webhookId}/deliveries`, { token: TOKENS.admin })
    ).body;
    expect(deliveries.map((d: any) => [d.attempt, d.status, d.responseStatus])).toEqual([
      [3, 'failed', 503],
      [2, 'failed', 503],
      [1, 'failed', 503],
    ]);
  });

  it('sends nothing for a change that rolled back', async () => {
    const hook = await subscribe('/rollback', ['*']);
    const acme = await h.apply(ACME);
    const nowMs = Date.now();
    const ctx: Ctx = {
      db: h.database.db,
      store: h.database,
      dialect: h.database.dialect,
      config: { ...loadConfig({}), ...config },
      workspace: { id: acme.workspaceId, slug: 'acme', name: 'Acme' },
      principal: { kind: 'api_token', id: 'api-token:admin', tokenId: 'tok_test', tokenName: 'admin' },
      access: { all: true, tokenId: null, granted: new Set() },
      accessLevel: 'write',
      nowMs,
      now: new Date(nowMs).toISOString(),
    };
    const failing = defineOperation({
      id: 'failing_write',
      method: 'POST',
      path: '/test/failing',
      tag: 'Test',
      summary: 'Records an event, then fails.',
      run: async (c) => {
        await recordEvent(
          c,
          'project.updated',
          { project: { projectId: projects['ENG/API'], name: 'never happened' } },
          projects['ENG/API'],
        );
        throw new Error('write failed after recording its event');
      },
    });
    await expect(executeOperation(failing, ctx, { params: {}, query: {}, body: undefined })).rejects.toThrow(
      'write failed',
    );
    await renameProject('ENG/API', 'Public API (after rollback)');

    const [message] = await receiver.waitFor('/rollback', 1);
    expect(message.json.data.project.name).toBe('Public API (after rollback)');
    expect(await jobsOf(hook.webhookId)).toHaveLength(1);
  });

  it('sends a subscription only events of projects its creator can see', async () => {
    const botHook = await subscribe('/bot', ['project.updated'], TOKENS.bot);
    const adminHook = await subscribe('/admin', ['project.updated'], TOKENS.admin);
    await renameProject('OPS/INFRA', 'Infrastructure (hidden from bot)');
    await renameProject('ENG/WEB', 'Website (hidden from bot)');
    await renameProject('ENG/API', 'Public API (bot sees this)');

    const [botMessage] = await receiver.waitFor('/bot', 1);
    expect(botMessage.json.data.project.projectId).toBe(projects['ENG/API']);
    const adminMessages = inEventOrder(await receiver.waitFor('/admin', 3));
    expect(adminMessages.map((m) => m.json.data.project.projectId)).toEqual([
      projects['OPS/INFRA'],
      projects['ENG/WEB'],
      projects['ENG/API'],
    ]);
    expect(await jobsOf(botHook.webhookId)).toHaveLength(1);
    expect(await jobsOf(adminHook.webhookId)).toHaveLength(3);
  });

  it('sends nothing to subscriptions of another workspace', async () => {
    const globexHook = await h.call('POST', '/api/external/webhooks', {
      token: TOKENS.globex,
      body: { url: receiver.url('/globex'), events: ['*'] },
    });
    expect(globexHook.status).toBe(201);
    await renameProject('ENG/API', 'Public API (acme only)');
    const globex = await h.apply(GLOBEX);
    const res = await h.call('PATCH', `/api/external/projects/${globex.projects['ENG/API']}`, {
      token: TOKENS.globex,
      body: { name: 'Globex API 2' },
    });
    expect(res.status).toBe(200);
    const [message] = await receiver.waitFor('/globex', 1);
    expect(message.json).toMatchObject({
      workspaceId: globex.workspaceId,
      data: { project: { name: 'Globex API 2' } },
    });
    expect(await jobsOf(globexHook.body.webhook.webhookId)).toHaveLength(1);
  });

  it('sends nothing more once the creating token is inactive', async () => {
    const hooker = { name: 'hooker', secret: patFor('hooker'), projects: '*' };
    await h.apply({ workspace: ACME.workspace, tokens: [hooker] });
    const hook = await subscribe('/hooker', ['project.updated'], hooker.secret);
    const witness = await subscribe('/witness', ['project.updated']);
    await h.apply({ workspace: ACME.workspace, tokens: [{ ...hooker, active: false }] });
    await renameProject('ENG/API', 'Public API (token off)');

    await receiver.waitFor('/witness', 1);
    expect(await jobsOf(witness.webhookId)).toHaveLength(1);
    expect(await jobsOf(hook.webhookId)).toHaveLength(0);
    // The subscription itself stays, for a credential that sees every project to manage.
    expect((await h.call('GET', `/api/external/webhooks/${hook.webhookId}`, { token: TOKENS.admin })).status).toBe(200);
  });

  it('holds deliveries of an inactive subscription and sends nothing to it', async () => {
    const hook = await subscribe('/paused', ['project.updated']);
    await h.call('PATCH', `/api/external/webhooks/${hook.webhookId}`, { token: TOKENS.admin, body: { active: false } });
    const witness = await subscribe('/witness-2', ['project.updated']);
    await renameProject('ENG/API', 'Public API (paused)');
    await receiver.waitFor('/witness-2', 1);
    expect(await jobsOf(witness.webhookId)).toHaveLength(1);
    expect(await jobsOf(hook.webhookId)).toHaveLength(0);
  });
});
