import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { nowIso } from '../../../src/core/clock.js';
import { claimAttempts, runAttempt } from '../../../src/events/attempts.js';
import { fanOutEvents } from '../../../src/events/fan-out.js';
import { newHolder } from '../../../src/events/holder.js';
import { EVENT_TYPES } from '../../../src/events/outbox.js';
import { pruneWebhookHistory } from '../../../src/events/retention.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { startReceiver, webhookTestConfig, type Receiver } from '../../support/webhook-receiver.js';

/**
 * The change feed, GET /api/external/events: every committed change once, in commit order,
 * each event as a webhook delivers it, and nothing the caller cannot see. Webhook
 * deliveries and pruning are driven by direct calls, so nothing depends on timing.
 */

const API = '/api/external';
const DAY_MS = 86_400_000;

interface FeedEvent {
  id: string;
  type: string;
  createdAt: string;
  workspaceId: string;
  data: Record<string, any>;
}

function feedOf(h: () => Harness) {
  const feed = (query: Record<string, string | number> = {}, token = TOKENS.admin) => {
    const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
    return h().call('GET', `${API}/events${search ? `?${search}` : ''}`, { token });
  };
  /** Follows the feed from `after` (or its start) until hasMore is false. */
  const readAll = async (
    token = TOKENS.admin,
    after?: string,
    query: Record<string, string | number> = {},
  ): Promise<{ events: FeedEvent[]; cursor: string; pages: number }> => {
    const events: FeedEvent[] = [];
    let cursor = after;
    for (let pages = 1; ; pages++) {
      const res = await feed({ limit: 200, ...query, ...(cursor ? { after: cursor } : {}) }, token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.events.length).toBeLessThanOrEqual(res.body.pageInfo.limit);
      events.push(...res.body.events);
      cursor = res.body.pageInfo.nextCursor as string;
      expect(typeof cursor).toBe('string');
      if (!res.body.pageInfo.hasMore) return { events, cursor, pages };
    }
  };
  return { feed, readAll };
}

