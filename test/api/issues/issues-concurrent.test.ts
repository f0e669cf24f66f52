import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * Creates sent at the same time, as agents send them. On SQLite the writes of one turn of
 * the event loop commit together (src/db/sqlite/commit-groups.ts); on PostgreSQL they queue for
 * the workspace's write order and those that waited share one insert (workspace-groups.ts).
 * Either way each gets its own key, instant and event, and is kept or refused on its own.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness([ACME]);
});
afterAll(async () => h?.close());

const create = (body: Record<string, unknown>) =>
  h.call('POST', '/api/external/issues', { token: TOKENS.admin, body: { projectKey: 'API', ...body } });

describe('concurrent creates', () => {
  it('give each issue its own key, every one kept and readable', async () => {
    const titles = Array.from({ length: 16 }, (_, n) => `Concurrent ${n}`);
    const replies = await Promise.all(titles.map((title) => create({ title })));

    expect(replies.map((reply) => reply.status)).toEqual(titles.map(() => 201));
    const keys = replies.map((reply) => reply.body.issue.issueKey as string);
    const numbers = keys.map((key) => Number(key.split('-')[1])).sort((a, b) => a - b);
    // Consecutive numbers of the team, none taken twice.
    expect(numbers).toEqual(numbers.map((_, n) => numbers[0] + n));

    for (const [n, key] of keys.entries()) {
      const read = await h.call('GET', `/api/external/issues/by-key/${key}`, { token: TOKENS.admin });
      expect(read.status).toBe(200);
      expect(read.body.issue.title).toBe(replies[n].body.issue.title);
    }
  });

  it('refuse one create without touching the others sent with it', async () => {
    const before = await h.call('GET', '/api/external/issues?projectKey=API&limit=200', { token: TOKENS.admin });
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        create(n % 3 === 1 ? { title: `Refused ${n}`, assigneeId: 'usr_nobody' } : { title: `Kept ${n}` }),
      ),
    );

    replies.forEach((reply, n) => {
      if (n % 3 === 1) {
        expect(reply.status).toBe(400);
        expect(reply.body.code).toBe('ASSIGNEE_NOT_IN_WORKSPACE');
      } else expect(reply.status).toBe(201);
    });
    const after = await h.call('GET', '/api/external/issues?projectKey=API&limit=200', { token: TOKENS.admin });
    const added = after.body.issues.length - before.body.issues.length;
    expect(added).toBe(replies.filter((reply) => reply.status === 201).length);
    expect(after.body.issues.some((issue: { title: string }) => issue.title.startsWith('Refused'))).toBe(false);
  });

  it('record each its own event, by its own caller, in the order of their keys and instants', async () => {
    let cursor = '';
    for (let more = true; more;) {
      const page = await h.call('GET', `/api/external/events?limit=200${cursor && `&after=${cursor}`}`, {
        token: TOKENS.admin,
      });
      expect(page.status).toBe(200);
      cursor = page.body.pageInfo.nextCursor as string;
      more = page.body.pageInfo.hasMore as boolean;
    }
    const callers = Array.from({ length: 12 }, (_, n) => (n % 2 === 0 ? TOKENS.admin : TOKENS.bot));
    const replies = await Promise.all(
      callers.map((token, n) =>
        h.call('POST', '/api/external/issues', { token, body: { projectKey: 'API', title: `Together ${n}` } }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual(callers.map(() => 201));

    const feed = await h.call('GET', `/api/external/events?types=issue.created&limit=50&after=${cursor}`, {
      token: TOKENS.admin,
    });
    expect(feed.status).toBe(200);
    const events = feed.body.events as Array<{ actor: { id: string }; createdAt: string; data: any }>;
    expect(events.map((event) => event.data.issue.title).sort()).toEqual(replies.map((r) => r.body.issue.title).sort());
    // In the log's order: numbers rise, and so do the instants, each the issue's own.
    const numbers = events.map((event) => Number(String(event.data.issue.issueKey).split('-')[1]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    const instants = events.map((event) => event.data.issue.createdAt as string);
    expect(instants).toEqual([...instants].sort());
    const actors = new Map<string, Set<string>>();
    for (const event of events) {
      const reply = replies.find((r) => r.body.issue.issueKey === event.data.issue.issueKey)!;
      expect(event.createdAt).toBe(reply.body.issue.createdAt);
      expect(event.data.issue).toEqual(reply.body.issue);
      const caller = callers[replies.indexOf(reply)];
      actors.set(caller, (actors.get(caller) ?? new Set()).add(event.actor.id));
    }
    // Each caller is the actor of its own creates' events, and only of those.
    expect([...actors.values()].map((ids) => ids.size)).toEqual([1, 1]);
    const [adminActor] = actors.get(TOKENS.admin)!;
    expect(actors.get(TOKENS.bot)!.has(adminActor)).toBe(false);
  });
});
