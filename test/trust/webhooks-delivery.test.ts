import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { patFor, type Harness } from '../support/harness.js';
import {
  startReceiver,
  startWorkerHarness,
  webhookTestConfig,
  type ReceivedWebhook,
  type Receiver,
} from '../support/webhook-receiver.js';

/** How long a poll waits for the dispatcher to catch up (a busy machine is slow, not wrong). */
const SETTLE = { timeout: 15_000 };

/**
 * What a subscription receives is decided by its creator's visibility: only events of
 * projects the creator can see, each payload built for that visibility (a link to an issue
 * in a hidden project is left out), and only at a URL its owner could have set.
 */

const inEventOrder = (messages: ReceivedWebhook[]) => [...messages].sort((a, b) => (a.json.id < b.json.id ? -1 : 1));

describe("webhook delivery and the creator's visibility", () => {
  let h: Harness;
  let receiver: Receiver;
  let projects: Record<string, string>;
  const OPS = { name: 'ops', secret: patFor('ops'), projects: '*' };

  const subscribe = async (path: string, events: string[], token: string) => {
    const res = await h.call('POST', '/api/external/webhooks', { token, body: { url: receiver.url(path), events } });
    expect(res.status).toBe(201);
    return res.body.webhook as { webhookId: string; secret: string };
  };
  const jobsOf = (webhookId: string) =>
    h.database.db
      .selectFrom('webhook_jobs')
      .select(['event_type', 'state'])
      .where('webhook_id', '=', webhookId)
      .execute();
  const createIssue = async (ref: string, title: string, token = TOKENS.admin, extra: Record<string, unknown> = {}) => {
    const res = await h.call('POST', '/api/external/issues', {
      token,
      body: { title, projectId: projects[ref], ...extra },
    });
    expect(res.status).toBe(201);
    return res.body.issue as { issueId: string; issueKey: string };
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startWorkerHarness([ACME], webhookTestConfig());
    projects = (await h.apply({ ...ACME, tokens: [...ACME.tokens, OPS] })).projects;
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it('sends a token without grants nothing of the projects it cannot see', async () => {
    const idleHook = await subscribe('/idle', ['*'], TOKENS.idle);
    const witness = await subscribe('/witness-idle', ['*'], TOKENS.admin);
    const issue = await createIssue('OPS/INFRA', 'Hidden from the idle token');
    expect(
      (
        await h.call('POST', `/api/external/issues/${issue.issueId}/comments`, {
          token: TOKENS.admin,
          body: { body: 'secret plans' },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await h.call('PATCH', `/api/external/projects/${projects['ENG/API']}`, {
          token: TOKENS.admin,
          body: { description: 'no grant covers this' },
        })
      ).status,
    ).toBe(200);

    await receiver.waitFor('/witness-idle', 3);
    expect(await jobsOf(witness.webhookId)).toHaveLength(3);
    expect(await jobsOf(idleHook.webhookId)).toEqual([]);
    expect(receiver.received.filter((r) => r.path === '/idle')).toEqual([]);
  });

  it('sends nothing to a subscription whose creating token has expired, as if it were revoked', async () => {
    const lapsing = { name: 'lapsing', secret: patFor('lapsing'), projects: '*' };
    await h.apply({ workspace: ACME.workspace, tokens: [lapsing] });
    const lapsedHook = await subscribe('/lapsed', ['issue.created'], lapsing.secret);
    const witness = await subscribe('/witness-lapsed', ['issue.created'], TOKENS.admin);
    await h.apply({ workspace: ACME.workspace, tokens: [{ name: 'lapsing', expiresAt: '2020-01-01T00:00:00Z' }] });

    await createIssue('ENG/API', 'After the creator expired');
    await receiver.waitFor('/witness-lapsed', 1);
    expect(await jobsOf(witness.webhookId)).toHaveLength(1);
    expect(await jobsOf(lapsedHook.webhookId)).toEqual([]);
  });

  it('builds each payload for the subscriber: links to hidden issues and their due dates are left out, link events about them are not sent', async () => {
    const events = ['issue.created', 'issue.updated', 'issue.link.created'];
    const botHook = await subscribe('/bot-view', events, TOKENS.bot);
    const adminHook = await subscribe('/admin-view', events, TOKENS.admin);
    const aliceHook = await subscribe('/alice-view', events, TOKENS.alice);

    const a = await createIssue('ENG/API', 'Visible to the bot');
    const b = await createIssue('OPS/INFRA', 'Hidden from the bot', TOKENS.admin, { dueDate: '2026-03-10' });
    const c = await createIssue('ENG/API', 'Also visible to the bot');
    const link = (target: string, type: string) =>
      h.call('POST', `/api/external/issues/${a.issueId}/links`, {
        token: TOKENS.admin,
        body: { type, targetIssueId: target },
      });
    expect((await link(b.issueId, 'blocked_by')).status).toBe(201);
    expect((await link(c.issueId, 'related')).status).toBe(201);
    expect(
      (await h.call('PATCH', `/api/external/issues/${a.issueId}`, { token: TOKENS.admin, body: { priority: 'high' } }))
        .status,
    ).toBe(200);
    // The bot cannot see B; its own write still produces the full view for subscribers who can.
    expect(
      (await h.call('PATCH', `/api/external/issues/${a.issueId}`, { token: TOKENS.bot, body: { priority: 'urgent' } }))
        .status,
    ).toBe(200);

    const admin = inEventOrder(await receiver.waitFor('/admin-view', 7));
    const alice = inEventOrder(await receiver.waitFor('/alice-view', 7));
    const bot = inEventOrder(await receiver.waitFor('/bot-view', 5));

    expect(admin.map((m) => m.json.type)).toEqual([
      'issue.created',
      'issue.created',
      'issue.created',
      'issue.link.created',
      'issue.link.created',
      'issue.updated',
      'issue.updated',
    ]);
    expect(alice.map((m) => m.body)).toEqual(admin.map((m) => m.body));
    for (const update of admin.slice(5)) {
      expect(update.json.data.issue.links.map((l: any) => l.targetIssueId)).toEqual([b.issueId, c.issueId]);
      expect(update.json.data.issue.earliestStartDate).toBe('2026-03-11');
    }

    expect(bot.map((m) => m.json.type)).toEqual([
      'issue.created',
      'issue.created',
      'issue.link.created',
      'issue.updated',
      'issue.updated',
    ]);
    expect(bot.map((m) => m.json.data.issue?.issueId ?? null)).toEqual([
      a.issueId,
      c.issueId,
      a.issueId,
      a.issueId,
      a.issueId,
    ]);
    expect(bot[2].json.data.link.targetIssueId).toBe(c.issueId);
    expect(JSON.stringify(bot.map((m) => m.json))).not.toContain(b.issueId);
    expect(JSON.stringify(bot.map((m) => m.json))).not.toContain(b.issueKey);
    for (const [index, update] of bot.slice(3).entries()) {
      // Everything but the hidden link, and the start date it implies, is what the all-seeing subscriber got.
      const full = admin[5 + index].json;
      expect(update.json).toEqual({
        ...full,
        data: {
          ...full.data,
          issue: { ...full.data.issue, links: [full.data.issue.links[1]], earliestStartDate: null },
        },
      });
      expect(new Webhook(botHook.secret).verify(update.body, update.headers)).toEqual(update.json);
      expect(update.headers['webhook-id']).toBe(full.id);
    }
    expect(await jobsOf(botHook.webhookId)).toHaveLength(5);
    expect(await jobsOf(adminHook.webhookId)).toHaveLength(7);
    expect(await jobsOf(aliceHook.webhookId)).toHaveLength(7);
  });

  it('stops using a receiver URL once the credential that set it could no longer set it', async () => {
    const hook = await subscribe('/bot-own', ['project.updated'], TOKENS.bot);
    const repointed = await h.call('PATCH', `/api/external/webhooks/${hook.webhookId}`, {
      token: OPS.secret,
      body: { url: receiver.url('/set-by-ops') },
    });
    expect(repointed.status).toBe(200);
    await h.apply({ workspace: ACME.workspace, tokens: [{ ...OPS, active: false }] });

    const rename = async (name: string) =>
      expect(
        (
          await h.call('PATCH', `/api/external/projects/${projects['ENG/API']}`, {
            token: TOKENS.admin,
            body: { name },
          })
        ).status,
      ).toBe(200);
    await rename('Public API (URL set by a revoked token)');
    const log = async () =>
      (await h.call('GET', `/api/external/webhooks/${hook.webhookId}/deliveries`, { token: TOKENS.bot })).body
        .deliveries;
    const finished = async () => (await log()).filter((d: any) => d.status !== 'pending');
    await expect.poll(async () => (await finished()).length, SETTLE).toBeGreaterThan(0);
    // Every attempt that ended (retries may be under way) was refused without sending.
    for (const attempt of await finished()) {
      expect(attempt).toMatchObject({
        status: 'failed',
        responseStatus: null,
        error: 'receiver URL was set by a credential that can no longer manage this subscription; set the URL again',
      });
    }

    // The owner sets a URL again: deliveries go there.
    expect(
      (
        await h.call('PATCH', `/api/external/webhooks/${hook.webhookId}`, {
          token: TOKENS.bot,
          body: { url: receiver.url('/bot-again') },
        })
      ).status,
    ).toBe(200);
    await rename('Public API (URL set by its owner)');
    // (A retry of the first event may arrive there too, now that its owner set the URL.)
    await expect
      .poll(() => receiver.received.filter((r) => r.path === '/bot-again').map((m) => m.json.data.project.name), SETTLE)
      .toContain('Public API (URL set by its owner)');
    expect(receiver.received.filter((r) => r.path === '/set-by-ops')).toEqual([]);
  });

  it('keeps a URL set by an all-projects credential while that credential can still manage the subscription', async () => {
    const keeper = { name: 'keeper', secret: patFor('keeper'), projects: '*' };
    await h.apply({ workspace: ACME.workspace, tokens: [keeper] });
    const hook = await subscribe('/bot-kept', ['project.updated'], TOKENS.bot);
    expect(
      (
        await h.call('PATCH', `/api/external/webhooks/${hook.webhookId}`, {
          token: keeper.secret,
          body: { url: receiver.url('/set-by-keeper') },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await h.call('PATCH', `/api/external/projects/${projects['ENG/API']}`, {
          token: TOKENS.admin,
          body: { name: 'Public API (kept)' },
        })
      ).status,
    ).toBe(200);
    const [message] = await receiver.waitFor('/set-by-keeper', 1);
    expect(message.json.data.project.name).toBe('Public API (kept)');
  });
});