describe('GET /api/external/events', () => {
  let h: Harness;
  let receiver: Receiver;
  let projects: Record<string, string>;
  let launch: string;
  const config = { ...loadConfig({}), rateLimitPerMinute: 0, ...webhookTestConfig() };
  const holder = newHolder();
  const { feed, readAll } = feedOf(() => h);

  const write = async (method: string, path: string, body: unknown, token = TOKENS.admin) => {
    const res = await h.call(method, `${API}${path}`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  };
  const newIssue = async (title: string, project: string) =>
    (await write('POST', '/issues', { title, projectId: projects[project] })).issue as { issueId: string };
  /** Fans out and sends everything due, as the dispatcher would. */
  const drain = async () => {
    await fanOutEvents(h.database, 100, nowIso());
    for (;;) {
      const attempts = await claimAttempts(h.database, config, { limit: 50, holder, nowMs: Date.now() });
      if (attempts.length === 0) return;
      for (const attempt of attempts) await runAttempt(h.database, config, attempt, holder);
    }
  };
  const callTool = async (token: string, name: string, args: Record<string, unknown>) => {
    const res = await h.call('POST', '/api/mcp?toolsets=admin', {
      token,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });
    expect(res.status).toBe(200);
    return res.body.result as { isError?: boolean; structuredContent?: any };
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startHarness([ACME, GLOBEX], config);
    const applied = await h.apply(ACME);
    projects = applied.projects;
    launch = applied.containers['ENG/API/Launch'];
    // A file-made subscription sees every project, as the admin token does.
    await h.apply({ workspace: ACME.workspace, webhooks: [{ url: receiver.url('/all'), events: ['*'] }] });
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it('lists every committed change once, in the order made, exactly as webhooks deliver it', async () => {
    const start = await readAll();
    const first = await newIssue('First', 'ENG/API');
    const second = await newIssue('Second', 'ENG/API');
    await write('PATCH', `/issues/${first.issueId}`, { title: 'First, renamed' });
    await write('POST', `/issues/${first.issueId}/comments`, { body: 'Looks right.' });
    await write('POST', `/issues/${first.issueId}/links`, { targetIssueId: second.issueId, type: 'blocks' });
    await write('POST', `/issues/${first.issueId}/subtasks`, { title: 'Step one' });
    await write('POST', '/issue-container-milestones', { issueContainerId: launch, title: 'Alpha' });
    await write('PATCH', `/projects/${projects['ENG/API']}`, { name: 'Public API v2' });
    await write('PATCH', `/issues/${second.issueId}`, { archived: true });
    const project = (await write('POST', '/projects', { name: 'Feed', teamKey: 'OPS' })).project;

    const { events } = await readAll(TOKENS.admin, start.cursor);
    expect(events.map((e) => e.type)).toEqual([
      'issue.created',
      'issue.created',
      'issue.updated',
      'issue.comment.created',
      'issue.link.created',
      'subtask.created',
      'milestone.created',
      'project.updated',
      'issue.archived',
      'project.created',
    ]);
    expect(events[0].data.issue.issueId).toBe(first.issueId);
    expect(events[1].data.issue.issueId).toBe(second.issueId);
    expect(events[2].data.issue.title).toBe('First, renamed');
    expect(events[9].data.project.projectId).toBe(project.projectId);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const instants = events.map((e) => e.createdAt);
    expect([...instants].sort()).toEqual(instants);

    // The same log feeds the webhooks: the same events, ids and bodies.
    await drain();
    const everything = (await readAll()).events;
    const delivered = receiver.received.filter((r) => r.path === '/all').map((r) => r.json as FeedEvent);
    const byId = (list: FeedEvent[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));
    expect(byId(delivered)).toEqual(byId(everything));
  });

  it('misses nothing and repeats nothing for a poller reading while writers commit side by side', async () => {
    const start = (await readAll()).cursor;
    const seen: FeedEvent[] = [];
    let cursor = start;
    const poll = async () => {
      const page = await readAll(TOKENS.admin, cursor, { limit: 3 });
      seen.push(...page.events);
      cursor = page.cursor;
    };
    let writing = true;
    // Between polls the poller yields to the event loop: on in-memory SQLite a read may
    // never leave the microtask queue, and would starve the writers' requests.
    const poller = (async () => {
      while (writing) {
        await poll();
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const writer = async (name: string) => {
      for (let n = 0; n < 6; n++) {
        const issue = await newIssue(`${name} ${n}`, n % 2 ? 'ENG/API' : 'ENG/WEB');
        await write('POST', `/issues/${issue.issueId}/comments`, { body: `${name} ${n}` });
      }
    };
    await Promise.all(['a', 'b', 'c', 'd'].map(writer));
    writing = false;
    await poller;
    await poll();
    const committed = (await readAll(TOKENS.admin, start)).events;
    expect(committed).toHaveLength(48);
    expect(seen.map((e) => e.id)).toEqual(committed.map((e) => e.id));
  });

  it('pages with limit and nextCursor, and polling again answers only newer events', async () => {
    const whole = await readAll();
    expect(whole.events.length).toBeGreaterThan(5);
    const paged = await readAll(TOKENS.admin, undefined, { limit: 3 });
    expect(paged.events.map((e) => e.id)).toEqual(whole.events.map((e) => e.id));
    expect(paged.pages).toBe(Math.ceil(whole.events.length / 3));

    // Nothing new: the same empty answer, with the cursor given.
    const idle = await feed({ after: whole.cursor });
    expect(idle.status).toBe(200);
    expect(idle.body).toEqual({ events: [], pageInfo: { hasMore: false, nextCursor: whole.cursor, limit: 50 } });
    // So an idle poll with the ETag it holds is a 304.
    const again = await h.call('GET', `${API}/events?after=${whole.cursor}`, {
      token: TOKENS.admin,
      headers: { 'if-none-match': String(idle.headers.etag) },
    });
    expect(again.status).toBe(304);

    const issue = await newIssue('After the poll', 'ENG/WEB');
    const next = await feed({ after: whole.cursor });
    expect(next.body.events.map((e: FeedEvent) => [e.type, e.data.issue.issueId])).toEqual([
      ['issue.created', issue.issueId],
    ]);
    expect(next.body.pageInfo.hasMore).toBe(false);
    expect(next.body.pageInfo.nextCursor).not.toBe(whole.cursor);
  });

  it('lists only the types asked for; the cursor is not bound to them', async () => {
    const whole = (await readAll()).events;
    const wanted = ['issue.created', 'issue.archived'];
    const filtered = await readAll(TOKENS.admin, undefined, { types: wanted.join(','), limit: 2 });
    expect(filtered.events.map((e) => e.id)).toEqual(whole.filter((e) => wanted.includes(e.type)).map((e) => e.id));

    const issue = await newIssue('Typed', 'ENG/API');
    await write('POST', `/issues/${issue.issueId}/comments`, { body: 'A comment.' });
    const rest = await readAll(TOKENS.admin, filtered.cursor);
    expect(rest.events.map((e) => e.type)).toEqual(['issue.created', 'issue.comment.created']);
  });

  it('refuses an unknown event type with the allowed ones', async () => {
    for (const types of ['issue.created,issue.exploded', ' , ']) {
      const res = await feed({ types });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details).toMatchObject({ field: 'types', allowed: [...EVENT_TYPES] });
    }
    expect((await feed({ types: 'issue.exploded' })).body.details.unknownTypes).toEqual(['issue.exploded']);
  });

  it('answers INVALID_CURSOR for a cursor altered, made up or of another workspace', async () => {
    const { cursor } = await readAll();
    const altered = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    const globex = (await readAll(TOKENS.globex)).cursor;
    for (const [after, token] of [
      [altered, TOKENS.admin],
      ['not-a-cursor', TOKENS.admin],
      [`${cursor}A`, TOKENS.admin],
      [globex, TOKENS.admin],
      [cursor, TOKENS.globex],
    ]) {
      const res = await feed({ after }, token);
      expect(res.status, after).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_CURSOR', details: { field: 'after' } });
    }
  });

  it('shows a token granted one project nothing of another project, nor of a link to it', async () => {
    const botStart = await readAll(TOKENS.bot);
    const adminStart = await readAll(TOKENS.admin);
    const own = await newIssue('Own', 'ENG/API');
    const hidden = await newIssue('Hidden', 'ENG/WEB');
    await write('POST', `/issues/${hidden.issueId}/comments`, { body: 'Secret.' });
    await write('POST', `/issues/${own.issueId}/links`, { targetIssueId: hidden.issueId, type: 'blocks' });
    await write('PATCH', `/issues/${own.issueId}`, { title: 'Own, renamed' });

    const admin = (await readAll(TOKENS.admin, adminStart.cursor)).events;
    expect(admin.map((e) => e.type)).toEqual([
      'issue.created',
      'issue.created',
      'issue.comment.created',
      'issue.link.created',
      'issue.updated',
    ]);
    expect(admin[4].data.issue.links).toHaveLength(1);

    const bot = await readAll(TOKENS.bot, botStart.cursor);
    expect(bot.events.map((e) => e.type)).toEqual(['issue.created', 'issue.updated']);
    expect(bot.events.map((e) => e.id)).toEqual([admin[0].id, admin[4].id]);
    expect(bot.events[1].data.issue.links).toEqual([]);
    for (const event of bot.events) {
      expect(JSON.stringify(event)).not.toContain(hidden.issueId);
      expect(JSON.stringify(event)).not.toContain(projects['ENG/WEB']);
    }
    // Over the whole feed too: only the granted project's events.
    for (const event of (await readAll(TOKENS.bot)).events) {
      expect(event.data.issue?.projectId ?? event.data.project?.projectId ?? projects['ENG/API']).toBe(
        projects['ENG/API'],
      );
      expect(JSON.stringify(event)).not.toContain(projects['ENG/WEB']);
      expect(JSON.stringify(event)).not.toContain(projects['OPS/INFRA']);
    }

    // Activity the token cannot see leaves its answer, cursor and ETag included, as it was.
    const before = await feed({ after: bot.cursor }, TOKENS.bot);
    await newIssue('Also hidden', 'OPS/INFRA');
    await write('POST', `/issues/${hidden.issueId}/comments`, { body: 'More.' });
    const idle = await feed({ after: bot.cursor }, TOKENS.bot);
    expect(idle.body).toEqual({ events: [], pageInfo: { hasMore: false, nextCursor: bot.cursor, limit: 50 } });
    expect(idle.headers.etag).toBe(before.headers.etag);

    // A token with no project sees none of them; a person (OAuth) sees what the admin token sees.
    expect((await readAll(TOKENS.idle)).events).toEqual([]);
    expect((await readAll(TOKENS.alice)).events.map((e) => e.id)).toEqual(
      (await readAll(TOKENS.admin)).events.map((e) => e.id),
    );
  });

  it("never shows another workspace's events", async () => {
    const acme = (await readAll(TOKENS.admin)).events;
    const globexProject = (await h.call('GET', `${API}/projects`, { token: TOKENS.globex })).body.projects[0];
    await write('POST', '/issues', { title: 'Globex issue', projectId: globexProject.projectId }, TOKENS.globex);
    const globex = (await readAll(TOKENS.globex)).events;
    expect(globex.map((e) => e.type)).toEqual(['issue.created']);
    expect(globex[0].workspaceId).not.toBe(acme[0].workspaceId);
    expect(new Set(acme.map((e) => e.workspaceId))).toEqual(new Set([acme[0].workspaceId]));
    expect((await readAll(TOKENS.admin)).events.map((e) => e.id)).toEqual(acme.map((e) => e.id));
  });

  it('is the list_events MCP tool', async () => {
    const http = await readAll(TOKENS.bot);
    const first = await callTool(TOKENS.bot, 'list_events', { limit: 1 });
    expect(first.isError).toBeUndefined();
    expect(first.structuredContent.events.map((e: FeedEvent) => e.id)).toEqual([http.events[0].id]);
    const rest = await callTool(TOKENS.bot, 'list_events', {
      after: first.structuredContent.pageInfo.nextCursor,
      limit: 200,
    });
    expect(rest.structuredContent.events.map((e: FeedEvent) => e.id)).toEqual(http.events.slice(1).map((e) => e.id));
    expect(rest.structuredContent.pageInfo).toEqual({ hasMore: false, nextCursor: http.cursor, limit: 200 });
    expect((await callTool(TOKENS.bot, 'list_events', { types: 'issue.exploded' })).isError).toBe(true);
  });
});

describe('retention of the change feed', () => {
  let h: Harness;
  let projects: Record<string, string>;
  const { feed, readAll } = feedOf(() => h);

  const newIssue = async (title: string, project: string) => {
    const res = await h.call('POST', `${API}/issues`, {
      token: TOKENS.admin,
      body: { title, projectId: projects[project] },
    });
    expect(res.status).toBe(201);
    return res.body.issue as { issueId: string };
  };
  /** Fans the events out, dates them `days` back and prunes what the retention lets go. */
  const ageAndPrune = async (days: number) => {
    await fanOutEvents(h.database, 100, nowIso());
    const old = nowIso(Date.now() - days * DAY_MS);
    await h.database.db.updateTable('outbox_events').set({ created_at: old, dispatched_at: old }).execute();
    return pruneWebhookHistory(h.database, { nowMs: Date.now(), retentionDays: loadConfig({}).retentionDays });
  };
  const positions = async () =>
    (await h.database.db.selectFrom('outbox_events').select('seq').orderBy('seq').execute()).map((r) => Number(r.seq));

  beforeAll(async () => {
    h = await startHarness([ACME]);
    projects = (await h.apply(ACME)).projects;
  });
  afterAll(() => h.close());

  it('expires a cursor whose next events were pruned, and only such a cursor', async () => {
    for (const title of ['One', 'Two', 'Three']) await newIssue(title, 'ENG/API');
    const behind = (await feed({ limit: 1 })).body.pageInfo.nextCursor as string;
    const caughtUp = (await readAll()).cursor;
    const bot = (await readAll(TOKENS.bot)).cursor;
    // Events of a project the bot cannot see, pruned later, do not expire its cursor.
    for (const title of ['Four', 'Five']) await newIssue(title, 'ENG/WEB');
    const admin = (await readAll()).cursor;
    expect(await positions()).toEqual([1, 2, 3, 4, 5]);

    expect((await ageAndPrune(29)).outboxEvents).toBe(0);
    expect((await feed({ after: behind })).status).toBe(200);
    expect((await ageAndPrune(31)).outboxEvents).toBe(5);

    const expired = await feed({ after: behind });
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({
      code: 'EVENT_CURSOR_EXPIRED',
      details: { field: 'after', retentionDays: 30 },
    });
    expect((await feed({ after: caughtUp })).status).toBe(410);
    for (const [cursor, token] of [
      [bot, TOKENS.bot],
      [admin, TOKENS.admin],
    ]) {
      const res = await feed({ after: cursor }, token);
      expect(res.status).toBe(200);
      expect(res.body.events).toEqual([]);
    }

    // Without a cursor the feed starts after what was pruned; positions are never given out again.
    const fresh = await readAll();
    expect(fresh.events).toEqual([]);
    const issue = await newIssue('Six', 'ENG/API');
    expect(await positions()).toEqual([6]);
    const next = await readAll(TOKENS.admin, fresh.cursor);
    expect(next.events.map((e) => e.data.issue.issueId)).toEqual([issue.issueId]);
    expect((await readAll(TOKENS.bot, bot)).events.map((e) => e.data.issue.issueId)).toEqual([issue.issueId]);
  });
});
