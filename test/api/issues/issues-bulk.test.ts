import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness, type Reply } from '../../support/harness.js';

/**
 * Bulk writes of issues (POST and PATCH /issues/bulk): one transaction for up to 50 items,
 * all or nothing, the failing item named by `details.index`; Idempotency-Key, the rate
 * limit per item and the MCP tools.
 */

const BULK = '/api/external/issues/bulk';
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const items = (count: number, prefix: string, extra: Record<string, unknown> = {}) =>
  Array.from({ length: count }, (_, i) => ({ projectKey: 'API', teamKey: 'ENG', title: `${prefix} ${i}`, ...extra }));

/** What a write leaves behind, read from the database so that checking spends no request budget. */
async function footprint(h: Harness) {
  const count = async (table: 'issues' | 'outbox_events') =>
    Number(
      (
        await h.database.db
          .selectFrom(table)
          .select(sql<number>`count(*)`.as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const counters = await h.database.db.selectFrom('teams').select(['key', 'issue_counter']).orderBy('id').execute();
  return { issues: await count('issues'), events: await count('outbox_events'), counters };
}

const expectError = (reply: Reply, status: number, code: string, details: Record<string, unknown>) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body.code).toBe(code);
  expect(reply.body.details).toMatchObject(details);
};

describe('bulk writes of issues', () => {
  let h: Harness;
  const bulk = (method: 'POST' | 'PATCH', body: unknown, token = TOKENS.admin, headers?: Record<string, string>) =>
    h.call(method, BULK, { token, body, headers });
  const createSome = async (count: number, prefix: string) => {
    const reply = await bulk('POST', { issues: items(count, prefix) });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.issues as Array<{ issueId: string; issueKey: string; title: string; version: number }>;
  };
  const getIssue = async (issueId: string) =>
    (await h.call('GET', `/api/external/issues/${issueId}`, { token: TOKENS.admin })).body.issue;
  /** An issue's title changes (its evolution), oldest first. */
  const titleChanges = async (issueId: string) => {
    const reply = await h.call('GET', `/api/external/issues/${issueId}/evolve`, { token: TOKENS.admin });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.evolutions as Array<{ priorTitle: string; newTitle: string }>;
  };

  beforeAll(async () => {
    h = await startHarness([ACME, GLOBEX]);
  });
  afterAll(() => h.close());

  describe('POST /issues/bulk', () => {
    it('creates 50 issues in request order, with consecutive keys and one event each', async () => {
      const before = await footprint(h);
      const reply = await bulk('POST', { issues: items(50, 'Fifty') });
      expect(reply.status).toBe(201);
      expect(reply.headers.location).toBe('/api/external/issues');
      const created = reply.body.issues as Array<{ issueKey: string; title: string }>;
      expect(created.map((issue) => issue.title)).toEqual(items(50, 'Fifty').map((item) => item.title));
      const numbers = created.map((issue) => Number(issue.issueKey.replace('ENG-', '')));
      expect(numbers).toEqual(numbers.map((_, i) => numbers[0] + i));
      const after = await footprint(h);
      expect(after.issues - before.issues).toBe(50);
      expect(after.events - before.events).toBe(50);
    });

    // Every item is checked before any is written; then the issues of each key team and the
    // events go in as multi-row statements (issues.service.ts, insertCheckedCreates).
    it('creates items of two teams in request order: keys per team, events at consecutive positions', async () => {
      const batch = Array.from({ length: 30 }, (_, i) =>
        i % 3 === 2
          ? { projectKey: 'INFRA', teamKey: 'OPS', title: `Mixed ${i}`, tags: [`t${i}`, 'shared'] }
          : { projectKey: 'API', teamKey: 'ENG', title: `Mixed ${i}` },
      );
      const reply = await bulk('POST', { issues: batch });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      const created = reply.body.issues as Array<{ issueId: string; issueKey: string; title: string; tags: string[] }>;
      expect(created.map((issue) => issue.title)).toEqual(batch.map((item) => item.title));
      for (const team of ['ENG', 'OPS']) {
        const numbers = created
          .filter((issue) => issue.issueKey.startsWith(`${team}-`))
          .map((issue) => Number(issue.issueKey.slice(team.length + 1)));
        expect(numbers).toHaveLength(team === 'ENG' ? 20 : 10);
        expect(numbers).toEqual(numbers.map((_, i) => numbers[0] + i));
      }
      expect(created[2].tags).toEqual(['t2', 'shared']);
      const createdIds = created.map((issue) => issue.issueId);
      const tagged = await h.database.db
        .selectFrom('tag_usages')
        .select(['entity_id', 'name'])
        .where('entity_id', 'in', createdIds)
        .execute();
      expect(tagged).toHaveLength(20);
      expect(
        tagged
          .filter((row) => row.entity_id === created[2].issueId)
          .map((row) => row.name)
          .sort(),
      ).toEqual(['shared', 't2']);

      const { workspace_id } = await h.database.db
        .selectFrom('issues')
        .select('workspace_id')
        .where('id', '=', created[0].issueId)
        .executeTakeFirstOrThrow();
      const events = (
        await h.database.db
          .selectFrom('outbox_events')
          .select(['seq', 'type', 'payload'])
          .where('workspace_id', '=', workspace_id)
          .orderBy('seq', 'desc')
          .limit(30)
          .execute()
      ).reverse();
      expect(events.map((event) => event.type)).toEqual(Array(30).fill('issue.created'));
      const positions = events.map((event) => Number(event.seq));
      expect(positions).toEqual(positions.map((_, i) => positions[0] + i));
      expect(events.map((event) => JSON.parse(event.payload).data.issue.issueKey)).toEqual(
        created.map((issue) => issue.issueKey),
      );
    });

    it('refuses 51 items with VALIDATION_FAILED naming the bound', async () => {
      const before = await footprint(h);
      expectError(await bulk('POST', { issues: items(51, 'Too many') }), 400, 'VALIDATION_FAILED', {
        field: 'issues',
        max: 50,
      });
      expect(await footprint(h)).toEqual(before);
    });

    it('refuses an empty or missing list', async () => {
      expectError(await bulk('POST', { issues: [] }), 400, 'VALIDATION_FAILED', { field: 'issues' });
      expectError(await bulk('POST', {}), 400, 'VALIDATION_FAILED', { field: 'issues' });
      expectError(await bulk('POST', { issues: items(1, 'x'), extra: 1 }), 400, 'VALIDATION_FAILED', {
        unknownFields: ['extra'],
      });
    });

    it('writes nothing when item 37 of 50 has no title, and names item 37', async () => {
      const before = await footprint(h);
      const batch = items(50, 'Doomed');
      delete (batch[37] as { title?: string }).title;
      const reply = await bulk('POST', { issues: batch });
      expectError(reply, 400, 'TITLE_REQUIRED', { index: 37 });
      expect(reply.body.error).toMatch(/^issues\[37\]: /);
      // Nothing written: no issue, no event, and the team's key counter is where it was.
      expect(await footprint(h)).toEqual(before);
      const next = await h.call('POST', '/api/external/issues', {
        token: TOKENS.admin,
        body: { projectKey: 'API', teamKey: 'ENG', title: 'After the rollback' },
      });
      const engCounter = before.counters.find((team) => team.key === 'ENG')?.issue_counter;
      expect(next.body.issue.issueKey).toBe(`ENG-${Number(engCounter) + 1}`);
    });

    it('answers the not-found code of item 37 when its project is one the caller cannot see', async () => {
      const before = await footprint(h);
      const batch = items(50, 'Hidden');
      batch[37] = { ...batch[37], projectKey: 'WEB' };
      const reply = await bulk('POST', { issues: batch }, TOKENS.bot);
      expectError(reply, 404, 'PROJECT_NOT_FOUND', { index: 37 });
      expect(await footprint(h)).toEqual(before);
    });

    it('checks each item as create_issue checks its body, naming the item', async () => {
      const before = await footprint(h);
      const unknown = items(3, 'Unknown field');
      (unknown[2] as Record<string, unknown>).colour = 'red';
      expectError(await bulk('POST', { issues: unknown }), 400, 'VALIDATION_FAILED', {
        unknownFields: ['colour'],
        index: 2,
      });

      const badPriority = items(3, 'Bad priority');
      (badPriority[1] as Record<string, unknown>).priority = 'whenever';
      expectError(await bulk('POST', { issues: badPriority }), 400, 'VALIDATION_FAILED', {
        field: 'priority',
        index: 1,
      });

      const longTitle = items(3, 'Long title');
      longTitle[0].title = 'x'.repeat(501);
      expectError(await bulk('POST', { issues: longTitle }), 400, 'VALIDATION_FAILED', {
        field: 'title',
        max: 500,
        index: 0,
      });

      const numberTitle = items(3, 'Number title');
      (numberTitle[2] as Record<string, unknown>).title = 7;
      expectError(await bulk('POST', { issues: numberTitle }), 400, 'TITLE_REQUIRED', { field: 'title', index: 2 });

      expectError(await bulk('POST', { issues: [...items(1, 'Fine'), 'not an item'] }), 400, 'VALIDATION_FAILED', {
        index: 1,
      });
      expect(await footprint(h)).toEqual(before);
    });
  });

  describe('PATCH /issues/bulk', () => {
    it('updates issues named by id and by key, answering them in request order, keeping title changes', async () => {
      const [a, b, c] = await createSome(3, 'Patch me');
      const reply = await bulk('PATCH', {
        issues: [
          { issueKey: c.issueKey, priority: 'high' },
          { issueId: a.issueId, title: 'A renamed' },
          { issueId: b.issueKey, dueDate: '2026-09-30' },
        ],
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.issues.map((issue: { issueId: string }) => issue.issueId)).toEqual([
        c.issueId,
        a.issueId,
        b.issueId,
      ]);
      expect(reply.body.issues.map((issue: { version: number }) => issue.version)).toEqual([2, 2, 2]);
      expect((await getIssue(c.issueId)).priority).toBe('high');
      expect((await getIssue(a.issueId)).title).toBe('A renamed');
      expect((await getIssue(b.issueId)).dueDate).toBe('2026-09-30');
      // The retitled item's change is kept, inserted with the others after the last item.
      expect(await titleChanges(a.issueId)).toMatchObject([{ priorTitle: 'Patch me 0', newTitle: 'A renamed' }]);
      expect(await titleChanges(c.issueId)).toEqual([]);
    });

    it('writes nothing when a later item fails, not even a title change, and names that item', async () => {
      const [a, b] = await createSome(2, 'All or nothing');
      const before = await footprint(h);
      const reply = await bulk('PATCH', {
        issues: [
          { issueId: a.issueId, title: 'Should not stick' },
          { issueKey: b.issueKey, statusKey: 'no-such-status' },
        ],
      });
      expectError(reply, 404, 'STATUS_NOT_FOUND', { index: 1 });
      expect(reply.body.error).toMatch(/^issues\[1\]: /);
      expect(await footprint(h)).toEqual(before);
      const unchanged = await getIssue(a.issueId);
      expect(unchanged).toMatchObject({ title: 'All or nothing 0', version: 1 });
      expect(await titleChanges(a.issueId)).toEqual([]);
    });

    it('writes an item with expectedVersion only at that version, and nothing when one is stale', async () => {
      const [a, b] = await createSome(2, 'Versioned');
      const ok = await bulk('PATCH', {
        issues: [
          { issueId: a.issueId, expectedVersion: 1, priority: 'high' },
          { issueKey: b.issueKey, priority: 'low' },
        ],
      });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.issues[0].version).toBe(2);

      const before = await footprint(h);
      const stale = await bulk('PATCH', {
        issues: [
          { issueKey: b.issueKey, expectedVersion: 2, title: 'Should not stick' },
          { issueId: a.issueId, expectedVersion: 1, priority: 'low' },
        ],
      });
      expectError(stale, 412, 'PRECONDITION_FAILED', { index: 1, currentVersion: 2 });
      expect(stale.body.details.current).toMatchObject({ issueId: a.issueId, priority: 'high' });
      expect(await footprint(h)).toEqual(before);
      expect(await getIssue(b.issueId)).toMatchObject({ title: 'Versioned 1', version: 2 });

      const typed = await bulk('PATCH', { issues: [{ issueId: a.issueId, expectedVersion: '2', priority: 'low' }] });
      expectError(typed, 400, 'VALIDATION_FAILED', { index: 0, field: 'expectedVersion' });
    });

    it('answers each issue as the bulk leaves it, with one event per item at consecutive positions', async () => {
      const [blocker, blocked] = await createSome(2, 'Leaves it');
      const link = await h.call('POST', `/api/external/issues/${blocked.issueId}/links`, {
        token: TOKENS.admin,
        body: { type: 'blocked_by', targetIssueId: blocker.issueId },
      });
      expect(link.status, JSON.stringify(link.body)).toBe(201);
      const openStatus = (await getIssue(blocker.issueId)).statusKey;
      const blockedVersion = (await getIssue(blocked.issueId)).version;

      // Item 1 completes the blocker, which moves the issue item 0 already changed.
      const reply = await bulk('PATCH', {
        issues: [
          { issueId: blocked.issueId, title: 'Blocked, retitled' },
          { issueKey: blocker.issueKey, statusKey: 'done' },
        ],
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const [answeredBlocked, answeredBlocker] = reply.body.issues;
      expect(answeredBlocked).toEqual(await getIssue(blocked.issueId));
      expect(answeredBlocker).toEqual(await getIssue(blocker.issueId));
      expect(answeredBlocked.links).toMatchObject([{ targetIssueId: blocker.issueId, isSatisfied: true }]);
      expect(answeredBlocked.version).toBe(blockedVersion + 2);

      const events = (
        await h.database.db
          .selectFrom('outbox_events')
          .select(['seq', 'type', 'payload'])
          .orderBy('seq', 'desc')
          .limit(2)
          .execute()
      ).reverse();
      expect(events.map((event) => event.type)).toEqual(['issue.updated', 'issue.updated']);
      expect(Number(events[1].seq)).toBe(Number(events[0].seq) + 1);
      const payloads = events.map((event) => JSON.parse(event.payload).data);
      expect(payloads.map((data) => data.issue.issueKey)).toEqual([blocked.issueKey, blocker.issueKey]);
      expect(payloads[0].changes.title).toEqual({ from: 'Leaves it 1', to: 'Blocked, retitled' });

      // The issues are read before any item is written, but a version is checked as it is when
      // the item's turn comes: reopening the blocker moves the blocked issue's version first.
      const before = await footprint(h);
      const stale = await bulk('PATCH', {
        issues: [
          { issueId: blocker.issueId, statusKey: openStatus },
          { issueId: blocked.issueId, expectedVersion: blockedVersion + 2, priority: 'low' },
        ],
      });
      expectError(stale, 412, 'PRECONDITION_FAILED', { index: 1, currentVersion: blockedVersion + 3 });
      expect(await footprint(h)).toEqual(before);
    });

    it('refuses the same issue twice, by id and by key, at the second item', async () => {
      const [a, b] = await createSome(2, 'Twice');
      const reply = await bulk('PATCH', {
        issues: [
          { issueId: a.issueId, priority: 'low' },
          { issueId: b.issueId, priority: 'low' },
          { issueKey: a.issueKey, priority: 'high' },
        ],
      });
      expectError(reply, 400, 'VALIDATION_FAILED', { field: 'issueKey', index: 2, duplicateOf: 0 });
      expect((await getIssue(a.issueId)).version).toBe(1);
      expect((await getIssue(b.issueId)).version).toBe(1);
    });

    it('wants exactly one of issueId and issueKey in each item', async () => {
      const [a] = await createSome(1, 'Reference');
      expectError(
        await bulk('PATCH', { issues: [{ issueId: a.issueId, priority: 'low' }, { priority: 'low' }] }),
        400,
        'VALIDATION_FAILED',
        { field: 'issueId', index: 1 },
      );
      expectError(
        await bulk('PATCH', { issues: [{ issueId: a.issueId, issueKey: a.issueKey, priority: 'low' }] }),
        400,
        'VALIDATION_FAILED',
        { field: 'issueKey', index: 0 },
      );
      expectError(await bulk('PATCH', { issues: [{ issueKey: 42, priority: 'low' }] }), 400, 'VALIDATION_FAILED', {
        field: 'issueKey',
        index: 0,
      });
      expect((await getIssue(a.issueId)).version).toBe(1);
    });

    it('answers ISSUE_NOT_FOUND for an issue the caller cannot see, and an empty patch as update_issue does', async () => {
      const [a] = await createSome(1, 'Not found');
      const hidden = await h.call('POST', '/api/external/issues', {
        token: TOKENS.admin,
        body: { projectKey: 'WEB', teamKey: 'ENG', title: 'Hidden from bot' },
      });
      const reply = await bulk(
        'PATCH',
        {
          issues: [
            { issueId: a.issueId, priority: 'low' },
            { issueKey: hidden.body.issue.issueKey, priority: 'low' },
          ],
        },
        TOKENS.bot,
      );
      expectError(reply, 404, 'ISSUE_NOT_FOUND', { issueKey: hidden.body.issue.issueKey, index: 1 });
      expectError(await bulk('PATCH', { issues: [{ issueId: a.issueId }] }), 400, 'UNSUPPORTED_ACTION', { index: 0 });
      expect((await getIssue(a.issueId)).version).toBe(1);
    });

    it('does not take If-Match: the items name their issues', async () => {
      const [a] = await createSome(1, 'If-Match');
      const reply = await bulk('PATCH', { issues: [{ issueId: a.issueId, priority: 'low' }] }, TOKENS.admin, {
        'if-match': '"1"',
      });
      expectError(reply, 400, 'VALIDATION_FAILED', { field: 'If-Match' });
    });
  });

  describe('Idempotency-Key', () => {
    it('replays a bulk create once created, writing nothing twice', async () => {
      const body = { issues: items(3, 'Idempotent create') };
      const first = await bulk('POST', body, TOKENS.admin, { 'idempotency-key': 'bulk-create-1' });
      expect(first.status).toBe(201);
      const before = await footprint(h);
      const again = await bulk('POST', body, TOKENS.admin, { 'idempotency-key': 'bulk-create-1' });
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await footprint(h)).toEqual(before);
    });

    it('replays a bulk update once applied, writing nothing twice', async () => {
      const [a, b] = await createSome(2, 'Idempotent update');
      const body = {
        issues: [
          { issueId: a.issueId, title: 'Once' },
          { issueKey: b.issueKey, priority: 'urgent' },
        ],
      };
      const first = await bulk('PATCH', body, TOKENS.admin, { 'idempotency-key': 'bulk-update-1' });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const before = await footprint(h);
      const again = await bulk('PATCH', body, TOKENS.admin, { 'idempotency-key': 'bulk-update-1' });
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await footprint(h)).toEqual(before);
      expect((await getIssue(a.issueId)).version).toBe(2);
    });

    it('refuses the same key with another body', async () => {
      const [a] = await createSome(1, 'Key reuse');
      const key = { 'idempotency-key': 'bulk-update-2' };
      const first = await bulk('PATCH', { issues: [{ issueId: a.issueId, priority: 'low' }] }, TOKENS.admin, key);
      expect(first.status).toBe(200);
      const other = await bulk('PATCH', { issues: [{ issueId: a.issueId, priority: 'high' }] }, TOKENS.admin, key);
      expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED', {});
      expect((await getIssue(a.issueId)).priority).toBe('low');
    });
  });

  describe('MCP tools', () => {
    const callTool = async (name: string, args: Record<string, unknown>) => {
      const reply = await h.app.inject({
        method: 'POST',
        url: '/api/mcp?toolsets=issues',
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
        headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKENS.admin}` },
      });
      expect(reply.statusCode).toBe(200);
      return JSON.parse(reply.body).result as { structuredContent: any; isError?: boolean };
    };

    it('creates and updates in bulk, and names a failing item', async () => {
      const created = await callTool('bulk_create_issues', { issues: items(2, 'Through MCP') });
      expect(created.isError).toBeUndefined();
      const [a, b] = created.structuredContent.issues;
      expect([a.title, b.title]).toEqual(['Through MCP 0', 'Through MCP 1']);

      const updated = await callTool('bulk_update_issues', {
        issues: [
          { issueKey: b.issueKey, priority: 'high' },
          { issueId: a.issueId, priority: 'low' },
        ],
      });
      expect(updated.isError).toBeUndefined();
      expect(updated.structuredContent.issues.map((issue: { priority: string }) => issue.priority)).toEqual([
        'high',
        'low',
      ]);

      const failed = await callTool('bulk_create_issues', { issues: [{ projectKey: 'API', teamKey: 'ENG' }] });
      expect(failed.isError).toBe(true);
      expect(failed.structuredContent).toMatchObject({ code: 'TITLE_REQUIRED', details: { index: 0 } });
    });
  });
});

describe('bulk writes against the rate limit', () => {
  const LIMIT = 10;
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness([ACME], { rateLimitPerMinute: LIMIT });
  });
  afterAll(() => h.close());

  it('charges one request per item, and refuses a bulk larger than what is left before writing', async () => {
    const first = await h.call('POST', BULK, { token: TOKENS.admin, body: { issues: items(4, 'Budget') } });
    expect(first.status).toBe(201);
    expect(first.headers['ratelimit-remaining']).toBe(String(LIMIT - 4));

    const before = await footprint(h);
    const refused = await h.call('POST', BULK, { token: TOKENS.admin, body: { issues: items(7, 'Over budget') } });
    expectError(refused, 429, 'RATE_LIMITED', { limit: LIMIT });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await footprint(h)).toEqual(before);
  });

  it('charges a bulk update per item as well, before any item runs', async () => {
    // Most of these keys name no issue: a 429 rather than a 404 shows that no item ran.
    const reply = await h.call('PATCH', BULK, {
      token: TOKENS.bot,
      body: { issues: Array.from({ length: 11 }, (_, i) => ({ issueKey: `ENG-${i + 1}`, priority: 'low' })) },
    });
    expectError(reply, 429, 'RATE_LIMITED', { limit: LIMIT });
  });

  it('charges a bulk tool call over MCP per item too, and refuses it before writing', async () => {
    const fresh = await startHarness([ACME], { rateLimitPerMinute: LIMIT });
    try {
      const before = await footprint(fresh);
      const reply = await fresh.app.inject({
        method: 'POST',
        url: '/api/mcp?toolsets=issues',
        payload: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'bulk_create_issues', arguments: { issues: items(LIMIT + 1, 'MCP budget') } },
        },
        headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKENS.admin}` },
      });
      const result = JSON.parse(reply.body).result as { structuredContent: any; isError?: boolean };
      expect(result.isError).toBe(true);
      expect(result.structuredContent.code).toBe('RATE_LIMITED');
      expect(await footprint(fresh)).toEqual(before);
    } finally {
      await fresh.close();
    }
  });
});
